"""Tournaments without Discord: the standings computed by hand for small fixed events, and the
service's rounds on a real database (both backends) — sign-up, refusals, Swiss and round robin
played to the end, the idle rule at the deadline, withdrawals, and steps that happen once."""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest

from bot.base.paces import TimeControl
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.features.play.service import PlayService
from bot.features.tournaments.service import (
    MAX_ROUNDS,
    Setup,
    TournamentService,
    check_organiser,
    expected_length,
    live_round_seconds,
    standings_of,
)
from bot.features.tournaments.standings import Meeting, Standing, standings
from bot.features.tournaments.store import Tournament, TournamentStore
from bot.storage.db import Database
from bot.storage.games.store import GameStore
from tests.databases import Clock
from tests.e2e.table import path_of

A, B, C, D = 1, 2, 3, 4
NAMES = {player: f"P{player}" for player in range(1, 17)}
GUILD, CHANNEL = 10, 20


def test_swiss_standings_by_hand():
    """Round 1: A beats D, B draws C; round 2: C beats A, B beats D."""
    played = [
        Meeting(1, A, D, "white"),
        Meeting(1, B, C, "draw"),
        Meeting(2, C, A, "white"),
        Meeting(2, B, D, "white"),
    ]
    seeds = [(A, 1900.0), (B, 1800.0), (C, 1700.0), (D, 1600.0)]
    # points A 1, B 1½, C 1½, D 0; Buchholz A 0+1½, B 1½+0, C 1½+1, D 1+1½;
    # Sonneborn-Berger A 1×0, B ½×1½ + 1×0, C ½×1½ + 1×1, D 0
    assert standings("swiss", seeds, played) == [
        Standing(1, C, 1.5, (2.5, 1.75), 2),
        Standing(2, B, 1.5, (1.5, 0.75), 2),
        Standing(3, A, 1.0, (1.5, 0.0), 2),
        Standing(4, D, 0.0, (2.5, 0.0), 2),
    ]


def test_a_bye_is_a_point_without_a_game_and_equal_players_share_a_rank():
    played = [Meeting(1, A, B, "white"), Meeting(1, C, None, played=False)]
    seeds = [(A, 1500.0), (B, 1500.0), (C, 1600.0)]
    assert standings("swiss", seeds, played) == [
        Standing(1, C, 1.0, (0.0, 0.0), 0),  # listed first by seed: the higher rating
        Standing(1, A, 1.0, (0.0, 0.0), 1),
        Standing(3, B, 0.0, (1.0, 0.0), 1),
    ]


def test_round_robin_standings_by_hand():
    """A beats B, C beats A, A draws D, B beats C, B beats D, C beats D."""
    played = [
        Meeting(1, A, B, "white"),
        Meeting(1, C, D, "white"),
        Meeting(2, C, A, "white"),
        Meeting(2, B, D, "white"),
        Meeting(3, A, D, "draw"),
        Meeting(3, B, C, "white"),
    ]
    seeds = [(A, 1500.0), (B, 1500.0), (C, 1500.0), (D, 1500.0)]
    # points A 1½, B 2, C 2, D ½; Sonneborn-Berger B 2+½, C 1½+½, A 2+¼, D ¾;
    # head-to-head between B and C (tied on 2): B beat C
    assert standings("round_robin", seeds, played) == [
        Standing(1, B, 2.0, (2.5, 1.0), 3),
        Standing(2, C, 2.0, (2.0, 0.0), 3),
        Standing(3, A, 1.5, (2.25, 0.0), 3),
        Standing(4, D, 0.5, (0.75, 0.0), 3),
    ]


def test_undecided_and_aborted_games_count_nothing():
    played = [Meeting(1, A, B, None), Meeting(1, C, D, "black")]
    lines = standings("swiss", [(A, 1.0), (B, 1.0), (C, 1.0), (D, 1.0)], played)
    assert {line.player: (line.points, line.played) for line in lines} == {
        A: (0.0, 0),
        B: (0.0, 0),
        C: (0.0, 1),
        D: (1.0, 1),
    }


# -- the service on a real database -------------------------------------------------------------


