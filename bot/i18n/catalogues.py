"""The bot's languages: English (as written), Spanish and German, from gettext catalogues.

``bot/locales/tholos.pot`` holds every message marked in the code (``t("…")``,
``t.plural("…", "…", n)``, ``N_("…")``, and command names as ``NC_("command", "…")``);
``bot/locales/<language>/LC_MESSAGES/tholos.po`` their translations, read with Babel and
compiled in memory when first used. ``python -m bot.i18n.catalogues`` extracts the messages
again and
merges them into the catalogues (new ones untranslated, changed ones fuzzy) — run it after
changing a message, then translate what it reports;
``python -m bot.i18n.catalogues samples docs/boards``
draws the sample boards of every language.

Discord tells each interaction the reader's locale and the server's; :func:`translator_for` maps
any Discord locale onto one of ours (``es-ES`` and ``es-419`` → Spanish, ``de`` → German,
everything else English). The slash commands' translations, and the translator of the one who
pressed, are Discord's side (:mod:`bot.i18n.locales`).
"""

from __future__ import annotations

import gettext
import io
import sys
from functools import cache
from pathlib import Path
from typing import Final

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from bot.base.languages import Language
from rendering.translator import ENGLISH, Translator

LANGUAGES: Final[tuple[Language, ...]] = ("en", "es", "de")
TRANSLATED: Final[tuple[Language, ...]] = ("es", "de")
DOMAIN: Final = "tholos"
LOCALES: Final = Path(__file__).parent.parent / "locales"
TEMPLATE: Final = LOCALES / f"{DOMAIN}.pot"
SOURCES: Final = ("bot", "rendering", "engine")
"""The packages whose messages the catalogue holds."""
KEYWORDS: Final = {
    "t": None,
    "plural": (1, 2),
    "N_": None,
    "NC_": ((1, "c"), 2),
    "tell": (2,),
    "Refusal": None,
}
"""How messages are marked: ``t("…")`` translates now, ``N_`` marks for later, ``NC_`` marks
a command name with its context, ``t.plural(singular, plural, n)`` picks a plural form;
``tell(interaction, "…")`` and ``Refusal("…")`` translate into the reader's language."""
COMMAND_NAME: Final = "command"
"""The context of command, option and group names (lowercase, no spaces, ≤ 32 characters)."""


def NC_(context: str, name: str) -> str:
    """Mark ``name`` for translation in ``context``; return it unchanged."""
    return name


def catalogue_path(language: str) -> Path:
    """Where a language's ``.po`` file is."""
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def language_of(locale: object) -> Language:
    """Our language for a Discord locale — a ``discord.Locale`` or its text — (English for
    every locale we don't speak; none: English).

    >>> language_of("es-419"), language_of("de"), language_of("fr"), language_of(None)
    ('es', 'de', 'en', 'en')
    """
    code = str(getattr(locale, "value", locale) or "")
    prefix = code.split("-")[0].lower()
    return prefix if prefix in TRANSLATED else "en"


@cache
def translator(language: str) -> Translator:
    """The translator of one of our languages (English for any other)."""
    if language not in TRANSLATED:
        return ENGLISH
    with catalogue_path(language).open("rb") as source:
        catalog = read_po(source, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translator(language, gettext.GNUTranslations(compiled))


def translator_for(locale: object) -> Translator:
    """The translator for a Discord locale."""
    return translator(language_of(locale))


def extract() -> Catalog:
    """Every marked message of the sources, as a template catalogue."""
    template = Catalog(domain=DOMAIN, project="Tholos for Discord", fuzzy=False)
    root = Path(__file__).parent.parent.parent
    for package in SOURCES:
        for filename, line, message, comments, context in extract_from_dir(
            root / package, method_map=[("**.py", "python")], keywords=KEYWORDS
        ):
            template.add(
                message,
                None,
                [(f"{package}/{filename}", line)],
                auto_comments=comments,
                context=context,
            )
    return template


def update() -> dict[str, int]:
    """Write the template and merge it into each language's catalogue; how many messages
    each language still lacks."""
    template = extract()
    with TEMPLATE.open("wb") as out:
        write_po(out, template, width=100, omit_header=True, sort_output=True)
    missing = {}
    for language in TRANSLATED:
        path = catalogue_path(language)
        if path.exists():
            with path.open("rb") as source:
                catalog = read_po(source, locale=language, domain=DOMAIN)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=language, domain=DOMAIN, project="Tholos for Discord")
        catalog.update(template, no_fuzzy_matching=False)
        with path.open("wb") as out:
            write_po(
                out,
                catalog,
                width=100,
                sort_output=True,
                ignore_obsolete=True,
                include_previous=True,
            )
        missing[language] = len(untranslated(catalog))
    return missing


def untranslated(catalog: Catalog) -> list[str]:
    """The messages of ``catalog`` without a (non-fuzzy) translation in every plural form."""
    return [
        str(message.id)
        for message in catalog
        if message.id
        and (
            message.fuzzy
            or not (all(message.string) if isinstance(message.string, tuple) else message.string)
        )
    ]


def draw_samples(folder: Path) -> list[Path]:
    """A board mid-game and a final board in each language (for ``docs/``, and for looking
    at them at full size and at 400 px)."""
    import random

    from engine.newgame import new_game
    from rendering import BoardView, render_board

    rng = random.Random(7)
    position = new_game("advanced", ornaments=5, seed=7)
    turns = []
    while not position.is_over():
        turns.append(rng.choice(position.legal_turns()))
        position = position.apply(turns[-1])
    middle = new_game("advanced", ornaments=5, seed=7)
    for turn in turns[:30]:
        middle = middle.apply(turn)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for language in LANGUAGES:
        t = translator(language)
        for name, shown, last in (("middle", middle, turns[29]), ("final", position, turns[-1])):
            view = BoardView("Ariadne", "Theseus", last_turn=last, translator=t)
            path = folder / f"board-{name}-{language}.png"
            path.write_bytes(render_board(shown, view))
            written.append(path)
    return written


if __name__ == "__main__":
    if sys.argv[1:2] == ["samples"]:
        for path in draw_samples(Path(sys.argv[2] if len(sys.argv) > 2 else "docs/boards")):
            print(path)
    else:
        for language, count in update().items():
            print(f"{language}: {count} message(s) to translate in {catalogue_path(language)}")
    sys.exit(0)
