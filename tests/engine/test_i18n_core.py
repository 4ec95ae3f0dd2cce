"""The translation machinery (engine/i18n): languages per request, the shared language, plurals, numbers, catalogs."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from engine import i18n
from engine.i18n import _, ngettext


def test_locale_tags_map_to_shipped_languages() -> None:
    assert i18n.normalize("en-US") == "en"
    assert i18n.normalize("en_GB") == "en"
    assert i18n.normalize("ru") == "ru"
    assert i18n.normalize("el") == "el"
    assert i18n.normalize("tr") == "tr"
    assert i18n.normalize("zh-CN") is None
    assert i18n.normalize("") is None
    assert i18n.normalize(None) is None


def test_a_request_has_a_user_and_a_shared_language() -> None:
    assert i18n.language() == "en"
    with i18n.request("ru-RU", "el"):
        assert (i18n.language(), i18n.user_language(), i18n.shared_language()) == ("ru", "ru", "el")
        with i18n.shared():
            assert i18n.language() == "el"
        assert i18n.language() == "ru"
    assert i18n.language() == "en"
    with i18n.request("xx"):  # an unknown locale falls back to English
        assert i18n.language() == "en"
    with i18n.request("tr", "xx"):  # an unknown server locale falls back to the user's
        assert i18n.shared_language() == "tr"


def test_worker_threads_and_tasks_keep_their_own_requests_language() -> None:
    async def one(lang: str) -> tuple[str, str]:
        with i18n.request(lang):
            await asyncio.sleep(0)
            in_thread = await asyncio.to_thread(i18n.language)
            return i18n.language(), in_thread

    async def main() -> list[tuple[str, str]]:
        return await asyncio.gather(*(one(lang) for lang in ("ru", "el", "tr", "en")))

    assert asyncio.run(main()) == [("ru", "ru"), ("el", "el"), ("tr", "tr"), ("en", "en")]


def test_the_pseudo_language_brackets_every_translated_string() -> None:
    with i18n.use(i18n.PSEUDO):
        assert _("point {point} is blocked").format(point=5) == "⟦point 5 is blocked⟧"
        assert ngettext("{n} checker", "{n} checkers", 3).format(n=3) == "⟦3 checkers⟧"


def test_russian_has_three_plural_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = Catalog(locale="ru")
    catalog.add(("{n} game", "{n} games"), ("{n} партия", "{n} партии", "{n} партий"))
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    import gettext

    monkeypatch.setitem(i18n._catalogs, "ru", gettext.GNUTranslations(buf))
    with i18n.use("ru"):
        forms = [ngettext("{n} game", "{n} games", n).format(n=n) for n in (1, 3, 5, 11, 21, 22, 25)]
    assert forms == ["1 партия", "3 партии", "5 партий", "11 партий", "21 партия", "22 партии", "25 партий"]
    assert ngettext("{n} game", "{n} games", 5).format(n=5) == "5 games"  # English outside the block


def test_numbers_and_dates_follow_the_language() -> None:
    from datetime import datetime

    assert i18n.number(12345) == "12,345"
    assert (i18n.percent(0.25), i18n.percent(0.5, 1)) == ("25%", "50.0%")
    assert i18n.decimal(1523.45) == "1,523.4" or i18n.decimal(1523.45) == "1,523.5"
    with i18n.use("ru"):
        assert i18n.number(12345).replace("\xa0", " ") == "12 345"
        assert i18n.decimal(1523.25).replace("\xa0", " ") == "1 523,2"
        assert i18n.percent(0.25).replace("\xa0", " ") == "25 %"
        assert "декабря" in i18n.when(datetime(2026, 12, 1, 21, 30), "long")
    with i18n.use("tr"):
        assert i18n.number(12345) == "12.345"
        assert (i18n.percent(0.25), i18n.percent(0.5, 1)) == ("%25", "%50,0")  # Turkish writes the sign first
    with i18n.use("el"):
        assert "Δεκ" in i18n.when(datetime(2026, 12, 1, 21, 30), "medium")


def test_the_empty_string_stays_empty_in_every_language() -> None:
    for lang in (*i18n.LANGUAGES, i18n.PSEUDO):
        with i18n.use(lang):
            assert _("") == ""
            assert i18n.pgettext("action", "") == ""


def _plugin_catalog(folder: Path, lang: str, domain: str, entries: dict[str, str]) -> None:
    from babel.messages.pofile import write_po

    catalog = Catalog(locale=lang, domain=domain)
    for msgid, text in entries.items():
        catalog.add(msgid, text)
    where = folder / lang / "LC_MESSAGES"
    where.mkdir(parents=True, exist_ok=True)
    with (where / f"{domain}.po").open("wb") as f:
        write_po(f, catalog)


@pytest.fixture
def plugin_catalogs() -> Iterator[None]:
    before = i18n.plugin_catalogs()
    yield
    i18n.use_plugin_catalogs(before)


def test_a_plugins_catalogs_add_words_but_never_change_the_projects(
    tmp_path: Path, plugin_catalogs: None, caplog: pytest.LogCaptureFixture
) -> None:
    first, second, broken = tmp_path / "first", tmp_path / "second", tmp_path / "broken"
    _plugin_catalog(first, "ru", "club", {"Club backgammon": "Клубные нарды", "gammon": "гаммон"})
    _plugin_catalog(second, "ru", "other", {"Club backgammon": "Другие", "House rules": "Домашние правила"})
    (broken / "ru" / "LC_MESSAGES").mkdir(parents=True)
    (broken / "ru" / "LC_MESSAGES" / "bad.mo").write_bytes(b"not a compiled catalog")
    with i18n.use("ru"):
        assert _("Club backgammon") == "Club backgammon"
        project_gammon = _("gammon")
    assert project_gammon != "gammon"  # the project translates it
    i18n.use_plugin_catalogs([("broken", broken), ("club", first), ("other", second)])
    with caplog.at_level("WARNING", logger="gammonbot.i18n"), i18n.use("ru"):
        assert _("Club backgammon") == "Клубные нарды"  # plugins in load order: the first one's words
        assert _("House rules") == "Домашние правила"
        assert _("gammon") == project_gammon  # the project's own word stands
    assert "plugin 'broken'" in caplog.text and "bad.mo" in caplog.text
    with i18n.use("el"):  # a language the plugin does not translate: English
        assert _("Club backgammon") == "Club backgammon"
    i18n.use_plugin_catalogs([])
    with i18n.use("ru"):
        assert _("Club backgammon") == "Club backgammon"
