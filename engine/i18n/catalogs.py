"""Keeping the catalogs: extract each domain's messages from the source, update every language, check them.

    python -m engine.i18n.catalogs update [DOMAIN ...]   # re-extract the templates (.pot), merge into every .po
    python -m engine.i18n.catalogs check [DOMAIN ...]    # what is missing, untranslated, fuzzy or mismatched
    python -m engine.i18n.catalogs fill DOMAIN LANG FILE.json   # set translations from {"msgid": "text", ...}

(``gammonbot i18n update`` does the same and also extracts the ``commands`` domain from the Discord command tree,
which only the bot can build.) The extraction is Babel's (``pybabel extract`` would find the same messages) with
the keywords ``_``, ``gettext``, ``ngettext``, ``pgettext``, ``npgettext`` and ``N_``. Entries carry no line
numbers, so that moving code does not rewrite every catalog.

A translation a native speaker should look at carries the flag ``review`` (``#, review`` above the entry): it is
used, and listed by ``check`` as a warning, not an error. A ``fuzzy`` entry (Babel's guess after the English text
changed) is not used until a person checks it and removes the flag, and ``check`` reports it as an error.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.pofile import read_po, write_po

from . import DOMAINS, LANGUAGES, LOCALE_DIR, po_path, reload

__all__ = ["ROOT", "SOURCES", "template", "extract", "update", "check", "fill", "Problems", "placeholders"]

ROOT = LOCALE_DIR.parents[2]
#: Which source files each domain's messages come from (paths relative to the project root). A file belongs to the
#: first domain, in this order, whose patterns match it (tournament files lie in the other domains' folders).
SOURCES: dict[str, tuple[str, ...]] = {
    "tournament": (
        "engine/tournament/**/*.py",
        "render/bracket.py",
        "render/standings.py",
        "bot/service/tour*.py",
        "bot/discord/tour_posts.py",
        "bot/discord/cogs/tour.py",
        "bot/console_tour.py",
    ),
    "variants": ("variants/**/*.py", "engine/plugins.py"),
    "engine": ("engine/**/*.py",),
    "render": ("render/**/*.py",),
    "service": ("bot/service/**/*.py", "bot/storage/**/*.py", "bot/scheduler.py", "bot/locks.py"),
    "discord": ("bot/discord/**/*.py",),
    "console": ("bot/__init__.py", "bot/console*.py", "bot/cli.py", "bot/config.py", "bot/runtime.py", "bot/clock.py"),
}
KEYWORDS = dict(DEFAULT_KEYWORDS)
KEYWORDS["N_"] = None
_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:[!:][^{}]*)?\}")


def template_path(domain: str) -> Path:
    return LOCALE_DIR / f"{domain}.pot"


def _matches(domain: str) -> list[Path]:
    found: dict[Path, None] = {}
    for pattern in SOURCES[domain]:
        for path in sorted(ROOT.glob(pattern)):
            if path.relative_to(ROOT).as_posix() != "engine/i18n/catalogs.py":
                found[path] = None
    return list(found)


def _files(domain: str) -> list[Path]:
    """The source files of ``domain``: those its patterns match that no earlier domain claims."""
    claimed: set[Path] = set()
    for earlier in SOURCES:
        if earlier == domain:
            break
        claimed.update(_matches(earlier))
    return [p for p in _matches(domain) if p not in claimed]


def extract(domain: str) -> Catalog:
    """The domain's template, extracted from its source files now."""
    catalog = Catalog(domain=domain, project="gammonbot", version="1", charset="utf-8")
    for path in _files(domain):
        rel = path.relative_to(ROOT).as_posix()
        for _lineno, message, comments, context in extract_from_file(
            "python", str(path), keywords=KEYWORDS, comment_tags=("Translators:",), strip_comment_tags=True
        ):
            catalog.add(message, None, [(rel, 0)], auto_comments=comments, context=context)
    return catalog


def template(domain: str) -> Catalog:
    """The stored template of ``domain`` (``engine/i18n/locale/DOMAIN.pot``)."""
    path = template_path(domain)
    if not path.exists():
        return Catalog(domain=domain)
    with path.open("rb") as f:
        return read_po(f, domain=domain)


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    write_po(buf, catalog, width=120, omit_header=False, ignore_obsolete=True, include_lineno=False)
    text = re.sub(rb'"POT-Creation-Date: [^"]*\\n"\n', b"", buf.getvalue())
    text = re.sub(rb'"PO-Revision-Date: [^"]*\\n"\n', b"", text)
    path.write_bytes(text)


