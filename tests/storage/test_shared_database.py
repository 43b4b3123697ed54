"""One database shared by two bot processes (each its own connection; on PostgreSQL, READ
COMMITTED): the races a shared database must survive, run concurrently on both backends."""

from __future__ import annotations

import asyncio

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.features.play.service import OutdatedBoardError, TurnPlayed
from bot.features.ratings.rebuild import rebuild_ratings
from engine.builder import TurnBuilder, turn_path
from tests.databases import Services
from tests.history import assert_rated_as_by_hand

GUILD = 1


async def start(service: Services, white: int, black: int, channel: int):
    """A started basic game between ``white`` (moving first) and ``black`` in ``channel``."""
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(white, f"p{white}"),
        opponent=Person(black, f"p{black}"),
        options=GameOptions(colour="white", first="me"),
    )
    game = (await service.challenges.answer(made.id, Caller(black, channel), "accept")).game
    assert game is not None
    return game


def path_of(game, turn) -> str:
    """The button path of ``turn`` (skipping a bonus it doesn't use)."""
    path = turn_path(game.position, turn)
    if TurnBuilder(game.position, path).turn is None:
        path = (*path, "-")
    return "".join(path)


async def test_the_same_press_in_two_processes_stores_one_turn(service, other_process):
    """Both processes press the last step of the same board at once: one turn is stored, the
    other press is told the board is out of date."""
    game = await start(service, 100, 200, channel=10)
    path = path_of(game, game.position.legal_turns()[0])
    caller = Caller(100, 10)
    results = await asyncio.gather(
        service.play.choose(game.id, game.version, path, caller),
        other_process.play.choose(game.id, game.version, path, caller),
        return_exceptions=True,
    )
    assert sorted(type(result).__name__ for result in results) == [
        "OutdatedBoardError",
        "TurnPlayed",
    ]
    assert len(await service.play.games.turns(game.id)) == 1


async def test_games_ending_at_once_in_two_processes_are_each_rated_once(
    service, other_process, database
):
    """Two games with a common player end at the same moment in two processes: both count,
    with distinct rating numbers, and the ratings equal a rebuild's."""
    first = await start(service, 100, 200, channel=11)
    second = await start(other_process, 100, 300, channel=12)
    await asyncio.gather(
        service.play.resign(first.id, first.version, Caller(200, 11)),
        other_process.play.resign(second.id, second.version, Caller(300, 12)),
    )
    row = await database.fetchone(
        "SELECT games, wins FROM member_ratings WHERE pool = 'correspondence' AND user_id = ?",
        (100,),
    )
    assert tuple(row) == (2, 2)
    sequence = await database.fetchall(
        "SELECT rated_seq FROM games WHERE rated_seq IS NOT NULL ORDER BY rated_seq"
    )
    assert [row[0] for row in sequence] == [1, 2]
    before = [
        tuple(r) for r in await database.fetchall("SELECT * FROM member_ratings ORDER BY 1, 2")
    ]
    await rebuild_ratings(database)
    after = [
        tuple(r) for r in await database.fetchall("SELECT * FROM member_ratings ORDER BY 1, 2")
    ]
    assert after == before
    await assert_rated_as_by_hand(database)


@pytest.mark.parametrize("rounds", [range(5)])
async def test_one_game_per_place_and_pair_holds_across_processes(service, other_process, rounds):
    """Two processes start games at once: two in the same channel itself (no thread), or the
    same two players in two threads of one channel; exactly one of each pair starts, the
    other is refused politely."""
    for number in rounds:
        channel = 20 + number
        people = (Person(100, "p100"), Person(300, "p300"))
        same_place = await asyncio.gather(
            *(
                process.challenges.new_games.start_ai_game(
                    guild_id=GUILD,
                    channel_id=channel,
                    human=human,
                    ai=Person(9, "AI"),
                    level="easy",
                    options=GameOptions(),
                )
                for process, human in zip((service, other_process), people, strict=True)
            ),
            return_exceptions=True,
        )
        same_pair = await asyncio.gather(
            *(
                process.challenges.new_games.start_ai_game(
                    guild_id=GUILD,
                    channel_id=thread,
                    human=Person(400, "p400"),
                    ai=Person(9, "AI"),
                    level="easy",
                    options=GameOptions(),
                    parent_id=channel + 100,
                )
                for process, thread in ((service, 1000 + number), (other_process, 2000 + number))
            ),
            return_exceptions=True,
        )
        for results, reason in ((same_place, "in this channel"), (same_pair, "you two already")):
            refused = [result for result in results if isinstance(result, Exception)]
            assert len(refused) == 1 and isinstance(refused[0], Refusal), results
            assert reason in str(refused[0])


async def test_accepting_in_two_processes_starts_one_game(service, other_process):
    """The opponent's Accept arrives twice, in two processes: one game starts; the other
    press hears the challenge was already answered."""
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=30,
        challenger=Person(100, "a"),
        opponent=Person(200, "b"),
        options=GameOptions(),
    )
    results = await asyncio.gather(
        service.challenges.answer(made.id, Caller(200, 30), "accept"),
        other_process.challenges.answer(made.id, Caller(200, 30), "accept"),
        return_exceptions=True,
    )
    started = [result for result in results if not isinstance(result, Exception)]
    refused = [result for result in results if isinstance(result, Exception)]
    assert len(started) == 1 and started[0].game is not None
    assert len(refused) == 1
    assert str(refused[0]) in (  # depending on when the loser read the challenge
        "This challenge was already answered.",
        "This challenge was already accepted.",
    )
    assert not isinstance(refused[0], OutdatedBoardError | TurnPlayed)


async def test_a_rebuild_and_a_game_ending_at_once_both_complete(service, other_process, database):
    """One process rebuilds the ratings while another ends a game: neither waits on the other
    forever (the same lock order), and the ratings then equal a fresh rebuild."""
    first = await start(service, 100, 200, channel=40)
    await service.play.resign(first.id, first.version, Caller(200, 40))
    second = await start(other_process, 300, 100, channel=41)
    rebuilt, ended = await asyncio.gather(
        rebuild_ratings(database),
        other_process.play.resign(second.id, second.version, Caller(100, 41)),
    )
    assert ended.outcome is not None
    assert rebuilt.games in (1, 2)  # the game ended before the rebuild's end, or just after
    before = [
        tuple(r) for r in await database.fetchall("SELECT * FROM member_ratings ORDER BY 1, 2")
    ]
    again = await rebuild_ratings(database)
    assert (again.games, again.written) == (2, 0)
    after = [
        tuple(r) for r in await database.fetchall("SELECT * FROM member_ratings ORDER BY 1, 2")
    ]
    assert after == before
    await assert_rated_as_by_hand(database)
