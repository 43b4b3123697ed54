"""The bot's game flow over a real SQLite database (no Discord)."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.features.challenges.service import ExpiredChallengeError
from bot.features.play.service import OutdatedBoardError, StepShown, TurnPlayed
from bot.features.ratings.store import RatingStore
from bot.storage.listings import GameListings
from engine import Position
from engine.builder import turn_path
from tests.databases import Services
from tests.history import stored_ratings

GUILD, CHANNEL, ALICE, BOB, CAROL = 1, 10, 100, 200, 300
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}


def by(user_id: int, channel_id: int = CHANNEL) -> Caller:
    """A user acting in a channel (CHANNEL unless said)."""
    return Caller(user_id, channel_id)


async def challenge(
    service: Services,
    challenger: int = ALICE,
    opponent: int = BOB,
    channel: int = CHANNEL,
    *,
    opponent_is_bot: bool = False,
    **options,
):
    """``challenger`` (Alice) challenges ``opponent`` (Bob) in ``channel`` (CHANNEL); Alice
    plays White and moves first unless ``options`` say otherwise."""
    return await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(challenger, NAMES[challenger]),
        opponent=Person(opponent, NAMES[opponent], opponent_is_bot),
        options=GameOptions(**({"colour": "white", "first": "me"} | options)),
    )


async def started(service: Services, **options):
    """A game between Alice (White, first) and Bob."""
    made = await challenge(service, **options)
    return (await service.challenges.answer(made.id, by(BOB), "accept")).game


async def play(service: Services, game, turn: str):
    """Play ``turn`` in ``game`` through the button paths; return the TurnPlayed."""
    parsed = next(t for t in game.position.legal_turns() if str(t) == turn)
    path = "".join(turn_path(game.position, parsed))
    result = await service.play.choose(game.id, game.version, path, by(game.to_move))
    if isinstance(result, StepShown):  # a placement that offers a bonus: skip it
        result = await service.play.choose(game.id, game.version, path + "-", by(game.to_move))
    assert isinstance(result, TurnPlayed)
    return result


async def test_challenge_refusals(service):
    """Yourself, bots, ornaments in basic mode and busy channels are refused politely."""
    with pytest.raises(Refusal, match="yourself"):
        await challenge(service, ALICE, ALICE)
    with pytest.raises(Refusal, match=r"That bot can.t play"):
        await challenge(service, opponent_is_bot=True)
    with pytest.raises(Refusal, match="advanced"):
        await challenge(service, mode="basic", ornaments=2)
    assert await service.challenges.challenges.pending(CHANNEL, ALICE) is None
    await challenge(service)
    with pytest.raises(Refusal, match="already waiting"):
        await challenge(service)


async def test_only_the_opponent_answers_and_only_the_challenger_withdraws(service):
    """Wrong people get a refusal that names who may answer; the challenge stays pending."""
    made = await challenge(service)
    with pytest.raises(Refusal, match="for <@200>"):
        await service.challenges.answer(made.id, by(CAROL), "accept")
    with pytest.raises(Refusal, match="Withdraw"):
        await service.challenges.answer(made.id, by(ALICE), "accept")
    with pytest.raises(Refusal, match="Only the challenger"):
        await service.challenges.answer(made.id, by(BOB), "withdraw")
    assert (await service.challenges.challenges.challenge(made.id)).status == "pending"
    declined = await service.challenges.answer(made.id, by(BOB), "decline")
    assert declined.challenge.status == "declined" and declined.game is None
    with pytest.raises(Refusal, match="already declined"):
        await service.challenges.answer(made.id, by(BOB), "accept")


async def test_expired_challenge_cannot_be_accepted(service, clock):
    """After the timeout the challenge expires, by the loop or on a late press."""
    made = await challenge(service)
    clock.now += 601
    with pytest.raises(ExpiredChallengeError, match="expired"):
        await service.challenges.answer(made.id, by(BOB), "accept")
    assert (await service.challenges.challenges.challenge(made.id)).status == "expired"
    second = await challenge(service)
    clock.now += 601
    assert [c.id for c in await service.challenges.expire_due()] == [second.id]
    assert await service.challenges.expire_due() == []


async def test_accept_starts_a_game_with_the_chosen_colours(service):
    """Accepting stores the game: colours and the first player as challenged."""
    game = await started(service, colour="black", first="opponent", mode="advanced", ornaments=3)
    assert (game.white_id, game.black_id) == (BOB, ALICE)
    assert (game.white_name, game.black_name) == ("Bob", "Alice")
    assert game.to_move == BOB and game.position.turn == 0
    assert sum(1 for o in game.position.ornaments if o) == 3
    with pytest.raises(Refusal, match="you two already have a game"):
        await challenge(service)  # the same two, in the same channel
    with pytest.raises(Refusal, match="already being played in this channel"):
        await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=Person(CAROL, "Carol"),
            opponent=Person(ALICE, "Alice"),
            options=GameOptions(),
            in_channel=True,
        )
    assert await challenge(service, CAROL, ALICE)  # its game will get a thread of its own


async def test_steps_and_turns(service):
    """Intermediate choices change nothing stored; the last choice stores the turn."""
    game = await started(service)
    step = await service.play.choose(game.id, game.version, "P", by(ALICE))
    assert isinstance(step, StepShown) and step.builder.path == ("P",)
    assert (await service.play.games.game(game.id)).version == game.version
    played = await service.play.choose(game.id, game.version, "PwDg", by(ALICE))
    assert isinstance(played, TurnPlayed) and str(played.turn) == "w@D/+g"
    stored = await service.play.games.game(game.id)
    assert stored.version == game.version + 1 and stored.plies == 1
    assert str(stored.position) == "-/-/-/w/-/-/- wg bb b -"
    assert [r.turn for r in await service.play.games.turns(game.id)] == ["w@D/+g"]


async def test_presses_by_the_wrong_person_or_on_an_old_board_change_nothing(service):
    """Not your game, not your turn, outdated version, unavailable choice: all refused."""
    game = await started(service)
    with pytest.raises(Refusal, match="between <@100> and <@200>"):
        await service.play.choose(game.id, game.version, "T", by(CAROL))
    with pytest.raises(Refusal, match="not your turn"):
        await service.play.choose(game.id, game.version, "T", by(BOB))
    with pytest.raises(Refusal, match="isn't available"):
        await service.play.choose(game.id, game.version, "PbA", by(ALICE))
    await play(service, game, "+w1")
    with pytest.raises(OutdatedBoardError) as outdated:
        await service.play.choose(game.id, game.version, "Tw1", by(ALICE))
    assert outdated.value.game.version == game.version + 1
    assert (await service.play.games.game(game.id)).plies == 1


@pytest.mark.parametrize("venue", ["server", "dm"])
async def test_a_press_on_a_finished_game(service, venue):
    """In a server, a press on a finished game's board is refused: the game is over. Where
    the bot is not (a DM between members), its last board may never have been shown there (a
    clock ran out, and only a press can answer): the press is outdated, carrying the game, so
    that it shows the final board."""
    made = await service.challenges.challenge(
        guild_id=GUILD if venue == "server" else 0,
        channel_id=CHANNEL,
        challenger=Person(ALICE, NAMES[ALICE]),
        opponent=Person(BOB, NAMES[BOB]),
        options=GameOptions(colour="white", first="me"),
        venue=venue,
    )
    game = (await service.challenges.answer(made.id, by(BOB), "accept")).game
    assert game.venue == venue and game.answers_only == (venue == "dm")
    ended = await service.play.resign(game.id, game.version, by(BOB))
    if venue == "server":
        with pytest.raises(Refusal, match="This game is over") as refused:
            await service.play.choose(game.id, ended.version, "T", by(ALICE))
        assert not isinstance(refused.value, OutdatedBoardError)
        return
    with pytest.raises(OutdatedBoardError) as outdated:
        await service.play.choose(game.id, ended.version, "T", by(ALICE))
    assert outdated.value.game.status == "finished" and outdated.value.game.needs_a_board


async def test_simultaneous_presses_make_one_move(service):
    """Two presses at once on the same board: one turn is stored, the other is told it's late."""
    game = await started(service)
    results = await asyncio.gather(
        service.play.choose(game.id, game.version, "Tw1", by(ALICE)),
        service.play.choose(game.id, game.version, "Tb1", by(ALICE)),
        return_exceptions=True,
    )
    assert sum(isinstance(r, TurnPlayed) for r in results) == 1
    assert sum(isinstance(r, OutdatedBoardError) for r in results) == 1
    assert len(await service.play.games.turns(game.id)) == 1


