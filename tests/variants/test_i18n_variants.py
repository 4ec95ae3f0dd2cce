"""The rule sets in Russian, Greek and Turkish (issue 23): their names, rules, results, refusals and option words, the
time-control presets and bot players they bring, and why a plugin was refused, each in the game's own words; English
unchanged.

Names, summaries, option words and result names are English class data marked for the ``variants`` catalog
(``N_``), translated where they are shown (``_(cls.display_name)``, ``Variant.result_name``); refusals are
translated when they are made; a plugin refusal is kept in English and speaks the reader's language when shown
(:class:`engine.plugins.Deferred`).
"""

from __future__ import annotations

import logging

import pytest

from engine import Position, i18n
from engine.i18n import _
from engine.i18n.catalogs import template
from engine.movegen import board_list
from engine.plugins import Deferred, PluginError, build_plugin_manager, get_variant, hookimpl, registry
from engine.validate import IllegalPlay
from engine.variant import Variant, VariantOptionError
from variants.aceydeucey import AceyDeucey
from variants.longgammon import Longgammon
from variants.plakoto import Plakoto

NAMES = {
    "backgammon": {"en": "Backgammon", "ru": "Короткие нарды", "el": "Backgammon", "tr": "Tavla"},
    "longgammon": {"en": "Longgammon", "ru": "Длинные нарды", "el": "Μακρύ τάβλι", "tr": "Uzun tavla"},
    "portes": {"en": "Portes", "ru": "Портес", "el": "Πόρτες", "tr": "Portes"},
    "plakoto": {"en": "Plakoto", "ru": "Плакото", "el": "Πλακωτό", "tr": "Plakoto"},
    "fevga": {"en": "Fevga", "ru": "Февга", "el": "Φεύγα", "tr": "Fevga"},
    "tavli": {"en": "Tavli", "ru": "Тавли", "el": "Τάβλι", "tr": "Tavli"},
    "sprintgammon": {"en": "Sprintgammon", "ru": "Sprintgammon", "el": "Sprintgammon", "tr": "Sprintgammon"},
}
BUILT_IN = ("backgammon", "longgammon", "sprintgammon", "doubles", "portes", "plakoto", "fevga", "tavli", "aceydeucey")


def refusal(variant: Variant, pos: Position, dice: tuple[int, int], play: str) -> str:
    with pytest.raises(IllegalPlay) as caught:
        variant.check_play(pos, dice, play)
    return str(caught.value)


@pytest.mark.parametrize("lang", ["en", "ru", "el", "tr"])
def test_rule_set_names_in_each_language(lang: str) -> None:
    with i18n.use(lang):
        for name, words in NAMES.items():
            variant = get_variant(name)
            assert _(variant.display_name) == words[lang]
    assert get_variant("longgammon").display_name == "Longgammon"  # the class data stays English


def test_summaries_keep_the_game_words_and_the_command() -> None:
    with i18n.use("ru"):
        summary = _(get_variant("longgammon").summary)
        assert "голов" in summary and "Марс" in summary
    with i18n.use("el"):
        assert "μάνα" in _(get_variant("plakoto").summary)
        assert "`/bg-info rules`" in _(get_variant("tavli").summary)
    with i18n.use("tr"):
        assert "`/bg-info rules`" in _(get_variant("tavli").summary)
        assert "Plakoto" in _(get_variant("tavli").summary) and "küp" in _(get_variant("tavli").summary).lower()


def test_longgammon_results_are_mars_and_koks() -> None:
    koks = get_variant("longgammon", koks=True)
    assert koks.results == {1: "single game", 2: "mars", 3: "koks"}  # English data, named in the rule set's words
    expected = {"ru": ("марс", "кокс"), "el": ("μαρς", "κοκς"), "tr": ("mars", "koks")}
    for lang, (mars, koks_word) in expected.items():
        with i18n.use(lang):
            assert (koks.result_name(2), koks.result_name(3)) == (mars, koks_word)
    assert (koks.result_name(2), koks.result_name(3)) == ("mars", "koks")