def swiss(rounds: int = 3, **changes) -> Setup:
    fields = {
        "name": "Spring Cup",
        "format": "swiss",
        "rounds": rounds,
        "pace": None,
        "round_hours": 24.0,
        "mode": "basic",
        "ornaments": 0,
        "starts_at": 2_000_000.0,
        "max_players": 16,
        "rated": True,
    } | changes
    return Setup(**fields)


class Event:
    """A tournament's service over a real database, with a clock the test moves."""

    def __init__(self, database: Database, clock: Clock, seed: int = 1) -> None:
        games = GameStore(database)
        self.play = PlayService(games, inactivity_timeout=86400, clock=clock)
        self.store = TournamentStore(database)
        self.service = TournamentService(
            self.store,
            games,
            self.play,
            clock=clock,
            rng=random.Random(seed),
        )
        self.clock = clock
        self.threads = itertools.count(1000)

    async def create(self, setup: Setup, players: int) -> Tournament:
        tournament = await self.service.create(
            setup, guild_id=GUILD, channel_id=CHANNEL, organiser=A, language="en"
        )
        for player in range(1, players + 1):
            await self.service.join(tournament, Person(player, f"P{player}"))
        started = await self.service.start(tournament)
        assert started is not None and started.status == "running"
        return started

    async def next_round(self, tournament: Tournament) -> Tournament | None:
        """Pair the next round and start its games (``None``: no next round)."""
        plan = await self.service.rounds.plan(tournament)
        if plan is None:
            return None
        paired = await self.store.pairings.pair(
            tournament, plan.pairings, self.service.deadline(tournament), plan.playing
        )
        assert paired is not None
        for board in await self.store.pairings.boards(paired.id, paired.round):
            if board.black_id is not None and board.result is None:
                game = await self.service.rounds.start_game(
                    paired,
                    board,
                    NAMES,
                    channel_id=next(self.threads),
                    parent_id=CHANNEL,
                    parent_message_id=None,
                )
                assert game is not None and game.rated
        return paired

    async def finish_round(self, tournament: Tournament, rng: random.Random) -> None:
        """Every game of the round lost by a random one of its players."""
        for board in await self.store.pairings.boards(tournament.id, tournament.round):
            if board.game_status == "active":
                game = await self.service.games.game(board.game_id)
                loser = rng.choice((game.white_id, game.black_id))
                await self.play.flag(game, loser, "resignation")


async def test_the_sign_up_refuses_twice_full_started_and_bots(database, clock):
    event = Event(database, clock)
    service = event.service
    tournament = await service.create(
        swiss(max_players=2), guild_id=GUILD, channel_id=CHANNEL, organiser=A, language="en"
    )
    assert await service.join(tournament, Person(A, "Ann")) == 1
    with pytest.raises(Refusal, match="already in"):
        await service.join(tournament, Person(A, "Ann"))
    with pytest.raises(Refusal, match="Bots can't"):
        await service.join(tournament, Person(99, "Robot", bot=True))
    assert await service.join(tournament, Person(B, "Ben")) == 2
    with pytest.raises(Refusal, match=r"full \(2 players\)"):
        await service.join(tournament, Person(C, "Cy"))
    await service.leave(tournament, B)
    with pytest.raises(Refusal, match="aren't in"):
        await service.leave(tournament, B)
    assert await service.join(tournament, Person(C, "Cy")) == 2
    started = await service.start(tournament)
    assert started is not None and started.rounds == 1  # a Swiss of 2: one round
    assert await service.start(tournament) is None  # started once
    with pytest.raises(Refusal, match="sign-up of this tournament is over"):
        await service.join(started, Person(D, "Di"))
    with pytest.raises(Refusal, match="has started"):
        await service.leave(started, A)
    assert [entry.user_id for entry in await event.store.entrants.entries(started.id)] == [A, C]


