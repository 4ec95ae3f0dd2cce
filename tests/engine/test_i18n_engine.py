"""The engine's own texts in every shipped language: refusals, option errors, the terms of a match, clock
descriptions, result names, the match card's words. English (the default) stays exactly as before."""

from __future__ import annotations

import pytest

from engine import i18n
from engine.i18n.catalogs import check
from engine.match import ActionError, Double, MatchOptions, OpeningRoll, Resign, apply, new_match
from engine.matchcard import rating_words
from engine.options import OptionError, parse
from engine.plugins import get_variant
from engine.position import Position
from engine.terms import describe
from engine.timecontrol import TimeControl
from engine.validate import IllegalPlay
from engine.variant import Variant

#: The starting position of backgammon with one of the roller's back checkers on the bar.
ON_THE_BAR = "6:5 8:3 13:5 24:1 19:-5 17:-3 12:-5 1:-2 bar:1/0"


def refusal(variant: Variant, pos: Position, dice: tuple[int, int], play: str) -> str:
    with pytest.raises(IllegalPlay) as caught:
        variant.check_play(pos, dice, play)
    return str(caught.value)


def rolled_match() -> object:
    """A 5-point backgammon match whose first player has just won the opening roll (3-1)."""
    state = new_match(get_variant("backgammon"), [["alice"], ["bob"]], MatchOptions(length=5))
    return apply(state, OpeningRoll("alice", (3, 1)))


def action_refusal(state: object, action: object) -> str:
    with pytest.raises(ActionError) as caught:
        apply(state, action)  # type: ignore[arg-type]
    return str(caught.value)


BLOCKED = {
    "en": "24/19 with a 5: point 19 is blocked: 2 or more opposing checkers hold it",
    "ru": "24/19 (кость 5): пункт 19 закрыт: его занимают 2 или больше шашек соперника",
    "el": "24/19 με 5: η θέση 19 είναι κλειστή: ο αντίπαλος έχει εκεί πόρτα (2 ή περισσότερα πούλια)",
    "tr": "24/19 (5 ile): 19. hane kapalı: onu 2 ya da daha fazla rakip pul tutuyor",
}
BAR_FIRST = {
    "en": "13/7 with a 6: checkers on the bar must enter first",
    "ru": "13/7 (кость 6): сначала должны войти шашки с бара",
    "el": "13/7 με 6: τα πούλια στη μπάρα πρέπει να μπουν πρώτα",
    "tr": "13/7 (6 ile): önce bar'daki pullar girmeli",
}


@pytest.mark.parametrize("lang", ["en", "ru", "el", "tr"])
def test_illegal_plays_are_refused_in_the_players_language(lang: str) -> None:
    bg = get_variant("backgammon")
    with i18n.use(lang):
        assert refusal(bg, bg.start_position(), (5, 3), "24/19 24/21") == BLOCKED[lang]
        assert refusal(bg, Position.parse(ON_THE_BAR), (6, 5), "13/7 13/8") == BAR_FIRST[lang]


def test_notation_errors_keep_the_notation_and_translate_the_words() -> None:
    bg = get_variant("backgammon")
    with i18n.use("ru"):
        text = refusal(bg, bg.start_position(), (6, 5), "xx")
    assert text == "не удаётся прочитать 'xx': пишите ход как ОТКУДА/КУДА, например 13/7 или bar/22"


def test_match_refusals_speak_the_active_language() -> None:
    state = rolled_match()
    assert action_refusal(state, Double("alice")) == "you have already rolled: a double must come before the roll"
    with i18n.use("ru"):
        assert action_refusal(state, Double("alice")) == "вы уже бросили кости: удваивать нужно до броска"
    with i18n.use("el"):
        assert action_refusal(state, Double("alice")) == "έχετε ήδη ρίξει: ο διπλασιασμός γίνεται πριν από τη ζαριά"
    with i18n.use("tr"):
        assert action_refusal(state, Double("alice")) == "zarı zaten attınız: katlama atıştan önce yapılır"