def test_the_head_rule_refused_in_the_players_words() -> None:
    long = get_variant("longgammon")
    start = long.start_position()
    with i18n.use("ru"):
        assert "за этот ход с головы можно снять только одну шашку" in refusal(long, start, (5, 3), "24/19 24/21")
    with i18n.use("el"):
        assert "μόνο ένα πούλι μπορεί να φύγει από το κεφάλι" in refusal(long, start, (5, 3), "24/19 24/21")
    with i18n.use("tr"):
        assert "bu hamlede baştan yalnızca bir pul çıkabilir" in refusal(long, start, (5, 3), "24/19 24/21")
    assert "only one checker may leave the head this turn" in refusal(long, start, (5, 3), "24/19 24/21")


def test_pins_and_closed_points_refused_in_each_language() -> None:
    plakoto = get_variant("plakoto")
    pinned = Position.parse("24:13 20:-1p 1:-13 off:1/1")
    with i18n.use("el"):
        said = refusal(plakoto, pinned, (3, 1), "20/17 24/23")
        assert "το πούλι σας στη θέση 20 είναι πλακωμένο" in said
        assert "η θέση 20 είναι κλειστή" in refusal(plakoto, pinned, (4, 1), "24/20 24/23")
    with i18n.use("ru"):
        assert "ваша шашка на пункте 20 зажата" in refusal(plakoto, pinned, (3, 1), "20/17 24/23")
    with i18n.use("tr"):
        assert "20. hanedeki pulunuz hapsedilmiş" in refusal(plakoto, pinned, (3, 1), "20/17 24/23")
    assert "your checker on point 20 is pinned: it cannot move" in refusal(plakoto, pinned, (3, 1), "20/17 24/23")


def test_fevga_first_checker_and_bearing_off_refusals() -> None:
    fevga = get_variant("fevga")
    start = fevga.start_position()
    with i18n.use("tr"):
        assert "ilk pul rakibin başlangıç bölgesine varmadan" in refusal(fevga, start, (5, 3), "24/19 24/21")
    with i18n.use("ru"):
        assert "вторая шашка не может уйти с вашего стартового пункта" in refusal(fevga, start, (5, 3), "24/19 24/21")
    acey = AceyDeucey(exact_bear_off=True)
    b = board_list(Position.parse("3:15"))
    with i18n.use("ru"):
        assert acey.submove_error(b, 3, 5, None) == "для выброса нужно точное число: 5 выбрасывает только с пункта 5"
    assert acey.submove_error(b, 3, 5, None) == "bearing off needs the exact number: a 5 bears off only from point 5"


def test_a_pinned_mother_and_a_draw_are_named_where_shown() -> None:
    plakoto = Plakoto()
    over = plakoto.game_over(Position.parse("24:-1p 22:-13 10:11 5:1 3:1 1:1p"))
    assert over is not None and over.draw and over.how == "both mothers are pinned"  # English data
    with i18n.use("el"):
        assert _(over.how) == "πλακώθηκαν και οι δύο μάνες"
    with i18n.use("ru"):
        assert _(over.how) == "зажаты обе матери"


@pytest.mark.parametrize(
    ("left", "words"),
    [
        (1, "партия, у проигравшего осталась 1 шашка"),
        (3, "партия, у проигравшего осталось 3 шашки"),
        (5, "партия, у проигравшего осталось 5 шашек"),
        (11, "партия, у проигравшего осталось 11 шашек"),
    ],
)
def test_acey_deucey_checker_scoring_uses_russian_plural_forms(left: int, words: str) -> None:
    acey = AceyDeucey(scoring="checkers")
    with i18n.use("ru"):
        assert acey.result_name(left) == words
    with i18n.use("el"):
        assert acey.result_name(left).startswith("παρτίδα με")
    assert acey.result_name(1) == "game with 1 checker left" and acey.result_name(3) == "game with 3 checkers left"


def test_option_words_and_refused_values() -> None:
    with i18n.use("tr"):
        with pytest.raises(VariantOptionError, match="Plakoto seçeneği 'mother_points' 2 ya da 3 olur, 4 değil"):
            Plakoto(mother_points=4)
        assert _(Plakoto.option_help["mother_points"]) == "Plakoto: hapsedilen ananın değeri, 2 ya da 3 puan"
    with i18n.use("ru"):
        with pytest.raises(VariantOptionError, match="параметр длинных нард 'koks' бывает только true или false"):
            get_variant("longgammon", koks="yes")
        assert _(Longgammon.option_help["koks"]).startswith("Длинные нарды: кокс (3 очка)")
    with pytest.raises(VariantOptionError, match="Plakoto option 'mother_points' is 2 or 3, not 4"):
        Plakoto(mother_points=4)


