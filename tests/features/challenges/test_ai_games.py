"""Games against the AI, rated or not: rated only when asked, only where the bot is (a server
with the bot, the DM with the bot), never with hints; a rematch keeps it (on both backends)."""

from __future__ import annotations

import pytest

from bot.base.game import Game, GamePlace, NewGame, Venue
from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.features.challenges.service import RATED_WHERE_I_AM, RATED_WITHOUT_HINTS
from bot.storage.games.store import GameStore
from engine.newgame import new_game
from tests.features.play.test_service import ALICE, CHANNEL, GUILD, by

AI = Person(999, "Tholos AI (medium · 1500)", bot=True)


async def start(service, venue: Venue = "server", **options):
    """Alice starts a game against the AI (medium) in ``venue``, with ``options``."""
    return await service.challenges.new_games.start_ai_game(
        guild_id=GUILD if venue == "server" else 0,
        channel_id=CHANNEL,
        human=Person(ALICE, "Alice"),
        ai=AI,
        level="medium",
        options=GameOptions(colour="white", first="me", **options),
        venue=venue,
    )


@pytest.mark.parametrize("venue", ["server", "bot_dm"])
async def test_a_game_against_the_ai_is_rated_where_the_bot_is_when_asked(service, venue):
    """Asked for, rated (stored so), without hints; not asked, unrated (as before)."""
    rated = await start(service, venue, rated=True)
    stored = await service.challenges.games.game(rated.id)
    assert stored is not None and stored.rated and not stored.hints
    await service.play.resign(rated.id, rated.version, by(ALICE))
    unrated = await start(service, venue, hints=True)
    assert not unrated.rated and unrated.hints


@pytest.mark.parametrize("venue", ["dm", "group_dm", "server_without_bot"])
async def test_a_rated_game_against_the_ai_is_refused_where_the_bot_is_not(service, venue):
    """In a DM between members, a group DM or a server without the bot nothing is rated: asking
    is refused, nothing starts; unrated it starts there."""
    with pytest.raises(Refusal) as refused:
        await start(service, venue, rated=True)
    assert refused.value.message == RATED_WHERE_I_AM
    assert await service.challenges.games.active_game(CHANNEL) is None
    assert not (await start(service, venue)).rated


async def test_a_rated_game_has_no_hints(service):
    """Rated and hints together are refused (a rated game's help would be the engine's)."""
    with pytest.raises(Refusal) as refused:
        await start(service, rated=True, hints=True)
    assert refused.value.message == RATED_WITHOUT_HINTS
    assert await service.challenges.games.active_game(CHANNEL) is None


async def test_a_rematch_of_a_rated_game_against_the_ai_is_rated(service):
    """Rematch keeps a rated game rated (colours swapped), and an unrated one unrated."""
    for rated in (True, False):
        game = await start(service, rated=rated)
        await service.play.resign(game.id, game.version, by(ALICE))
        again = await service.challenges.rematch(game.id, by(ALICE))
        assert isinstance(again, Game) and again.rated == rated
        assert again.white_id == AI.id and again.ai_level == "medium"
        await service.play.resign(again.id, again.version, by(ALICE))


@pytest.mark.parametrize(
    ("venue", "ai", "stored"),
    [
        ("server", True, True),
        ("bot_dm", True, True),
        ("dm", True, False),
        ("server_without_bot", True, False),
        ("server", False, True),
        ("bot_dm", False, False),
        ("group_dm", False, False),
    ],
)
async def test_the_store_rates_only_where_the_rules_allow(database, venue, ai, stored):
    """The last guard, in the store: a game asked to be rated is stored rated in a server with
    the bot, and — against the AI — in the DM with the bot; anywhere else unrated."""
    opponent = AI if ai else Person(200, "Bob")
    new = NewGame(
        GamePlace(GUILD, CHANNEL, None, None, venue),
        Person(ALICE, "Alice"),
        opponent,
        seed=1,
        start=new_game(),
        rated=True,
        ai_level="hard" if ai else None,
        ai_id=AI.id if ai else None,
    )
    game = await GameStore(database).create_ai_game(new, now=1.0)
    assert game.rated == stored