def _load(lang: str, domain: str) -> Catalog:
    path = po_path(lang, domain)
    if not path.exists():
        return Catalog(locale=lang, domain=domain, project="gammonbot", version="1")
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def update(domain: str, tmpl: Catalog | None = None) -> None:
    """Write the domain's template (extracted now, or ``tmpl``) and merge it into each language's catalog."""
    tmpl = tmpl if tmpl is not None else extract(domain)
    _write(tmpl, template_path(domain))
    for lang in LANGUAGES[1:]:
        catalog = _load(lang, domain)
        catalog.update(tmpl, no_fuzzy_matching=True)
        _write(catalog, po_path(lang, domain))
    reload()


def fill(domain: str, lang: str, translations: dict[str, str | list[str]], *, review: Iterable[str] = ()) -> int:
    """Set translations (msgid -> text, or a list of plural forms keyed by the singular msgid; a key
    ``"context\\x04msgid"`` for a message with a context); ``review`` lists msgids to flag for a native speaker.
    Returns how many entries were set; unknown msgids raise ``KeyError``."""
    catalog = _load(lang, domain)
    flagged = set(review)
    count = 0
    for key, text in translations.items():
        context, _, msgid = key.rpartition("\x04") if "\x04" in key else (None, "", key)
        message = _find(catalog, msgid, context or None)
        if message is None:
            raise KeyError(f"{domain}/{lang}: no message {key!r}")
        message.string = tuple(text) if isinstance(text, list) else text
        message.flags.discard("fuzzy")
        if key in flagged:
            message.flags.add("review")
        count += 1
    _write(catalog, po_path(lang, domain))
    reload()
    return count


def _find(catalog: Catalog, msgid: str, context: str | None) -> Message | None:
    for message in catalog:
        if not message.id:
            continue
        if _first(message) == msgid and (message.context or None) == context:
            return message
    return None


def placeholders(text: str) -> set[str]:
    """The named ``{fields}`` of a message (``{{`` escapes excluded)."""
    return set(_FIELD.findall(text.replace("{{", "").replace("}}", "")))


@dataclass
class Problems:
    errors: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)


def _first(message: Message) -> str:
    """A message's id (the singular of a plural message)."""
    return str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(v or "") for v in value) if isinstance(value, (tuple, list)) else (str(value or ""),)


def _ids(catalog: Catalog) -> set[tuple[str | None, str]]:
    return {(message.context, _first(message)) for message in catalog if message.id}


def check(domains: Iterable[str] = DOMAINS, *, fresh: bool = True) -> Problems:
    """Every template matches its source (``fresh``; not for ``commands``, which the bot extracts), and every
    language has every message translated, with the same placeholders and every plural form."""
    problems = Problems()
    for domain in domains:
        tmpl = template(domain)
        if fresh and domain in SOURCES:
            now = _ids(extract(domain))
            stored = _ids(tmpl)
            for _ctx, msgid in sorted(now - stored, key=str):
                problems.errors.append(f"{domain}.pot lacks {msgid!r} (run: python -m engine.i18n.catalogs update)")
            for _ctx, msgid in sorted(stored - now, key=str):
                problems.errors.append(f"{domain}.pot has {msgid!r}, no longer in the source (run update)")
        wanted = _ids(tmpl)
        for lang in LANGUAGES[1:]:
            catalog = _load(lang, domain)
            have = {(m.context, _first(m)): m for m in catalog if m.id}
            for key in sorted(wanted, key=str):
                message = have.get(key)
                where = f"{lang}/{domain}: {key[1]!r}"
                if message is None:
                    problems.errors.append(f"{where} is missing")
                    continue
                strings = _strings(message.string)
                if not all(strings) or len(strings) != (catalog.num_plurals if message.pluralizable else 1):
                    problems.errors.append(f"{where} is not translated (every plural form)")
                    continue
                if "fuzzy" in message.flags:
                    problems.errors.append(f"{where} is fuzzy: check it and remove the flag")
                ids = _strings(message.id)
                expected = set().union(*(placeholders(i) for i in ids))
                for s in strings:
                    if not placeholders(s) <= expected or (not message.pluralizable and placeholders(s) != expected):
                        problems.errors.append(f"{where}: placeholders {sorted(placeholders(s))} != {sorted(expected)}")
                        break
                if "review" in message.flags:
                    problems.review.append(where)
    return problems


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("update", "check", "fill"):
        print(__doc__)
        return 2
    if args[0] == "update":
        for domain in args[1:] or [d for d in DOMAINS if d in SOURCES]:
            update(domain)
            print(f"{domain}: {len(template(domain))} messages")
        return 0
    if args[0] == "fill":
        domain, lang, path = args[1:4]
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        review = data.pop("__review__", [])
        print(f"{fill(domain, lang, data, review=review)} set")
        return 0
    found = check(args[1:] or DOMAINS)
    for line in found.review:
        print("review:", line)
    for line in found.errors:
        print("error:", line)
    print(f"{len(found.errors)} errors, {len(found.review)} marked for review")
    return 1 if found.errors else 0


if __name__ == "__main__":
    sys.exit(main())
