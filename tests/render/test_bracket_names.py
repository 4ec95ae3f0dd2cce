"""Pictures that fit real names: a name of up to 32 characters in any script fits its bracket box (smaller, or on two
lines) instead of being cut; characters the board font lacks (Chinese, Japanese, Korean, emoji) are drawn by a
fallback font, never as empty boxes, while text the board font has is drawn exactly as before; page labels stay
whole on a narrow page; the losers' bracket of a double elimination with byes leaves out its empty matches."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont

from engine.tournament import Bracket, Entrant, Format, TournamentSpec, join, new_tournament, start
from render import bracket, canvas
from render.bracket import BOX_W, Canvas, bracket_images
from render.fonts import FALLBACK_PATHS, FONT_PATH, covered, font
from render.theme import builtin_config

LONG = [
    "Alexandra Konstantinopoulou-Smythe",
    "Дмитрий Александрович Соколов",
    "Εμμανουήλ Παπαδημητρίου-Ζαχαρία",
    "王小明王小明王小明王小明王小明王小明",
    "田中太郎と山田花子の大冒険チーム",
    "김민준 김서연 박지훈 이수빈 최지우",
    "ChristopherAlexanderMontgomery99",
    "Guðmundur Sigurðsson 🎲😀 Ólafsson",
]
#: The name's room in a box of a bracket picture (the box, less the seed, the score and a margin).
ROOM = BOX_W - 42 - 46 - 10


@pytest.mark.parametrize("name", LONG)
def test_a_name_of_32_characters_fits_its_box_whole(name: str) -> None:
    c = Canvas(builtin_config().theme(), 400, 100)
    lines = c.name((0, 50), name[:32], (255, 255, 255), ROOM)
    assert not any("…" in line for line in lines), lines
    assert "".join(lines).replace(" ", "") == name[:32].replace(" ", "")
    assert all(font(canvas.NAME_TWO_LINES).getlength(line) <= ROOM for line in lines)


def test_a_long_name_breaks_between_words_or_after_a_hyphen() -> None:
    c = Canvas(builtin_config().theme(), 400, 100)
    assert c.name((0, 50), "Tatiana Romanova-Dostoevskaya", (255, 255, 255), ROOM) == [
        "Tatiana Romanova-",
        "Dostoevskaya",
    ]
    assert c.name((0, 50), "Maximilian von Hohenzollern-Ab", (255, 255, 255), ROOM) == [
        "Maximilian von",
        "Hohenzollern-Ab",
    ]


def test_a_short_name_stays_on_one_line_at_full_size() -> None:
    c = Canvas(builtin_config().theme(), 400, 100)
    assert c.name((0, 50), "Alice", (255, 255, 255), ROOM) == ["Alice"]


def _ink(text: str, f: ImageFont.FreeTypeFont) -> Image.Image:
    im = Image.new("L", (200, 60), 0)
    ImageDraw.Draw(im).text((10, 30), text, fill=255, font=f, anchor="lm")
    return im


@pytest.mark.parametrize("char", ["王", "明", "ア", "김", "🐉", "🎲"])
def test_characters_the_board_font_lacks_are_drawn_by_a_fallback_not_as_boxes(char: str) -> None:
    assert ord(char) not in covered(FONT_PATH)
    assert any(ord(char) in covered(path) for path in FALLBACK_PATHS)
    plain = ImageFont.truetype(str(FONT_PATH), 30, layout_engine=ImageFont.Layout.BASIC)
    box = _ink(char, plain)  # DejaVu alone draws its empty box
    drawn = _ink(char, font(30))
    assert ImageChops.difference(box, drawn).getbbox() is not None
    assert drawn.getbbox() is not None and font(30).getlength(char) > 0


def test_text_the_board_font_has_is_drawn_exactly_as_before() -> None:
    plain = ImageFont.truetype(str(FONT_PATH), 26, layout_engine=ImageFont.Layout.BASIC)
    for text in ("Alice 7-3", "Дмитрий", "Ωμέγα", "Öztürk Çağlayan"):
        assert ImageChops.difference(_ink(text, plain), _ink(text, font(26))).getbbox() is None
        assert font(26).getbbox(text, anchor="lm") == plain.getbbox(text, anchor="lm")


def test_mixed_text_is_measured_and_anchored_as_one_line() -> None:
    f = font(26)
    whole = f.getlength("Ann 王 😀")
    assert whole == pytest.approx(f.getlength("Ann ") + f.getlength("王") + f.getlength(" ") + f.getlength("😀"))
    left, _top, right, _bottom = f.getbbox("Ann 王", anchor="rm")
    assert right <= 1 and left < -whole / 2  # right-anchored: the text ends at the anchor


def test_the_page_label_stays_whole_on_a_narrow_page() -> None:
    c = Canvas(builtin_config().theme(), 600, 120)
    seen: list[str] = []
    original = c.text
    c.text = lambda xy, text, colour, size, anchor="la": (seen.append(text), original(xy, text, colour, size, anchor))
    sub = "Double elimination · round 12 of 13 · champion Alexandra Konstantinopoulou · page 2 of 2"
    bracket.page_title(c, "Cup", sub)
    assert seen[-1].endswith("· page 2 of 2") and "…" in seen[-1]


def test_the_losers_bracket_leaves_out_matches_nobody_will_play() -> None:
    t = new_tournament(TournamentSpec(Format.KNOCKOUT, double_elimination=True))
    for i in range(17):
        t = join(t, Entrant(f"p{i}", f"Player {i + 1}", (f"u{i}",), rating=2000.0 - i))
    t = start(t, 0.0)
    shown = [m for s in bracket._sections(t) for col in s.columns for m in col.matches]
    losers_one = [m for m in shown if m.bracket is Bracket.LOSERS and m.stage == 1]
    # 32 places, 17 players: 15 byes in winners' round 1, so 7 of the 8 matches of losers' round 1 get nobody
    assert len([m for m in t.matches if m.bracket is Bracket.LOSERS and m.stage == 1]) == 8
    assert len(losers_one) == 1
    assert all(m.a is not None or m.b is not None or not bracket._hidden(t, m) for m in shown)
    assert len(bracket_images(t)) == 3


def test_the_standings_draw_names_of_32_characters_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The standings table's names shrink or wrap like the bracket's, instead of being cut with "…"."""
    from render.standings import render_standings

    t = new_tournament(TournamentSpec(Format.SWISS, name="Names", rounds=3))
    for i, name in enumerate(LONG):
        t = join(t, Entrant(f"p{i}", name[:32], (f"u{i}",), rating=2000.0 - i))
    t = start(t, 0.0)
    drawn: list[str] = []
    original = Canvas.text

    def text(self: Canvas, xy: tuple[float, float], words: str, *args: object, **kw: object) -> None:
        drawn.append(words)
        original(self, xy, words, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Canvas, "text", text)
    render_standings(t, title="Names")
    joined = "".join(drawn).replace(" ", "")
    for name in LONG:
        assert name[:32].replace(" ", "") in joined, (name, drawn)
    assert not any("…" in words for words in drawn), drawn