async def test_a_full_game_stores_every_turn_and_the_result(service, seed):
    """A complete random game through the service: the stored result matches the engine."""
    game = await started(service, mode="advanced", ornaments=5)
    rng = random.Random(seed)
    while game.is_active:
        turn = rng.choice(game.position.legal_turns())
        game = (await play(service, game, str(turn))).game
    assert game.outcome is not None and game.outcome.reason in ("points", "columns", "tie")
    replay = game.start_position
    for record in await service.play.games.turns(game.id):
        replay = replay.apply(record.turn)
        assert str(replay) == record.position_after
    assert replay == game.position and replay.is_over()
    with pytest.raises(Refusal, match="over"):
        await service.play.choose(game.id, game.version, "T", by(game.to_move))


async def test_resign_and_rematch(service):
    """Resigning gives the opponent the win; a rematch swaps colours."""
    game = await started(service)
    with pytest.raises(Refusal, match="between"):
        await service.play.resign(game.id, game.version, by(CAROL))
    finished = await service.play.resign(game.id, game.version, by(BOB))
    assert finished.outcome.result == "white" and finished.outcome.reason == "resignation"
    with pytest.raises(Refusal, match="over"):
        await service.play.resign(game.id, game.version, by(ALICE))
    rematch = await service.challenges.rematch(game.id, by(BOB))
    assert (rematch.challenger_id, rematch.opponent_id, rematch.colour) == (BOB, ALICE, "white")
    assert rematch.first == "me"  # White moved first before, and Bob is White now
    with pytest.raises(Refusal, match="Only the players"):
        await service.challenges.rematch(game.id, by(CAROL))


