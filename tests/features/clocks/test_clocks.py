"""Live clocks through the services, on both backends: each player is charged the time from
the board of their turn to their press; a clock that runs out ends the game on time, once."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.base.game_options import GameOptions
from bot.base.paces import TimeControl
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.features.play.service import OutdatedBoardError, StepShown, TimeUp, TurnPlayed
from bot.storage.sweeps import Sweeps
from engine.builder import turn_path
from tests.databases import Services
from tests.features.play.test_service import ALICE, BOB, CHANNEL, GUILD, by

FIVE_PLUS_THREE = TimeControl(5, 3)


async def live_game(service: Services, clock: TimeControl = FIVE_PLUS_THREE):
    """Alice (White, first) and Bob on ``clock``."""
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=Person(ALICE, "Alice"),
        opponent=Person(BOB, "Bob"),
        options=GameOptions(colour="white", first="me", clock=clock),
    )
    assert made.time_control == "5+3"
    return (await service.challenges.answer(made.id, by(BOB), "accept")).game


async def board_out(service: Services, game, at: float):
    """The board of ``game``'s turn is posted at ``at``: the mover's clock starts."""
    left = game.clock_of(game.position.turn)
    await service.play.games.set_board_message(
        game.id, 10_000 + game.version, game.version, (at, at + left)
    )
    return await service.play.games.game(game.id)


async def press(service: Services, game, turn, at: float) -> TurnPlayed:
    """The player to move plays ``turn`` (every step pressed at ``at``)."""
    path = "".join(turn_path(game.position, turn))
    caller = Caller(game.to_move, CHANNEL, at)
    result = await service.play.choose(game.id, game.version, path, caller)
    if isinstance(result, StepShown):  # a bonus offered: skip it
        result = await service.play.choose(game.id, game.version, path + "-", caller)
    assert isinstance(result, TurnPlayed)
    return result


async def test_each_player_is_charged_from_their_board_to_their_press(service, clock, seed):
    rng = random.Random(seed)
    game = await live_game(service)
    assert (game.white_clock, game.black_clock, game.clock_started_at) == (300.0, 300.0, None)
    assert game.reminder_due_at is None  # a live game's clock is its reminder
    expected = {0: 300.0, 1: 300.0}
    records = []
    for _ in range(6):
        posted = clock.now + rng.uniform(0.1, 2.0)  # Discord's time of the posted board
        game = await board_out(service, game, posted)
        assert game.flag_at == pytest.approx(posted + expected[game.position.turn])
        thought = rng.uniform(0.0, 30.0)
        mover = game.position.turn
        turn = rng.choice(game.position.legal_turns())
        game = (await press(service, game, turn, posted + thought)).game
        expected[mover] += 3 - thought
        assert game.clock_of(mover) == pytest.approx(expected[mover])
        assert game.clock_started_at is None and game.flag_at is None  # until the next board
        records.append(expected[mover])
        clock.now = posted + thought + 1
    stored = [record.clock for record in await service.play.games.turns(game.id)]
    assert stored == pytest.approx(records)


async def test_a_turn_before_its_board_is_recorded_is_charged_nothing(service, clock):
    game = await live_game(service)
    played = await press(service, game, game.position.legal_turns()[0], clock.now + 50)
    assert played.game.white_clock == 303.0


async def test_a_press_after_the_flag_ends_the_game_on_time_once(service, clock):
    game = await board_out(service, await live_game(service), clock.now)
    turn = game.position.legal_turns()[0]
    with pytest.raises(TimeUp) as up:
        await press(service, game, turn, clock.now + 300.5)
    over = up.value.game
    outcome = over.outcome
    assert (over.status, outcome.result, outcome.reason) == ("finished", "black", "timeout")
    assert (over.white_clock, over.black_clock, over.flag_at) == (0, 300.0, None)
    with pytest.raises(Refusal, match="over"):
        await press(service, game, turn, clock.now + 301)
    clock.now += 400
    assert await Sweeps(service.play.games.database).flags_due(clock.now) == []
    assert len(await service.play.games.turns(game.id)) == 0


async def test_a_press_just_before_the_flag_counts(service, clock):
    game = await board_out(service, await live_game(service), clock.now)
    played = await press(service, game, game.position.legal_turns()[0], clock.now + 299.9)
    assert played.game.white_clock == pytest.approx(3.1)
    assert played.game.is_active


async def test_the_sweep_ends_a_game_once_however_many_processes_sweep(
    service, other_process, clock
):
    games = []
    for channel in range(3):
        made = await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL + channel,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB, "Bob"),
            options=GameOptions(colour="white", first="me", clock=FIVE_PLUS_THREE),
        )
        game = (await service.challenges.answer(made.id, by(BOB, CHANNEL + channel), "accept")).game
        games.append(await board_out(service, game, clock.now + channel))
    sweeps = Sweeps(service.play.games.database)
    assert await sweeps.next_flag() == pytest.approx(clock.now + 300)
    clock.now += 301.5  # the first two have run out, the third not yet

    async def sweep(process: Services) -> list[int]:
        """What one process's clocks loop does: flag every game due (one a turn or the other
        process ended first is left)."""
        flagged = []
        for game in await sweeps.flags_due(clock.now):
            try:
                flagged.append((await process.play.flag(game)).id)
            except OutdatedBoardError:
                continue
        return flagged

    swept = await asyncio.gather(sweep(service), sweep(other_process))
    assert sorted(swept[0] + swept[1]) == [games[0].id, games[1].id]
    assert await sweeps.next_flag() == pytest.approx(games[2].flag_at)
    with pytest.raises(Refusal, match="over"):  # the last board of a game that ended on time
        await press(service, games[0], games[0].position.legal_turns()[0], clock.now)


async def test_against_the_ai_only_the_humans_clock_runs(service):
    game = await service.challenges.new_games.start_ai_game(
        guild_id=GUILD,
        channel_id=CHANNEL,
        human=Person(ALICE, "Alice"),
        ai=Person(9, "AI"),
        level="easy",
        options=GameOptions(colour="white", first="me", clock=FIVE_PLUS_THREE),
    )
    assert (game.white_clock, game.black_clock, game.time_control) == (300.0, None, "5+3")


async def test_no_claim_in_a_live_game(service, clock):
    game = await live_game(service)
    clock.now += 10**6
    with pytest.raises(Refusal, match="played on a clock"):
        await service.play.claim(game.id, by(BOB), 60)
