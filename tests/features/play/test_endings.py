"""Every way a game ends, through the services on both backends: on points (the last turn, a
member's or the AI's), by resignation, by a claim, by a flag (the clocks' sweep, or a press
that came too late), by an admin, and by a tournament round's deadline — in correspondence and
live games, against a member and against the AI.

Each ending is checked the same way: the stored result is the engine's (on points) or the
rule's (who loses), the turns replay to the stored position, no clock runs and no reminder
waits after the end, the game is rated exactly when it should be, and its buttons are
refused from then on. (A live game's last turn once failed on PostgreSQL only: the turn and
the outcome both stopped the clock, and PostgreSQL refuses a column set twice.)"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

import pytest

from bot.base.game import Game
from bot.base.game_options import GameOptions
from bot.base.paces import TimeControl
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.features.play.service import OutdatedBoardError, StepShown, TimeUp
from bot.storage.db import Database
from bot.storage.sweeps import Sweeps
from engine.builder import turn_path
from tests.databases import Clock, Services, services_on
from tests.features.tournaments.test_service import Event, swiss
from tests.history import stored_ratings

GUILD, CHANNEL, ALICE, BOB, AI, ADMIN = 1, 10, 100, 200, 900, 500
LIVE = TimeControl(5, 3)
Ending = Literal["points", "resignation", "claim", "flag", "late press", "admin", "deadline"]
Pace = Literal["correspondence", "live"]
Against = Literal["member", "ai"]

ENDINGS: list[tuple[Ending, Pace, Against]] = [
    *[
        (ending, pace, against)
        for ending in ("points", "resignation", "admin")
        for pace in ("correspondence", "live")
        for against in ("member", "ai")
    ],
    ("claim", "correspondence", "member"),
    ("flag", "live", "member"),
    ("flag", "live", "ai"),
    ("late press", "live", "member"),
    ("late press", "live", "ai"),
    ("deadline", "correspondence", "member"),
    ("deadline", "live", "member"),
]
"""Every ending where it exists: no claim in a live game (its clock ends it) nor against the
AI (it never idles), no flag without a clock, and tournaments pair members only."""


@dataclass
class Table:
    """A game being played through the services, with a clock the test moves."""

    services: Services
    clock: Clock
    game: Game
    rng: random.Random

    @property
    def play(self):
        return self.services.play

    async def board_out(self) -> None:
        """The board of the current turn is posted now: a human mover's clock starts."""
        game = self.game
        left = game.clock_of(game.position.turn)
        running = None if left is None else (self.clock.now, self.clock.now + left)
        await self.play.games.set_board_message(
            game.id, 10_000 + game.version, game.version, running
        )
        self.game = await self.play.games.game(game.id)

    async def turn(self, turn=None, *, think: float = 1.0):
        """The player to move plays ``turn`` (a random one unless said), ``think`` seconds
        after their board was posted; the AI's turn is stored as the opponent's loop would."""
        await self.board_out()
        game = self.game
        turn = turn or self.rng.choice(game.position.legal_turns())
        self.last_mover = game.to_move
        if game.to_move == AI:
            played = await self.play.ai_turn(game, turn)
            assert played is not None
        else:
            path = "".join(turn_path(game.position, turn))
            caller = Caller(game.to_move, game.channel_id, self.clock.now + think)
            played = await self.play.choose(game.id, game.version, path, caller)
            if isinstance(played, StepShown):  # a bonus offered: skip it
                played = await self.play.choose(game.id, game.version, path + "-", caller)
        self.clock.now += think + 0.5
        self.game = played.game
        return played

    async def some_turns(self) -> None:
        """A few random turns, so that the game has a history (and never ends by them)."""
        for _ in range(self.rng.randrange(2, 7)):
            if self.game.position.is_over():
                break
            await self.turn()

    ai_had_to_end_it = False
    last_mover: int | None = None

    def human_ends_it(self):
        """A random turn, steered so that a human's turn ends the game (the AI avoids ending
        it while it can, a human ends it when they can): a human's last turn stops their clock
        and ends the game in one write."""
        position = self.game.position
        turns = position.legal_turns()
        ending = [turn for turn in turns if position.apply_unchecked(turn).is_over()]
        if self.game.to_move == AI:
            going_on = [turn for turn in turns if turn not in ending]
            self.ai_had_to_end_it = not going_on
            return self.rng.choice(going_on or turns)
        return self.rng.choice(ending or turns)

    @property
    def human(self) -> int:
        """A human player of the game (Alice when she plays)."""
        return ALICE if ALICE in (self.game.white_id, self.game.black_id) else self.game.white_id


