"""Translations: gettext message catalogs (kept with Babel), the language of each request, plurals, numbers, dates.

Why gettext through Babel: it is the standard toolchain of Python projects (Django, Flask-Babel, Sphinx use the
same ``.po`` files), translators' tools (Poedit, Weblate, Transifex) read and write them, plural rules come from
CLDR (Russian has three forms, one/few/many, and the catalog's ``Plural-Forms`` header says so), and Babel also
formats numbers and dates per locale. Catalogs are plain ``.po`` files in ``engine/i18n/locale``; they are compiled
in memory when first used (no build step, nothing binary in the repository).

**Which language.** A request has two languages: the *user's* (what Discord says the asker's client speaks, or
the console's ``--lang``) and the *shared* one (the server's language, set by ``/bg-admin config`` or else the
server's preferred locale) for messages everyone in a game thread reads. :func:`request` sets both for the code
that handles one request (a :mod:`contextvars` variable: every task and every ``asyncio.to_thread`` worker sees
its own request's languages); ``_`` translates into the *active* one, which is the user's unless code runs inside
:func:`shared`. Code that knows only one language (a timer firing, the console) uses :func:`use`.

**Marking strings.** ``_("text")`` translates now; ``N_("text")`` only marks a module-level constant for the
catalog (translate it with ``_(CONSTANT)`` where it is shown); ``ngettext(singular, plural, n)`` picks a plural
form; ``pgettext(context, text)`` tells apart two meanings of one English word. Placeholders are named and filled
after translation: ``_("point {point} is blocked").format(point=5)`` (never an f-string inside ``_``: the catalog
would hold the filled-in text).

**Domains.** Each part of the program keeps its own catalog (``engine``; ``variants``: the rule sets and plugin
loading; ``render``; ``service``; ``discord``; ``console``; ``tournament``: tournaments in every part;
``commands``: the Discord command descriptions and choices). At run time a language's domains form one catalog.
``engine.i18n.catalogs`` extracts and updates them.

**Plugins' catalogs.** A plugin ships its own translations in a folder it registers (the ``register_translations``
hook, ``docs/plugins.md``), laid out as gettext's: ``<folder>/<lang>/LC_MESSAGES/<domain>.po`` (or ``.mo``).
:func:`use_plugin_catalogs` (called by :mod:`engine.plugins` when the process-wide registry is built) names them;
each language's catalog takes them after the project's domains, and only for messages the project's catalogs do
not hold (translated or not): a plugin adds words, it never changes gammonbot's. They are no part of the project's
catalogs (``engine.i18n.catalogs`` neither extracts nor checks them).

A pseudo-language, :data:`PSEUDO` (``qps``), wraps every translated string in ``⟦…⟧``; tests run the program in it
and fail on any visible text outside the brackets (a string that bypassed the catalog).
"""

from __future__ import annotations

import contextvars
import functools
import gettext as _gettext
import io
import logging
import os
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "DEFAULT",
    "PSEUDO",
    "DOMAINS",
    "LOCALE_DIR",
    "_",
    "N_",
    "gettext",
    "ngettext",
    "pgettext",
    "npgettext",
    "listed",
    "language",
    "user_language",
    "shared_language",
    "normalize",
    "request",
    "use",
    "shared",
    "translation",
    "use_plugin_catalogs",
    "plugin_catalogs",
    "number",
    "decimal",
    "percent",
    "when",
    "day",
]

#: The shipped languages (ISO 639-1), English first: the source language of every message.
LANGUAGES: tuple[str, ...] = ("en", "ru", "el", "tr")
#: Each shipped language by its own name (for menus and ``/bg-admin config``).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "ru": "Русский", "el": "Ελληνικά", "tr": "Türkçe"}
DEFAULT = "en"
#: The pseudo-language of the tests: every translated string comes back as ``⟦string⟧``.
PSEUDO = "qps"
#: The catalogs, one per part of the program (see ``engine.i18n.catalogs`` for which sources each holds).
DOMAINS: tuple[str, ...] = ("engine", "variants", "render", "service", "discord", "console", "tournament", "commands")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

PSEUDO_OPEN, PSEUDO_CLOSE = "⟦", "⟧"


@dataclass(frozen=True)
class _Scope:
    user: str
    shared: str
    active: str


_ENGLISH = _Scope(DEFAULT, DEFAULT, DEFAULT)
_scope: contextvars.ContextVar[_Scope] = contextvars.ContextVar("gammonbot_language", default=_ENGLISH)  # noqa: B039


def normalize(tag: object) -> str | None:
    """A shipped language for a locale tag (``"ru"``, ``"ru-RU"``, ``"en_GB"``, ``discord.Locale.greek``), or
    ``None`` when the tag names none of them (the caller then falls back: the server's language, English)."""
    if tag is None:
        return None
    text = str(getattr(tag, "value", tag)).strip().lower().replace("_", "-")
    if not text:
        return None
    if text == PSEUDO:
        return PSEUDO
    base = text.split("-", 1)[0]
    return base if base in LANGUAGES else None


