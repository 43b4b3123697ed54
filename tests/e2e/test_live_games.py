"""Open challenges raced by several members and live games on short clocks, some of which run
out, across kill -9 restarts; afterwards an independent check of the database: every game
ended once, on time exactly when its mover's clock fell, and each stored clock adds up.

Discord's clock (the emulator's) is moved back for a board whose clock should run out soon,
so that no test waits minutes.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3

from engine import Position
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table
from tests.features.challenges.test_e2e_open_challenges import BEING_TAKEN

PACE_SECONDS, INCREMENT = 180.0, 2.0  # 3+2
ROUNDS = 4
FLAG = "SELECT flag_at FROM games WHERE id = ?"


def first_board_out(emulator: Emulator, challenge) -> bool:
    thread = emulator.thread_of(challenge)
    return thread is not None and bool(Table(emulator, thread).boards())


def playing_against(bot: BotProcess, user_id: int) -> set[int]:
    """Who plays a game against ``user_id`` now."""
    found = rows(
        bot,
        "SELECT white_id, black_id FROM games WHERE status = 'active' "
        "AND ? IN (white_id, black_id)",
        user_id,
    )
    return {player for pair in found for player in pair} - {user_id}


def rows(bot: BotProcess, sql: str, *parameters: object) -> list[tuple]:
    with sqlite3.connect(bot.db_path) as db:
        return db.execute(sql, parameters).fetchall()


async def test_raced_open_challenges_and_live_games_across_restarts(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    rng = random.Random(seed)
    bot = spawn_bot(emulator, env={"THOLOS_THREADS": "on"})
    await bot.start(sync=True)
    lobby = Table(emulator)
    members = list(lobby.people_named("alice", "bob", "carol")) + [
        emulator.add_person(f"racer{number}") for number in range(2)
    ]
    flagged_expected: set[int] = set()
    for round_ in range(ROUNDS):
        challenger, *others = rng.sample(members, len(members))
        posted = (await lobby.slash(challenger, "tholos challenge", pace="3+2")).original
        assert posted is not None and "anyone here may accept" in posted.text
        accept = lobby.custom_id(posted, ":accept")
        busy = playing_against(bot, challenger.id)  # refused: they play the challenger here
        racers = others[: rng.randint(2, 3)]
        if all(m.id in busy for m in racers):
            racers.append(next(m for m in others if m.id not in busy))
        presses = await asyncio.gather(*(lobby.click(m, posted, accept) for m in racers))
        await emulator.wait_for(
            lambda p=posted: first_board_out(emulator, p), what="the game's first board"
        )
        game = Table(emulator, emulator.thread_of(posted))
        winner = game.header()
        for member, press in zip(racers, presses, strict=True):
            told = " ".join(m.text for m in press.messages)
            if f"<@{member.id}>" in winner:
                assert member.id not in busy and not told, told
            else:
                assert (
                    "Someone was faster" in told
                    or BEING_TAKEN in told
                    or (member.id in busy and "already have a game going" in told)
                ), told
        for _ in range(rng.randint(1, 4)):  # a few turns at the players' pace
            if game.status().startswith("Game over."):
                break
            await game.play(rng.choice(game.position().legal_turns()))
        if rng.random() < 0.6:  # this one runs out: the next board's clock ends in a few s
            emulator.clock_offset = -(PACE_SECONDS - 4.0)
            await game.play(rng.choice(game.position().legal_turns()))
            emulator.clock_offset = 0.0
            (game_id,) = rows(bot, "SELECT id FROM games WHERE channel_id = ?", game.channel.id)[0]
            flagged_expected.add(game_id)
            await emulator.wait_for(
                lambda i=game_id: rows(bot, FLAG, i) != [(None,)], what="the clock started"
            )
            if rng.random() < 0.5:  # and the bot dies around its flag (a board posted but not
                # yet recorded when it dies is posted again, and its clock starts then)
                assert await bot.kill() == -9
                await bot.start()
            await emulator.wait_for(
                lambda g=game: g.status().startswith("Game over."), what="the flag"
            )
        elif round_ % 2:
            assert await bot.kill() == -9
            await bot.start()
        game.assert_clean()
    await bot.settle()
    lobby.assert_clean()
    assert await bot.stop() == 0
    check_the_stored_games(bot, flagged_expected)


def check_the_stored_games(bot: BotProcess, flagged_expected: set[int]) -> None:
    """Every game replays from its start; those that ended on time are exactly those whose
    clock was made to run out, the loser at 0; every turn's stored clock is what the player
    had before it, less some thinking time, plus the increment."""
    games = rows(
        bot,
        "SELECT id, start_position, position, status, reason, result, "
        "white_clock, black_clock, time_control FROM games ORDER BY id",
    )
    assert len(games) == ROUNDS
    timed_out = {game[0] for game in games if game[4] == "timeout"}
    assert timed_out == flagged_expected
    for game_id, start, position, status, reason, result, white, black, pace in games:
        assert pace == "3+2"
        turns = rows(
            bot,
            "SELECT ply, turn, position_after, clock FROM turns WHERE game_id = ? ORDER BY ply",
            game_id,
        )
        replay = Position.parse(start)
        left = [PACE_SECONDS, PACE_SECONDS]
        for ply, turn, after, clock in turns:
            mover = replay.turn
            replay = replay.apply(turn)
            assert str(replay) == after, (game_id, ply)
            assert INCREMENT <= clock <= left[mover] + INCREMENT, (game_id, ply, clock)
            left[mover] = clock
        assert str(replay) == position
        if reason == "timeout":
            loser = 0 if result == "black" else 1
            assert status == "finished" and (white, black)[loser] == 0
            assert (white, black)[1 - loser] == left[1 - loser]
        else:
            assert (white, black) == tuple(left)