async def start(
    database: Database, clock: Clock, rng: random.Random, pace: Pace, against: Against
) -> Table:
    services = services_on(database, clock, seed=rng.randrange(1000))
    options = GameOptions(
        colour=rng.choice(("white", "black")),
        first=rng.choice(("me", "opponent")),
        clock=LIVE if pace == "live" else None,
    )
    if against == "ai":
        game = await services.challenges.new_games.start_ai_game(
            guild_id=GUILD,
            channel_id=CHANNEL,
            human=Person(ALICE, "Alice"),
            ai=Person(AI, "Tholos AI"),
            level="easy",
            options=options,
        )
    else:
        made = await services.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB, "Bob"),
            options=options,
        )
        game = (await services.challenges.answer(made.id, Caller(BOB, CHANNEL), "accept")).game
    assert game is not None and game.time_control == (None if pace == "correspondence" else "5+3")
    return Table(services, clock, game, rng)


async def in_a_tournament(database: Database, clock: Clock, rng: random.Random, pace: Pace):
    """A Swiss of two players whose one game of round 1 is being played."""
    event = Event(database, clock, seed=rng.randrange(1000))
    tournament = await event.create(
        swiss(rounds=1, pace=None if pace == "correspondence" else str(LIVE)), players=2
    )
    tournament = await event.next_round(tournament)
    (board,) = await event.store.pairings.boards(tournament.id, 1)
    game = await event.service.games.game(board.game_id)
    services = Services(services_on(database, clock).challenges, event.play)
    return event, tournament, Table(services, clock, game, rng)


@pytest.mark.parametrize(("ending", "pace", "against"), ENDINGS)
async def test_every_ending_is_stored_right(
    database, clock, seed, ending: Ending, pace: Pace, against: Against
):
    rng = random.Random(seed)
    if ending == "deadline":
        event, tournament, table = await in_a_tournament(database, clock, rng, pace)
    else:
        table = await start(database, clock, rng, pace, against)
    await table.some_turns()
    game = table.game
    loser = game.to_move  # who loses when the game does not end on points
    expected: tuple[str | None, str | None]

    if ending == "points":
        while table.game.is_active:
            await table.turn(table.human_ends_it())
        assert table.last_mover != AI or table.ai_had_to_end_it
        final = table.game.position.outcome()
        expected = (final.result, final.reason)
        assert table.game.outcome.points == final.points
    elif ending == "resignation":
        loser = table.human
        await table.play.resign(game.id, game.version, Caller(loser, game.channel_id))
        expected = ("black" if loser == game.white_id else "white", "resignation")
    elif ending == "claim":
        clock.now += 86_400
        claimant = game.black_id if loser == game.white_id else game.white_id
        await table.play.claim(game.id, Caller(claimant, game.channel_id))
        expected = ("black" if loser == game.white_id else "white", "timeout")
    elif ending in ("flag", "late press"):
        if game.to_move == AI:  # only a human's clock runs out
            await table.turn()
            game, loser = table.game, table.game.to_move
        await table.board_out()
        game = table.game
        if ending == "flag":
            clock.now = game.flag_at + 0.5
            (due,) = await Sweeps(database).flags_due(clock.now)
            await table.play.flag(due)
            with pytest.raises(OutdatedBoardError):  # a second sweep (or process) finds it over
                await table.play.flag(due)
        else:
            with pytest.raises(TimeUp):
                await table.turn(think=game.clock_of(game.position.turn) + 0.5)
        expected = ("black" if loser == game.white_id else "white", "timeout")
    elif ending == "admin":
        await table.play.abort(game.id, GUILD, ADMIN)
        expected = (None, None)
    else:  # a tournament round's deadline: the player to move loses, as on a claim
        clock.now = tournament.round_deadline + 1
        boards = await event.store.pairings.boards(tournament.id, 1)
        assert len(await event.service.rounds.decide_at_deadline(tournament, boards)) == 1
        expected = ("black" if loser == game.white_id else "white", "timeout")

    stored = await table.play.games.game(game.id)
    print(f"{ending}, {pace}, against {against}: {stored.outcome}")
    assert stored.status == ("aborted" if ending == "admin" else "finished")
    outcome = stored.outcome
    assert ((outcome.result, outcome.reason) if outcome else (None, None)) == expected
    assert (stored.clock_started_at, stored.flag_at, stored.reminder_due_at) == (None, None, None)
    if pace == "live" and expected[1] == "timeout":
        assert stored.clock_of(0 if loser == stored.white_id else 1) == 0
    replay = stored.start_position
    for record in await table.play.games.turns(game.id):
        replay = replay.apply(record.turn)
        assert str(replay) == record.position_after
    assert replay == stored.position
    rated = against == "member" and ending != "admin"
    assert stored.rated == (against == "member")
    assert len(await stored_ratings(database)) == (2 if rated else 0)
    for player in (stored.white_id, stored.black_id):
        if player != AI:
            with pytest.raises(Refusal, match="over"):
                await table.play.resign(game.id, stored.version, Caller(player, game.channel_id))


@pytest.mark.parametrize("against", ["member", "ai"])
async def test_no_claim_on_a_clock(database, clock, seed, against: Against):
    table = await start(database, clock, random.Random(seed), "live", against)
    clock.now += 10**6
    with pytest.raises(Refusal, match="played on a clock"):
        await table.play.claim(table.game.id, Caller(ALICE, CHANNEL))
    assert (await table.play.games.game(table.game.id)).is_active