def _lang(tag: object, fallback: str = DEFAULT) -> str:
    return normalize(tag) or fallback


@contextmanager
def request(user: object, shared: object | None = None) -> Iterator[None]:
    """Within the block, ``_`` speaks the ``user``'s language, and :func:`shared` switches to ``shared`` (the
    server's; the user's when not given). Unknown tags fall back to English."""
    u = _lang(user)
    s = _lang(shared, u) if shared is not None else u
    token = _scope.set(_Scope(u, s, u))
    try:
        yield
    finally:
        _scope.reset(token)


def set_request(user: object, shared: object | None = None) -> None:
    """:func:`request` for the rest of the current task (for a handler that cannot wrap its body in a block,
    such as discord.py's ``interaction_check``: each interaction runs in a task of its own)."""
    u = _lang(user)
    s = _lang(shared, u) if shared is not None else u
    _scope.set(_Scope(u, s, u))


@contextmanager
def use(lang: object) -> Iterator[None]:
    """Within the block everything, shared or not, is in ``lang``."""
    with request(lang, lang):
        yield


@contextmanager
def shared() -> Iterator[None]:
    """Within the block ``_`` speaks the shared language: text posted where everyone reads it (a game thread)."""
    cur = _scope.get()
    token = _scope.set(_Scope(cur.user, cur.shared, cur.shared))
    try:
        yield
    finally:
        _scope.reset(token)


def language() -> str:
    """The active language (what ``_`` translates into now)."""
    return _scope.get().active


def user_language() -> str:
    return _scope.get().user


def shared_language() -> str:
    return _scope.get().shared