async def test_a_round_robin_too_large_and_a_stranger_s_control_are_refused(database, clock):
    service = Event(database, clock).service
    home = {"guild_id": GUILD, "channel_id": CHANNEL, "organiser": A, "language": "en"}
    with pytest.raises(Refusal, match=f"takes 17 rounds; .* at most {MAX_ROUNDS}"):
        await service.create(swiss(format="round_robin", rounds=1, max_players=17), **home)
    with pytest.raises(Refusal, match="Lower the player limit to 16 \\(or 8 playing twice\\)"):
        await service.create(swiss(format="round_robin", rounds=2, max_players=9), **home)
    tournament = await service.create(
        swiss(), guild_id=GUILD, channel_id=CHANNEL, organiser=A, language="en"
    )
    with pytest.raises(Refusal, match="Only the organiser"):
        check_organiser(tournament, Caller(B, CHANNEL), manages_server=False)
    check_organiser(tournament, Caller(B, CHANNEL), manages_server=True)
    check_organiser(tournament, Caller(A, CHANNEL), manages_server=False)
    too_few = await service.start(tournament)
    assert too_few is not None and too_few.status == "cancelled"


async def test_a_swiss_of_seven_is_played_to_the_end(database, clock, seed):
    rng = random.Random(seed)
    event = Event(database, clock, seed)
    tournament = await event.create(swiss(rounds=5), players=7)
    met: set[frozenset[int]] = set()
    byes: list[int] = []
    while (paired := await event.next_round(tournament)) is not None:
        tournament = paired
        boards = await event.store.pairings.boards(tournament.id, tournament.round)
        seated = [p for board in boards for p in (board.white_id, board.black_id) if p]
        assert sorted(seated) == list(range(1, 8)), "everyone plays once a round"
        for board in boards:
            if board.black_id is None:
                byes.append(board.white_id)
            else:
                pair = frozenset((board.white_id, board.black_id))
                assert pair not in met, "no one meets the same opponent twice"
                met.add(pair)
        await event.finish_round(tournament, rng)
        assert all(
            board.settled
            for board in await event.store.pairings.boards(tournament.id, tournament.round)
        )
    assert tournament.round == 5 and len(byes) == 5 and len(set(byes)) == 5
    entries, lines = await standings_of(event.store, tournament)
    assert sum(line.points for line in lines) == 5 * 3 + 5  # three games and a bye a round
    assert [line.points for line in lines] == sorted((line.points for line in lines), reverse=True)
    assert [line.rank for line in lines] == sorted(line.rank for line in lines)
    assert {line.player for line in lines} == set(range(1, 8)) and len(entries) == 7


async def test_a_double_round_robin_of_four_with_a_withdrawal(database, clock, seed):
    rng = random.Random(seed)
    event = Event(database, clock, seed)
    setup = swiss(format="round_robin", rounds=2, max_players=4)
    tournament = await event.create(setup, players=4)
    assert tournament.rounds == 6
    met: dict[frozenset[int], int] = {}
    while (paired := await event.next_round(tournament)) is not None:
        tournament = paired
        if tournament.round == 4:  # D withdraws mid-round: their game is lost, then forfeits
            done, ended = await event.service.withdraw(tournament, D, "withdrew")
            assert done and len(ended) == 1 and ended[0].outcome.reason == "resignation"
        await event.finish_round(tournament, rng)
        for board in await event.store.pairings.boards(tournament.id, tournament.round):
            pair = frozenset((board.white_id, board.black_id))
            met[pair] = met.get(pair, 0) + 1
            if tournament.round > 4 and D in pair:
                assert board.game_id is None and board.result is not None, "a forfeit"
                assert (board.result == "white") == (board.black_id == D)
    assert tournament.round == 6 and set(met.values()) == {2} and len(met) == 6
    entries, lines = await standings_of(event.store, tournament)
    assert sum(line.points for line in lines) == 12
    assert {e.user_id: e.withdrawn_why for e in entries}[D] == "withdrew"
    played = {line.player: line.played for line in lines}
    # D played rounds 1-4; of the others, the one who met D in round 4 played 6 games, the
    # two others 5 and a forfeit win
    assert played[D] == 4 and sorted(played[p] for p in (A, B, C)) == [5, 5, 6]


