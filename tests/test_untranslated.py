"""No visible text bypasses the catalogs: the program runs in the pseudo-language ``qps`` (engine/i18n), in which
every translated string comes back as ``⟦string⟧``, and whatever a player reads must then lie inside brackets,
apart from what is never translated: names, numbers, notation, IDs, and the names of commands and options.

The console half plays whole games with the commands players use; the Discord half is in
tests/bot/discord/test_untranslated_discord.py (it shares :func:`untranslated`).
"""

from __future__ import annotations

import re
from pathlib import Path

from engine import i18n

#: Words that are never translated: notation, console command names and option keys players type, rule-set keys.
NEVER_TRANSLATED = {"bar", "off", "in", "bg"}
_INNER = re.compile(r"⟦[^⟦⟧]*⟧")
_WORD = re.compile(r"[^\W\d_]{2,}")


def untranslated(text: str, allowed: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The lines of ``text`` holding a word outside every ``⟦…⟧`` that is not a name, an ID, notation, a command
    or option name, or in ``allowed`` (each returned with what is left of it once the brackets are removed)."""
    bad = []
    rest = text
    while True:  # innermost brackets first: a message may hold translated parts and span lines
        new = _INNER.sub(" ", rest)
        if new == rest:
            break
        rest = new
    for line in rest.splitlines():
        words = []
        for chunk in line.split():
            if re.search(r"\d", chunk) and re.search(r"[A-Za-z]", chunk) and len(chunk) >= 8:
                continue  # a Position ID, Match ID, seed or file name
            if re.fullmatch(r"[a-z_]+=\S*", chunk):
                continue  # a setting or option as typed: key=value
            chunk = re.sub(r"<[@#:/!&][^>]*>", " ", chunk)  # mentions
            for word in _WORD.findall(chunk):
                if word.lower() in allowed or word.lower() in NEVER_TRANSLATED or word.isupper():
                    continue
                words.append(word)
        if words:
            bad.append(f"{words}: {line}")
    return bad


def test_the_checker_finds_text_outside_brackets() -> None:
    assert untranslated("⟦Your turn, alice⟧ 8/5 6/5 bar/22 off") == []
    assert untranslated("⟦Roll ⟦6-5⟧⟧ then Confirm") == ["['then', 'Confirm']:   then Confirm"]
    assert untranslated("⟦two\nlines⟧\n⟦one⟧") == []
    assert untranslated("alice played", {"alice"}) == ["['played']: alice played"]
    assert untranslated("<@12345> ⟦to play⟧ 4HPwATDgc/ABMA") == []


def typed_words() -> set[str]:
    """Identifiers players type, shown as they are typed: rule-set keys and aliases, clock and bot names, option
    and setting keys."""
    from bot.service import GameService
    from engine.match import MatchOptions
    from engine.plugins import registry

    words: set[str] = set()
    reg = registry()
    for name in reg.names():
        cls = reg.variants[name]
        words.add(name)
        words.update(getattr(cls, "aliases", ()) or ())
        for key in getattr(cls, "options", {}) or {}:
            words.update(re.findall(r"[^\W\d_]{2,}", str(key)))
    for field in MatchOptions.__dataclass_fields__:
        words.update(field.split("_"))
    for clock in reg.time_controls:
        words.update(re.findall(r"[^\W\d_]{2,}", clock))
    for name in reg.names():
        for spec in GameService.bots_for(name):
            words.update(re.findall(r"[^\W\d_]{2,}", spec.name))
    return {w.lower() for w in words}


def _console_words() -> set[str]:
    from bot import console_text

    words: set[str] = typed_words()
    for command in console_text.COMMANDS:
        words.add(command.name)
        words.update(getattr(command, "aliases", ()) or ())
    return words


def test_a_console_session_in_the_pseudo_language_shows_only_catalog_text(tmp_path: Path) -> None:
    from tests.bot.console_session import Session, run

    variants = ["backgammon", "longgammon", "plakoto", "aceydeucey", "doubles"]
    allowed = {"alice", "bob", "carol", "dave"} | _console_words() | set(variants)

    async def body(s: Session) -> str:
        said = await s.type("help", "help notation", "help cube", "help resign", "variants", "clocks", "bots")
        said += await s.type("alice: nonsense", "alice: settings", "alice: games")
        for game, variant in enumerate(variants, start=1):
            if variant == "doubles":
                said += await s.type(
                    "alice: play bob doubles 1 teammate=carol partner=dave",
                    "bob: accept",
                    "carol: accept",
                    "dave: accept",
                )
            else:
                said += await s.type(f"alice: play bob {variant} 1", "bob: accept")
            said += await s.type("alice: roll", "bob: roll", "alice: board", "alice: move 24/1", "bob: move 24/1")
            said += await s.type("alice: plays", "bob: plays", "alice: ids", "alice: rules " + variant)
            said += await s.until(game, lambda v: False, limit=3000)
            said += await s.type("alice: games", "alice: dice bob", f"alice: verify {game}", "alice: profile")
        said += await s.type("alice: leaderboard", "alice: play bob backgammon 3 crawford=nope")
        return said

    with i18n.use(i18n.PSEUDO):
        out = run(tmp_path, body)
    assert "⟦" in out
    bad = untranslated(out, allowed)
    assert not bad, f"{len(bad)} console lines show text that bypasses the catalogs:\n" + "\n".join(bad[:80])