async def test_an_admin_ends_a_game_without_a_result(service, database):
    """An aborted game records who ended it, has no outcome, frees the pair for a new
    challenge, leaves the ratings and histories alone, and refuses its buttons."""
    game = await started(service)
    moved = await play(service, game, next(str(t) for t in game.position.legal_turns()))
    with pytest.raises(Refusal, match="this server"):
        await service.play.abort(game.id, GUILD + 1, CAROL)
    ended = await service.play.abort(game.id, GUILD, CAROL)
    assert (ended.status, ended.ended_by, ended.outcome) == ("aborted", CAROL, None)
    assert ended.version == moved.game.version + 1 and ended.finished_at is not None
    assert (await service.play.games.game(game.id)) == ended
    with pytest.raises(Refusal, match="any more"):
        await service.play.abort(game.id, GUILD, CAROL)
    with pytest.raises(Refusal, match="over"):
        await service.play.resign(game.id, ended.version, by(BOB))
    assert await RatingStore(database).history(GUILD, ALICE) == []
    assert await stored_ratings(database) == {}
    await started(service)  # the pair may play again


async def test_claim_only_after_the_inactivity_timeout(service, clock):
    """The opponent of an idle player may claim the win once the timeout has passed."""
    game = await started(service)
    with pytest.raises(Refusal, match="your turn"):
        await service.play.claim(game.id, by(ALICE))
    with pytest.raises(Refusal, match="still has time"):
        await service.play.claim(game.id, by(BOB))
    clock.now += 86400
    finished = await service.play.claim(game.id, by(BOB))
    assert finished.outcome.result == "black" and finished.outcome.reason == "timeout"


async def test_outdated_resign_confirmation_is_refused(service):
    """A resign confirmation from before a move does nothing."""
    game = await started(service)
    await play(service, game, "+w1")
    with pytest.raises(OutdatedBoardError):
        await service.play.resign(game.id, game.version, by(ALICE))


def test_position_of_a_new_game_is_the_start():
    """Sanity: the game's start position is what the engine sets up."""
    assert str(Position.parse("-/-/-/-/-/-/- ww bb w -")) == "-/-/-/-/-/-/- ww bb w -"


async def test_controls_act_only_in_their_own_channel(service):
    """A game's or challenge's ids replayed from another channel change nothing."""
    game = await started(service)
    elsewhere = by(ALICE, CHANNEL + 1)
    with pytest.raises(Refusal, match="doesn't belong to a game in this channel"):
        await service.play.choose(game.id, game.version, "Tw1", elsewhere)
    with pytest.raises(Refusal, match="doesn't belong"):
        await service.play.claim(game.id, elsewhere)
    with pytest.raises(Refusal, match="doesn't belong"):
        await service.play.resign(game.id, game.version, elsewhere)
    made = await challenge(service, CAROL, BOB, CHANNEL + 2)
    with pytest.raises(Refusal, match="no longer exists here"):
        await service.challenges.answer(made.id, by(BOB, CHANNEL), "accept")
    assert (await service.play.games.game(game.id)).version == game.version
    assert (await service.challenges.challenges.challenge(made.id)).status == "pending"


async def test_ornaments_choose_the_advanced_mode(service):
    """Asking for ornaments without a mode means the advanced mode; only an explicit
    ``mode: basic`` with ornaments is refused."""
    made = await challenge(service, ornaments=3)
    assert (made.mode, made.ornaments) == ("advanced", 3)
    game = (await service.challenges.answer(made.id, by(BOB), "accept")).game
    assert sum(1 for ornament in game.position.ornaments if ornament) == 3


async def test_the_servers_games_list_the_callers_first(service):
    """The list of games being played: the caller's first, then by the newest move; paged."""
    first = await started(service)  # Alice and Bob, channel 10
    others = []
    for number, (white, black) in enumerate([(CAROL, BOB), (CAROL, 400), (500, 600)]):
        made = await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=50 + number,
            challenger=Person(white, "w"),
            opponent=Person(black, "b"),
            options=GameOptions(colour="white", first="me"),
        )
        others.append(
            (await service.challenges.answer(made.id, by(black, 50 + number), "accept")).game
        )
    games = GameListings(service.play.games.database)
    assert await games.playing(GUILD) == 4
    page = await games.playing_page(GUILD, CAROL, 0, 3)
    assert [game.id for game in page] == [others[1].id, others[0].id, others[2].id]
    assert [game.id for game in await games.playing_page(GUILD, CAROL, 1, 3)] == [first.id]
    await service.play.resign(first.id, first.version, by(BOB))
    assert await games.playing(GUILD) == 3