async def test_the_deadline_decides_by_the_idle_rule_and_withdraws_the_absent(database, clock):
    event = Event(database, clock)
    tournament = await event.create(swiss(rounds=2), players=4)
    tournament = await event.next_round(tournament)
    boards = await event.store.pairings.boards(tournament.id, 1)
    first = await event.service.games.game(boards[0].game_id)
    # the first game's White plays a turn; everyone else is idle until the deadline
    path = path_of(first.position, first.position.legal_turns()[0])
    await event.play.choose(first.id, first.version, path, Caller(first.white_id, first.channel_id))
    clock.now = tournament.round_deadline + 1
    ended = await event.service.rounds.decide_at_deadline(tournament, boards)
    assert len(ended) == 2 and all(game.outcome.reason == "timeout" for game in ended)
    decided = {game.id: game for game in ended}
    assert decided[first.id].outcome.result == "white", "Black, to move, loses"
    absent = await event.service.rounds.withdraw_absent(tournament, boards)
    other = decided[boards[1].game_id]
    assert sorted(absent) == sorted([first.black_id, other.white_id]), "no turn at all"
    plan = await event.service.rounds.plan(tournament)
    assert plan is not None and len(plan.pairings) == 1, "two players left: one game"


async def test_a_round_is_paired_once_and_a_game_started_once(database, clock):
    event, other = Event(database, clock), Event(database, clock, seed=2)
    tournament = await event.create(swiss(rounds=2), players=4)
    plans = [
        await event.service.rounds.plan(tournament),
        await other.service.rounds.plan(tournament),
    ]
    paired = await asyncio.gather(
        *(
            service.store.pairings.pair(tournament, plan.pairings, 3e6, plan.playing)
            for service, plan in zip((event, other), plans, strict=True)
        )
    )
    assert sum(result is not None for result in paired) == 1
    winner = next(result for result in paired if result is not None)
    board = (await event.store.pairings.boards(winner.id, 1))[0]
    started = await asyncio.gather(
        *(
            e.service.rounds.start_game(
                winner, board, NAMES, channel_id=channel, parent_id=CHANNEL, parent_message_id=None
            )
            for e, channel in ((event, 501), (other, 502))
        )
    )
    assert sum(game is not None for game in started) == 1
    assert len(await event.store.pairings.boards(winner.id)) == 2
    assert (
        await event.store.pairings.pair(tournament, plans[0].pairings, 3e6, plans[0].playing)
        is None
    )


async def test_ending_makes_the_round_the_last_and_its_deadline_now(database, clock):
    event = Event(database, clock)
    tournament = await event.create(swiss(rounds=3), players=4)
    before_first = await event.service.end(tournament, by=A)
    assert before_first.status == "cancelled", "nothing paired yet: cancelled"
    tournament = await event.create(swiss(rounds=3), players=4)
    tournament = await event.next_round(tournament)
    plan = await event.service.rounds.plan(tournament)  # (the round is not over: a stale plan)
    ended = await event.service.end(tournament, by=A)
    assert (ended.rounds, ended.round, ended.status, ended.ended_by) == (1, 1, "running", A)
    assert ended.round_deadline == clock.now
    assert await event.store.pairings.pair(ended, plan.pairings, 3e6, plan.playing) is None, (
        "no round 2"
    )
    boards = await event.store.pairings.boards(ended.id, 1)
    games = await event.service.rounds.decide_at_deadline(ended, boards)
    assert len(games) == 2 and all(game.outcome.reason == "timeout" for game in games)
    assert await event.service.rounds.withdraw_absent(ended, boards) == [], (
        "the end was the organiser's"
    )
    assert await event.service.rounds.plan(ended) is None, "no round after the last"


async def test_a_withdrawal_after_the_plan_makes_the_pairing_plan_again(database, clock):
    event = Event(database, clock)
    tournament = await event.create(swiss(rounds=3), players=5)
    plan = await event.service.rounds.plan(tournament)
    done, _ = await event.service.withdraw(tournament, C, "withdrew")
    assert done
    assert await event.store.pairings.pair(tournament, plan.pairings, 3e6, plan.playing) is None
    again = await event.service.rounds.plan(tournament)
    assert C not in again.playing and all(C not in pairing[:2] for pairing in again.pairings)
    assert len(again.pairings) == 2 and not any(p[1] is None for p in again.pairings), "no bye"
    assert (
        await event.store.pairings.pair(tournament, again.pairings, 3e6, again.playing) is not None
    )