class _Pseudo(_gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return f"{PSEUDO_OPEN}{message}{PSEUDO_CLOSE}"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"{PSEUDO_OPEN}{msgid1 if n == 1 else msgid2}{PSEUDO_CLOSE}"

    def pgettext(self, context: str, message: str) -> str:
        return f"{PSEUDO_OPEN}{message}{PSEUDO_CLOSE}"

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return f"{PSEUDO_OPEN}{msgid1 if n == 1 else msgid2}{PSEUDO_CLOSE}"


_catalogs: dict[str, _gettext.NullTranslations] = {}
_lock = threading.Lock()


def po_path(lang: str, domain: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


#: The plugins' catalog folders, in the order the plugins load: (plugin name, folder).
_plugin_folders: tuple[tuple[str, Path], ...] = ()
log = logging.getLogger("gammonbot.i18n")


def use_plugin_catalogs(folders: Iterable[tuple[str, str | os.PathLike[str]]]) -> None:
    """The plugins' catalog folders, (plugin name, folder) in load order, that every language's catalog takes after
    the project's own (compiled catalogs are forgotten when the folders change)."""
    global _plugin_folders
    chosen = tuple((name, Path(folder)) for name, folder in folders)
    with _lock:
        if chosen != _plugin_folders:
            _plugin_folders = chosen
            _catalogs.clear()


def plugin_catalogs() -> tuple[tuple[str, Path], ...]:
    """The plugins' catalog folders in use: (plugin name, folder)."""
    return _plugin_folders


def _plugin_files(folder: Path, lang: str) -> list[Path]:
    """A plugin folder's catalogs of ``lang``, one per domain (its ``.po``, else its ``.mo``), by domain name."""
    where = folder / lang / "LC_MESSAGES"
    if not where.is_dir():
        return []
    files = {path.stem: path for path in sorted(where.glob("*.mo"))}
    files.update({path.stem: path for path in sorted(where.glob("*.po"))})
    return [files[stem] for stem in sorted(files)]


def _key(message: Any) -> tuple[str, str | None]:
    mid = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
    return mid, message.context


def _take(merged: Any, catalog: Any, skip: Collection[tuple[str, str | None]] = ()) -> None:
    """Add ``catalog``'s entries to ``merged``: those translated in every form and not fuzzy, unless ``merged`` has
    the message already or ``skip`` names it (an untranslated entry never hides another's translation)."""
    for message in catalog:
        if not message.id or message.fuzzy or _key(message) in skip:
            continue
        if merged.get(message.id, message.context) is not None:
            continue
        forms = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        if forms and all(forms):
            merged[message.id] = message


def _compile(lang: str) -> _gettext.NullTranslations:
    """The language's domains merged into one catalog: an entry counts only when every form is translated and it is
    not fuzzy (an untranslated entry in one domain never hides another domain's translation of the same text). Then
    the plugins' catalogs of the language, in load order, for the messages the project's catalogs do not hold."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import read_mo, write_mo
    from babel.messages.pofile import read_po

    merged = Catalog(locale=lang, domain="gammonbot")
    project: set[tuple[str, str | None]] = set()
    for domain in DOMAINS:
        path = po_path(lang, domain)
        if not path.exists():
            continue
        with path.open("rb") as f:
            catalog = read_po(f, locale=lang, domain=domain)
        project.update(_key(message) for message in catalog if message.id)
        _take(merged, catalog)
    for plugin, folder in _plugin_folders:
        for path in _plugin_files(folder, lang):
            try:
                with path.open("rb") as f:
                    if path.suffix == ".mo":
                        catalog = read_mo(f)
                    else:
                        catalog = read_po(f, locale=lang, domain=path.stem, abort_invalid=True)
            except Exception as exc:  # a plugin's broken catalog costs its own words only
                log.warning("plugin %r: catalog %s left out: %s: %s", plugin, path, type(exc).__name__, exc)
                continue
            _take(merged, catalog, project)
    buf = io.BytesIO()
    write_mo(buf, merged, use_fuzzy=False)
    buf.seek(0)
    return _gettext.GNUTranslations(buf)


def translation(lang: str | None = None) -> _gettext.NullTranslations:
    """The merged catalog of ``lang`` (default: the active language), compiled once per process."""
    lang = lang or language()
    found = _catalogs.get(lang)
    if found is None:
        with _lock:
            found = _catalogs.get(lang)
            if found is None:
                if lang == PSEUDO:
                    found = _Pseudo()
                elif lang == DEFAULT or lang not in LANGUAGES:
                    found = _gettext.NullTranslations()
                else:
                    found = _compile(lang)
                _catalogs[lang] = found
    return found


def reload() -> None:
    """Forget compiled catalogs (after editing a ``.po`` file in a running process, and in tests)."""
    with _lock:
        _catalogs.clear()


def gettext(message: str) -> str:
    """``message`` in the active language (English when the catalog has no translation for it; the empty string
    stays empty, where gettext would return the catalog's header)."""
    return translation().gettext(message) if message else message


_ = gettext


def N_(message: str) -> str:
    """Marks ``message`` for the catalog without translating it (module-level constants; translate where shown)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The plural form for ``n`` in the active language (Russian: one of three)."""
    return translation().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return translation().pgettext(context, message) if message else message


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translation().npgettext(context, singular, plural, n)


def listed(words: Sequence[str], conjunction: str = "and") -> str:
    """Words in a list in the active language: ``a``, ``a and b``, ``a, b and c`` (``conjunction`` "or":
    ``a, b or c``); the empty string for no words."""
    if len(words) <= 1:
        return "".join(words)
    items, last = ", ".join(words[:-1]), words[-1]
    if conjunction == "or":
        # Translators: the end of a list of choices: "A, B or C" ({items} is "A, B").
        return _("{items} or {last}").format(items=items, last=last)
    # Translators: the end of a list: "A, B and C" ({items} is "A, B").
    return _("{items} and {last}").format(items=items, last=last)


def _babel_locale() -> str:
    lang = language()
    return DEFAULT if lang == PSEUDO else lang


def number(value: int) -> str:
    """A whole number as the active language writes it (``12,345``; Russian ``12 345``)."""
    return _formatted("decimal", value, -1, _babel_locale())


def decimal(value: float, digits: int = 1) -> str:
    """A number with ``digits`` decimals as the active language writes it (``1,523.4``; Russian ``1 523,4``)."""
    return _formatted("decimal", value, max(0, digits), _babel_locale())


def percent(value: float, digits: int = 0) -> str:
    """A fraction as a percentage as the active language writes it (``0.25`` -> ``25%``; Turkish ``%25``)."""
    return _formatted("percent", value, max(0, digits), _babel_locale())


@functools.lru_cache(maxsize=4096, typed=True)
def _formatted(kind: str, value: float, digits: int, locale: str) -> str:
    """Babel's number formatting, remembered: it reads the locale's data and parses the pattern on every call (some
    0.1 ms), and the same few figures come back all the time (a reminder's share of the time, scores, ratings)."""
    from babel.numbers import format_decimal, format_percent

    if digits < 0:  # a whole number in the locale's own pattern
        return format_decimal(value, locale=locale)
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    if kind == "percent":  # the locale's own pattern (Turkish writes the sign first: %13), with these decimals
        from babel import Locale

        own = Locale.parse(locale).percent_formats[None].pattern
        return format_percent(
            value, format=own.replace("#,##0", pattern, 1) if "#,##0" in own else pattern + "%", locale=locale
        )
    return format_decimal(value, format=pattern, locale=locale)


def when(moment: datetime, fmt: str = "medium") -> str:
    """A date and time as the active language writes it (``fmt``: short, medium, long)."""
    from babel.dates import format_datetime

    return format_datetime(moment, format=fmt, locale=_babel_locale())


def day(moment: date, fmt: str = "medium") -> str:
    """A date as the active language writes it."""
    from babel.dates import format_date

    return format_date(moment, format=fmt, locale=_babel_locale())