def test_time_controls_and_bot_players_are_named_in_each_language() -> None:
    reg = registry()
    blitz = reg.find_time_control("longgammon-blitz")
    strong = reg.find_player("strong")
    with i18n.use("ru"):
        assert _(blitz.display_name) == "Блиц: длинные нарды"
        assert _(strong.display_name) == "bgsage (сильный)"
    with i18n.use("el"):
        assert _(reg.find_time_control("correspondence").display_name) == "Δι' αλληλογραφίας"
    with i18n.use("tr"):
        assert _(reg.find_time_control("tournament-clock").display_name) == "Turnuva saati"
    assert blitz.display_name == "Longgammon Blitz" and strong.display_name == "bgsage (strong)"


class _Clumsy:
    """A plugin that registers something that is not a rule set."""

    @staticmethod
    @hookimpl
    def register_variants(register):  # type: ignore[no-untyped-def]
        register(object)


def test_a_plugin_refusal_is_kept_in_english_and_shown_in_the_readers_language(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("GAMMONBOT_PLUGINS", raising=False)
    english = "it registered <class 'object'>, which is not a Variant subclass"
    with i18n.use("ru"), caplog.at_level(logging.WARNING, logger="gammonbot.plugins"):
        reg = build_plugin_manager([("clumsy", _Clumsy)], load_entry_points=False)[1]
    reason = reg.refused["clumsy"]
    assert isinstance(reason, Deferred) and reason == english  # stored and compared in English
    assert f"plugin 'clumsy' refused: {english}" in caplog.text  # the log stays English
    shown = {"ru": "он зарегистрировал <class 'object'>, а это не подкласс Variant"}
    shown["el"] = "καταχώρισε το <class 'object'>, που δεν είναι υποκλάση του Variant"
    shown["tr"] = "<class 'object'> kaydetti, ama bu bir Variant alt sınıfı değil"
    for lang, words in shown.items():
        with i18n.use(lang):
            assert f"{reason}" == str(reason) == f"{_(reason)}" == words  # _() finds no entry: the text shows itself
    assert str(reason) == english
    with i18n.use("ru"), pytest.raises(PluginError, match="плагин 'clumsy' отклонён: он зарегистрировал"):
        build_plugin_manager([("clumsy", _Clumsy)], load_entry_points=False, strict=True)


def test_unknown_names_are_refused_in_the_askers_language() -> None:
    with i18n.use("el"), pytest.raises(LookupError, match="δεν υπάρχει κανονισμός με όνομα 'chess'· διαθέσιμοι: "):
        get_variant("chess")
    with i18n.use("tr"), pytest.raises(LookupError, match="'deep-blue' adında bot oyuncu yok; mevcut olanlar: "):
        registry().find_player("deep-blue")
    with pytest.raises(LookupError, match="no rule set called 'chess'; available: "):
        get_variant("chess")


def test_every_word_a_built_in_rule_set_shows_is_in_a_catalog() -> None:
    """Names, summaries, option words and result names are marked (N_): a new one left unmarked would stay English."""
    known = {m.id if isinstance(m.id, str) else m.id[0] for domain in ("variants", "engine") for m in template(domain)}
    reg = registry()
    for name in BUILT_IN:
        cls = reg.find(name)
        shown = [cls.display_name, cls.summary, *getattr(cls, "option_help", {}).values(), *cls().results.values()]
        assert not [text for text in shown if text not in known], name
    for tc_name in reg.time_control_names():
        if reg.time_control_owners[tc_name] == "timecontrols":
            tc = reg.time_controls[tc_name]
            assert tc.display_name in known and tc.summary in known
    for spec in reg.players.values():
        if reg.player_owners[spec.name] == "bgsage":
            assert {spec.display_name, spec.description, spec.requirements} <= known
