"""Nackgammon's words ship with it: its Russian catalog (``gammonbot_nackgammon/locale``, registered by
``register_translations``) joins gammonbot's Russian catalog when the plugin loads, as an installed plugin's does."""

from __future__ import annotations

from collections.abc import Iterator

import gammonbot_nackgammon
import pytest

from engine import i18n
from engine.i18n import _
from engine.plugins import registry, reset_registry


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("GAMMONBOT_PLUGINS", raising=False)
    reset_registry()  # built afresh: the installed plugin, found by its entry point, with its catalogs
    yield
    reset_registry()


def test_the_rule_sets_name_and_summary_read_in_russian(loaded: None) -> None:
    variant = registry().get("nackgammon")
    assert registry().owners["nackgammon"] == "nackgammon"
    with i18n.use("ru"):
        assert variant.local_name() == "Нэкгаммон"
        assert _(variant.summary).startswith("Нарды с другой начальной расстановкой")
        assert _("gammon") == "марс"  # gammonbot's own word: the plugin's catalog never changes it
    with i18n.use("el"):  # no Greek catalog in the plugin: its English words
        assert variant.local_name() == "Nackgammon"
    assert variant.local_name() == "Nackgammon"


def test_the_catalog_translates_every_word_of_the_rule_set(loaded: None) -> None:
    from babel.messages.pofile import read_po

    with (gammonbot_nackgammon.LOCALE / "ru" / "LC_MESSAGES" / "nackgammon.po").open("rb") as f:
        catalog = read_po(f)
    cls = gammonbot_nackgammon.Nackgammon
    for text in (cls.display_name, cls.summary):
        assert catalog.get(text) is not None and catalog.get(text).string, f"not translated: {text!r}"