def test_result_names_use_the_languages_words() -> None:
    """Russian calls a gammon «марс» and a backgammon «кокс»; the level list is translated as a whole."""
    state = rolled_match()
    english = action_refusal(state, Resign("alice", 4))
    assert english == (
        "a Backgammon game ends in a single game (1), a gammon (2) or a backgammon (3): offer one of those, not 4"
    )
    with i18n.use("ru"):
        russian = action_refusal(state, Resign("alice", 4))
        names = [get_variant("backgammon").result_name(level) for level in (1, 2, 3)]
    assert "марс (2) или кокс (3)" in russian and "not 4" not in russian
    assert names == ["простая победа", "марс", "кокс"]


def test_option_errors_are_translated_and_keep_the_option_names() -> None:
    with pytest.raises(OptionError) as english:
        parse("jacobi")
    assert str(english.value) == "unknown option 'jacobi' — did you mean 'jacoby'?"
    for lang, expected in (
        ("ru", "неизвестный параметр 'jacobi' — может быть, 'jacoby'?"),
        ("el", "άγνωστη επιλογή 'jacobi' — μήπως εννοείτε 'jacoby';"),
        ("tr", "bilinmeyen seçenek 'jacobi' — 'jacoby' mi demek istediniz?"),
    ):
        with i18n.use(lang), pytest.raises(OptionError) as caught:
            parse("jacobi")
        assert str(caught.value) == expected


@pytest.mark.parametrize(
    ("lang", "one", "few", "many"),
    [
        ("en", "1 day, no delay", "3 days, no delay", "5 days, no delay"),
        ("ru", "1 день, без задержки", "3 дня, без задержки", "5 дней, без задержки"),
        ("el", "1 ημέρα, χωρίς καθυστέρηση", "3 ημέρες, χωρίς καθυστέρηση", "5 ημέρες, χωρίς καθυστέρηση"),
        ("tr", "1 gün, gecikme yok", "3 gün, gecikme yok", "5 gün, gecikme yok"),
    ],
)
def test_clock_descriptions_use_each_languages_plural_forms(lang: str, one: str, few: str, many: str) -> None:
    def clock(days: int) -> str:
        return TimeControl("bank", "Bank", "clock", bonus="none", reserve=days * 86400).describe()

    with i18n.use(lang):
        assert [clock(1), clock(3), clock(5)] == [one, few, many]


def test_the_terms_of_a_match_are_translated_line_by_line() -> None:
    bg = get_variant("backgammon")
    options = MatchOptions(length=0, games=5, beavers=True)
    english = describe(bg, options)
    assert english[0] == "Backgammon for money, a session of 5 games"
    assert "Beavers: on (at most 3 beavers and raccoons after one double)" in english
    with i18n.use("ru"):
        russian = describe(bg, options)
    assert len(russian) == len(english)
    assert russian[0].endswith("на деньги, сессия из 5 партий")
    assert "Бобры: включены (после одного удвоения не более 3 бобров и енотов)" in russian


def test_the_match_cards_rating_words_are_translated() -> None:
    assert rating_words(4.0) == "World class"
    with i18n.use("ru"):
        assert rating_words(4.0) == "Мировой класс"
    with i18n.use("tr"):
        assert rating_words(99.0) == "Berbat!"


def test_in_the_pseudo_language_an_engine_refusal_is_catalog_text_throughout() -> None:
    bg = get_variant("backgammon")
    with i18n.use(i18n.PSEUDO):
        text = refusal(bg, bg.start_position(), (5, 3), "24/19 24/21")
    assert text.startswith("⟦") and text.endswith("⟧")
    assert "⟦point 19 is blocked: 2 or more opposing checkers hold it⟧" in text


def test_every_engine_message_is_translated_into_every_language() -> None:
    found = check(["engine"])
    assert found.errors == []