async def test_a_pairing_not_opened_by_the_deadline_is_void(database, clock):
    event = Event(database, clock)
    tournament = await event.create(swiss(rounds=2), players=4)
    plan = await event.service.rounds.plan(tournament)
    paired = await event.store.pairings.pair(
        tournament, plan.pairings, clock.now + 10, plan.playing
    )
    boards = await event.store.pairings.boards(paired.id, 1)
    assert all(board.waiting for board in boards), "Discord refused every thread"
    clock.now += 11
    assert await event.service.rounds.decide_at_deadline(paired, boards) == []
    boards = await event.store.pairings.boards(paired.id, 1)
    assert all(board.settled and board.result == "void" for board in boards)
    late = await event.service.rounds.start_game(
        paired, boards[0], NAMES, channel_id=900, parent_id=CHANNEL, parent_message_id=None
    )
    assert late is None, "a void pairing's game never starts"
    _, lines = await standings_of(event.store, paired)
    assert {line.points for line in lines} == {0.0} and {line.played for line in lines} == {0}


async def test_an_odd_round_robin_rests_each_player_once(database, clock):
    """A round robin's rounds are counted from the entrants in the start's own transaction
    (5 players: 5 rounds, one resting each), every newcomer seeded at 1500."""
    event = Event(database, clock)
    setup = swiss(format="round_robin", rounds=1, max_players=5)
    tournament = await event.service.create(
        setup, guild_id=GUILD, channel_id=CHANNEL, organiser=A, language="en"
    )
    for player in (A, B, C, D, 5):
        await event.service.join(tournament, Person(player, NAMES[player]))
    started = await event.service.start(tournament)
    assert started.rounds == 5 and len(await event.store.entrants.entries(started.id)) == 5
    assert {entry.rating for entry in await event.store.entrants.entries(started.id)} == {1500.0}
    resting = []
    while (paired := await event.next_round(started)) is not None:
        started = paired
        boards = await event.store.pairings.boards(started.id, started.round)
        seated = {p for board in boards for p in (board.white_id, board.black_id)}
        assert len(boards) == 2 and len(seated) == 4
        resting += sorted(set(range(1, 6)) - seated)
        await event.finish_round(started, random.Random(started.round))
    assert sorted(resting) == [1, 2, 3, 4, 5], "each rests once"


def test_a_live_round_lasts_both_clocks_of_a_long_game_and_a_margin():
    clock = TimeControl(5, 5)
    assert live_round_seconds(clock) == 2 * (300 + 60 * 5) + 15 * 60
    tournament = Tournament(
        1,
        GUILD,
        CHANNEL,
        None,
        A,
        "Blitz",
        "swiss",
        4,
        "5+5",
        72.0,
        "basic",
        0,
        "en",
        0.0,
        8,
        True,
        "running",
        1,
        None,
        0,
        0.0,
        None,
        None,
    )
    assert expected_length(tournament) == 4 * live_round_seconds(clock)


async def test_what_a_tournament_said_is_recorded_once_and_a_stale_announcement_is_found(
    database, clock
):
    """Each change its announcement shows bumps its version; the announcement is stale until
    shown; a round's pairings and standings are recorded as said once, even while paused."""
    event = Event(database, clock)
    tournament = await event.service.create(
        swiss(rounds=2), guild_id=GUILD, channel_id=CHANNEL, organiser=A, language="en"
    )
    await event.store.set_message(tournament.id, 555)
    assert [t.id for t in await event.store.stale_announcements()] == []
    await event.service.join(tournament, Person(A, "P1"))
    joined = await event.store.tournament(tournament.id)
    assert [t.id for t in await event.store.stale_announcements()] == [tournament.id]
    await event.store.shown(joined)
    assert await event.store.stale_announcements() == []
    await event.service.join(tournament, Person(B, "P2"))
    started = await event.service.start(await event.store.tournament(tournament.id))
    paired = await event.next_round(started)
    assert (paired.round, paired.announced_pairings, paired.announced_round) == (1, 0, 0)
    paused = await event.store.change(paired, status="paused")
    assert paused is not None
    assert await event.store.said(paired, "pairings")
    assert not await event.store.said(paired, "pairings"), "said once"
    assert await event.store.said(paired, "standings")
    now = await event.store.tournament(tournament.id)
    assert (now.status, now.announced_pairings, now.announced_round) == ("paused", 1, 1)
    assert now.version > joined.version
    assert [t.id for t in await event.store.stale_announcements()] == [tournament.id]
