"""Boards, banners, match cards and replays in every shipped language (issue 23): their words come from the render
catalog, a picture cached for one language is never handed out for another, and no label runs out of its box
however long a language's words or a player's name.

The words a snapshot carries from the rules ("gammon", a rule set's name) and the figures' words other parts of the
program translate (engine, variants) are not asserted here: only what render itself says."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import render.board as board_module
from engine import i18n
from engine.i18n import ngettext
from engine.plugins import registry
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot, GameEnd
from render import fonts, layout, sprites
from render.board import layout_for, render_board, render_image
from render.canvas import fit
from render.card import _Canvas, card_text, render_card_image
from render.fonts import caps, text_width
from render.gallery import long_scenes, sample_card, scenes
from render.text import board_text, result_lines
from render.theme import Theme, ThemeError, config_from_mapping

from .helpers import snap

LANGS = ("ru", "el", "tr")
THEME = Theme.build("classic", width=420)
WIDE = Theme.build("classic", width=840)


def _board() -> BoardSnapshot:
    return snap(
        names=("Ann", "Bob"),
        pips=(167, 167),
        on_roll=VIEWER,
        dice=(3, 1),
        score=(2, 4),
        match_length=7,
        cube_value=2,
        cube_owner=OPPONENT,
        last_play=((24, 18, False), (13, 11, False)),
        last_play_by=OPPONENT,
        position_id="4HPwATDgc/ABMA",
    )


# --- words ---------------------------------------------------------------------------------------------------------
ALT = {
    "en": ("Position ID 4HPwATDgc/ABMA", "Ann to play 3-1", "pips Ann 167, Bob 167", "score Ann 2, Bob 4 (match to 7)",
           "cube 2 owned by Bob", "last play Bob 24/18 13/11"),
    "ru": ("Position ID 4HPwATDgc/ABMA", "ход Ann, кости 3-1", "пипсы: Ann 167, Bob 167",
           "счёт: Ann 2, Bob 4 (матч до 7)", "куб 2, владелец — Bob", "последний ход: Bob 24/18 13/11"),
    "el": ("Position ID 4HPwATDgc/ABMA", "παίζει Ann με 3-1", "pips: Ann 167, Bob 167",
           "σκορ: Ann 2, Bob 4 (αγώνας στους 7)", "κύβος 2, κάτοχος: Bob", "τελευταία κίνηση: Bob 24/18 13/11"),
    "tr": ("Position ID 4HPwATDgc/ABMA", "sıra Ann, zar 3-1", "pip: Ann 167, Bob 167",
           "skor: Ann 2, Bob 4 (7 puanlık maç)", "küp 2, sahibi Bob", "son hamle: Bob 24/18 13/11"),
}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_a_boards_text_alternative_is_in_the_language_asked_for(lang: str) -> None:
    with i18n.use(lang):
        text = board_text(_board())
        assert render_board(_board(), THEME).alt_text == text
    for part in ALT[lang]:
        assert part in text, (lang, part, text)
    assert board_text(_board()) == board_text(_board()) and "Ann to play 3-1" in board_text(_board())  # English again


BANNERS = {
    "en": ("Bob wins: Ann forfeited the match", "Score: Ann 1, Bob 3 (match to 5)", "cube unavailable ({})"),
    "ru": ("Bob побеждает: Ann — техническое поражение в матче", "Счёт: Ann 1, Bob 3 (матч до 5)",
           "куб недоступен ({})"),
    "el": ("Bob: νίκη — Ann: εγκατάλειψη του αγώνα", "Σκορ: Ann 1, Bob 3 (αγώνας στους 5)",
           "ο κύβος δεν παίζει ({})"),
    "tr": ("Bob kazanır: Ann maçta hükmen yenik", "Skor: Ann 1, Bob 3 (5 puanlık maç)", "küp kullanılamaz ({})"),
}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_the_result_banner_and_the_crawford_tag_speak_the_language(lang: str) -> None:
    ended = snap(
        names=("Ann", "Bob"), on_roll=None, score=(1, 3), match_length=5, cube_unavailable="Crawford",
        result=GameEnd(OPPONENT, 0, "", "forfeit", game=3),
    )  # fmt: skip
    first, second, cube = BANNERS[lang]
    with i18n.use(lang):
        assert result_lines(ended) == (first, second)
        # The reason is the engine's word (engine/match.py gives it translated; both catalogs hold it).
        assert cube.format(i18n.gettext("Crawford")) in board_text(ended)
    team = snap(names=("Ann", "Bob"), team_names=("Foxes", "Owls"), on_roll=None, score=(1, 3), match_length=5,
                result=GameEnd(OPPONENT, 0, "", "forfeit", game=3))  # fmt: skip
    with i18n.use("ru"):
        assert result_lines(team)[0] == "Owls побеждают: Foxes — техническое поражение в матче"  # a team's verb


def test_plurals_come_out_in_every_form() -> None:
    want = {"ru": ("1 очко", "3 очка", "5 очков", "21 очко"), "el": ("1 πόντος", "3 πόντοι", "5 πόντοι", "21 πόντοι"),
            "tr": ("1 puan", "3 puan", "5 puan", "21 puan"), "en": ("1 pt", "3 pts", "5 pts", "21 pts")}  # fmt: skip
    for lang, forms in want.items():
        with i18n.use(lang):
            got = tuple(ngettext("{count} pt", "{count} pts", n).format(count=n) for n in (1, 3, 5, 21))
        assert got == forms, lang
    card = sample_card()
    with i18n.use("ru"):
        text = card_text(card, "#12")
    assert text.startswith("Карточка матча #12 (матч до 7): Konstantinos Papadopoulos-Georgiou 7,")
    assert "18 дублей" in text and "13 дублей" in text and "уровень ошибок: Konstantinos" in text
    assert "попаданий: 14 из 30 (ожидалось 11,2)" in text  # a decimal comma
    with i18n.use("el"):
        assert "18 διπλές" in card_text(card)
    with i18n.use("tr"):
        assert "96 atışta 805 pip (beklenen 784)" in card_text(card)


def test_capitals_follow_the_language() -> None:
    assert caps("Κρόφορντ", "el") == "ΚΡΟΦΟΡΝΤ"  # Greek capitals drop the accent
    assert caps("πρωτεΐνη", "el") == "ΠΡΩΤΕΪΝΗ"  # and keep the diaeresis
    assert caps("Çiftler", "tr") == "ÇİFTLER" and caps("kırık", "tr") == "KIRIK"  # Turkish dotted and dotless i
    assert caps("Crawford", "en") == "CRAWFORD" and caps("Кроуфорд", "ru") == "КРОУФОРД"


def test_a_render_settings_error_speaks_the_language() -> None:
    with i18n.use("ru"), pytest.raises(ThemeError, match=r"^\[render\] compress_level: нужно целое число от 0 до 9"):
        config_from_mapping({"compress_level": 12})
    with pytest.raises(ThemeError, match=r"^\[render\] compress_level must be a whole number from 0 to 9, not 12$"):
        config_from_mapping({"compress_level": 12})


# --- caches --------------------------------------------------------------------------------------------------------
def _forget_everything() -> None:
    """Empty every cache render keeps, as in a fresh process."""
    for module in (sprites, fonts, layout, board_module):
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


LABELLED = {
    "crawford": snap(names=("Ann", "Bob"), match_length=5, score=(4, 2), cube_unavailable="Crawford", pips=(88, 99)),
    "offered": snap(names=("Ann", "Bob"), cube_value=2, cube_owner=VIEWER, cube_offered_by=VIEWER, match_length=9),
    "banner": snap(names=("Ann", "Bob"), on_roll=None, score=(1, 5), match_length=7,
                   result=GameEnd(OPPONENT, 2, "gammon", "pass", game=3)),
    "reserve": snap("24:13 1:-13 in:2/2", names=("Ann", "Bob"), checkers=15),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(LABELLED))
@pytest.mark.parametrize("lang", LANGS)
def test_a_picture_drawn_in_one_language_is_never_handed_out_for_another(lang: str, name: str) -> None:
    s = LABELLED[name]
    _forget_everything()
    with i18n.use(lang):
        fresh = render_board(s, THEME)
    _forget_everything()
    english = render_board(s, THEME)  # fills every cache in English first
    with i18n.use(lang):
        after = render_board(s, THEME)
    assert after.png != english.png and after.alt_text != english.alt_text
    assert after.png == fresh.png and after.alt_text == fresh.alt_text
    assert render_board(s, THEME).png == english.png  # and English is still English


# --- labels fit their boxes ------------------------------------------------------------------------------------------
class _Drawn:
    """Every label a board draws: where, what, at which size and anchor, and the pixels its ink covers."""

    def __init__(self) -> None:
        self.labels: list[tuple[tuple[int, int], str, int, str]] = []

    def box(self, k: int) -> tuple[float, float, float, float]:
        (x, y), text, size, anchor = self.labels[k]
        left, top, right, bottom = fonts.font(size).getbbox(text, anchor=anchor)
        return x + left, y + top, x + right, y + bottom


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Drawn]:
    record = _Drawn()
    original = board_module._text

    def spy(im: Any, xy: tuple[int, int], text: str, colour: Any, size: int, anchor: str) -> None:
        record.labels.append((xy, text, size, anchor))
        original(im, xy, text, colour, size, anchor)

    monkeypatch.setattr(board_module, "_text", spy)
    yield record


def _long_snapshots() -> list[tuple[str, BoardSnapshot]]:
    out = []
    for name, cls in sorted(registry().variants.items()):
        variant = cls()
        for scene, s in scenes(variant) + long_scenes(variant):
            out.append((f"{name}-{scene}", s))
    return out


@pytest.mark.parametrize("lang", ["en", *LANGS])
@pytest.mark.parametrize("theme", [THEME, WIDE], ids=["420", "840"])
def test_no_label_runs_out_of_its_box(lang: str, theme: Theme, drawn: _Drawn) -> None:
    with i18n.use(lang):
        for where, s in _long_snapshots():
            drawn.labels.clear()
            render_image(s, theme)
            L = layout_for(s, theme)
            rows: dict[int, list[tuple[float, float, float, float]]] = {VIEWER: [], OPPONENT: []}
            banner_x = (L.result_rect()[0] + L.result_rect()[2]) // 2
            for k, ((x, y), text, _size, _anchor) in enumerate(drawn.labels):
                x0, y0, x1, y1 = drawn.box(k)
                what = f"{lang} {where}: {text!r} at {(x0, x1)}"
                assert x0 >= 0 and y0 >= 0 and x1 <= L.width and y1 <= L.height, what
                for side in (VIEWER, OPPONENT):
                    top, bottom = L.info_rect(side)[1::2]
                    if top <= (y0 + y1) / 2 <= bottom:
                        rows[side].append((x0, y0, x1, y1))
                if s.result is not None and x == banner_x and L.field_top < y < L.field_bottom:
                    bx0, _by0, bx1, _by1 = L.result_rect()
                    assert bx0 < x0 and x1 < bx1, f"banner: {what}"
                if text.startswith(("doubles", "удваивает", "διπλασιάζει", "küpü")):
                    half = L.left_x if x0 < L.bar_x else L.right_x
                    assert x1 <= half + 6 * L.point_w, f"offered cube label: {what}"
            for side, boxes in rows.items():  # a row's name, match label and pips never touch one another
                boxes.sort()
                for a, b in zip(boxes, boxes[1:]):
                    assert a[2] <= b[0], f"{lang} {where}: row {side} labels overlap: {a} {b}"


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_the_crawford_tag_keeps_its_words_off_the_ends_of_its_plate(lang: str) -> None:
    L = layout_for(snap(), THEME)
    length = 2 * L.bar_clear - max(4, L.d // 6)
    with i18n.use(lang):
        for text in (i18n.gettext("Crawford"), "Crawford " + i18n.gettext("cube unavailable ({reason})")):
            plate = sprites.vertical_label(THEME, caps(text), round(L.bar_w * 0.62), length)
            ink = THEME.rgb("cube text")
            end = max(2, length // 25)  # the plate's rounded ends: no letter reaches them
            for y in [*range(end), *range(length - end, length)]:
                for x in range(plate.width):
                    r, g, b, a = plate.getpixel((x, y))  # type: ignore[misc]
                    assert not (a > 200 and max(abs(r - ink[0]), abs(g - ink[1]), abs(b - ink[2])) < 40), (text, y)


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_the_match_card_and_a_replay_counter_keep_inside_the_picture(
    lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels: list[tuple[float, float, float]] = []
    original = _Canvas.text

    def spy(self: _Canvas, xy: tuple[float, float], text: str, colour: Any, size: float, anchor: str = "la") -> float:
        f = fonts.font(max(6, self.p(size)))
        left, _top, right, _bottom = f.getbbox(text, anchor=anchor)
        labels.append((self.p(xy[0]) + left, self.p(xy[0]) + right, self.im.width))
        return original(self, xy, text, colour, size, anchor)

    monkeypatch.setattr(_Canvas, "text", spy)
    with i18n.use(lang):
        for width in (560, 840):
            labels.clear()
            render_card_image(sample_card(), Theme.build("classic", width=width), title="#12 Backgammon")
            for x0, x1, full in labels:
                assert x0 >= 0 and x1 <= full, (lang, width, x0, x1, full)
        # A replay frame's counter takes at most a third of the caption strip, beside the caption.
        counter = i18n.gettext("play {number} of {total}").format(number=123, total=456)
        assert text_width(counter, max(11, round(THEME.width * 0.024))) < THEME.width / 3


def test_fit_shrinks_then_cuts() -> None:
    text = "Александра Константиновна Ворошилова"
    assert fit(text, 10_000, 20) == (text, 20)
    shown, size = fit(text, text_width(text, 20) - 1, 20, 14)
    assert shown == text and size < 20
    shown, size = fit(text, 60, 20, 14)
    assert size == 14 and shown.endswith("…") and text_width(shown, 14) <= 60
