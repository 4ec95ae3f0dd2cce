"""Bracket and standings pictures (render.bracket, render.standings): golden images, sizes a phone can read, pages
under Discord's limits for the largest brackets, the theme's colours, and the text versions.

The golden images are compared like the golden boards (see test_golden.py, which explains the tolerance);
regenerate them after an intended change of the picture, then look at them, with::

    GAMMONBOT_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_bracket.py
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from engine.tournament import (
    DeadlineRule,
    Entrant,
    Format,
    How,
    SideFacts,
    Tournament,
    TournamentSpec,
    advance,
    decide,
    disqualify,
    join,
    new_tournament,
    open_matches,
    record_result,
    start,
)
from render.bracket import MAX_PAGE_HEIGHT, bracket_images, bracket_text, render_bracket
from render.standings import render_standings, standings_images, standings_text
from render.theme import HIGH_CONTRAST, Theme

from .helpers import close, pixel

GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("GAMMONBOT_REGENERATE_GOLDEN", "") not in ("", "0")
DISCORD_LIMIT = 8 * 1024 * 1024
#: A phone shows a picture 390 CSS pixels wide; a 26-pixel name must stay at least 11 CSS pixels high.
PHONE = 390
NAMES = ["Alice", "Bob", "Carol", "Dmitri", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj"]


def field(spec: TournamentSpec, n: int) -> Tournament:
    t = new_tournament(spec)
    for i in range(n):
        name = NAMES[i] if i < len(NAMES) else f"Player {i + 1}"
        t = join(t, Entrant(f"p{i}", name, (f"u{i}",), rating=2000.0 - 10 * i))
    return start(t, 0.0)


def play_rounds(t: Tournament, rounds: int) -> Tournament:
    """The higher seed wins 7-k, k the match's place in its round; ``rounds`` rounds, then half of the next."""
    for _ in range(rounds):
        for k, m in enumerate(open_matches(t)):
            assert m.a is not None and m.b is not None
            t = record_result(t, m.id, min(m.a, m.b, key=t.seed), 7, k % 7)
        t = advance(t, 0.0)
        if t.finished:
            return t
    for m in open_matches(t)[: len(open_matches(t)) // 2]:
        assert m.a is not None and m.b is not None
        t = record_result(t, m.id, max(m.a, m.b, key=t.seed), 5, 3)
    return t


def golden_bracket() -> Tournament:
    """Six players, double elimination, after four rounds: byes, a walkover, a deadline decision, an upset,
    a disqualified player, matches being played and places still to be filled."""
    t = field(TournamentSpec(Format.KNOCKOUT, name="Spring Cup", double_elimination=True), 6)
    t = record_result(t, "W1-2", "p3", 7, 2)  # Dmitri beats Eve
    t = record_result(t, "W1-4", "p5", 0, 0, How.WALKOVER)  # Carol does not show up
    t = advance(t)
    decision = decide(DeadlineRule.PIP_COUNT, SideFacts("p0", "Alice", pips=88), SideFacts("p3", "Dmitri", pips=120))
    assert decision.winner == "p0"
    t = record_result(t, "W2-1", "p0", 3, 2, How.DEADLINE, decision.words)
    t = record_result(t, "W2-2", "p5", 7, 6)  # Frank upsets Bob
    t = advance(t)
    t = disqualify(t, "p4")
    return play_rounds(t, 1)


def golden_standings() -> Tournament:
    """Seven players, a Swiss of three rounds, finished: byes, shared ranks, a disqualified player."""
    t = field(TournamentSpec(Format.SWISS, name="Winter Swiss", rounds=3), 7)
    t = play_rounds(t, 1)
    t = disqualify(t, "p6")
    return play_rounds(t, 3)


CASES = {
    "bracket-double-elimination": lambda: bracket_images(golden_bracket())[0],
    "standings-swiss": lambda: standings_images(golden_standings())[0],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_picture_matches_its_golden_image(name: str) -> None:
    im = CASES[name]()
    path = GOLDEN / f"{name}.png"
    if REGENERATE:
        im.save(path, optimize=True)
        pytest.skip(f"regenerated {path.name}")
    assert path.exists(), f"{path} is missing; see this module's docstring to regenerate it"
    golden = Image.open(path).convert("RGB")
    assert golden.size == im.size
    diff = ImageChops.difference(im, golden)
    mean = sum(ImageStat.Stat(diff).mean) / 3
    r, g, b = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b).point(lambda v: 255 if v > 48 else 0)
    assert mean < 2.0, f"{name}: mean difference {mean:.2f}"
    assert ImageStat.Stat(worst).mean[0] / 255 < 0.01, f"{name}: too many pixels differ clearly"


def legible(im: Image.Image) -> bool:
    """A 26-pixel name is at least 11 CSS pixels high when the picture is shown 390 CSS pixels wide."""
    return 26 * PHONE / im.width >= 11 and im.height <= MAX_PAGE_HEIGHT


@pytest.mark.parametrize(
    ("n", "double", "pages"),
    [(2, False, 1), (8, False, 1), (12, False, 1), (64, False, 3), (256, False, 10), (24, True, 3)],
)
def test_brackets_are_cut_into_pages_a_phone_can_read(n: int, double: bool, pages: int) -> None:
    t = play_rounds(field(TournamentSpec(Format.KNOCKOUT, double_elimination=double), n), 1)
    images = bracket_images(t)
    assert len(images) == pages
    assert all(legible(im) for im in images), [im.size for im in images]


def test_a_double_elimination_of_256_shows_any_round_in_ten_pages_or_fewer() -> None:
    t = field(TournamentSpec(Format.KNOCKOUT, double_elimination=True), 256)
    rendered = render_bracket(t, only_round=2)
    assert len(rendered) <= 10
    assert all(p.width <= 920 and p.height <= MAX_PAGE_HEIGHT and len(p.png) < DISCORD_LIMIT for p in rendered)
    assert all("Double elimination bracket" in p.alt_text for p in rendered)
    for r in range(1, t.planned_rounds + 1, 3):
        assert 1 <= len(bracket_images(t, only_round=r)) <= 10


def test_the_pictures_use_the_themes_colours() -> None:
    contrast = Theme.build("high-contrast", HIGH_CONTRAST)
    t = golden_bracket()
    im = bracket_images(t, contrast)[0]
    assert close(pixel(im, (3, 3)), (0, 0, 0), 2)
    im = standings_images(golden_standings(), contrast)[0]
    assert close(pixel(im, (3, 3)), (0, 0, 0), 2)


def test_rendered_pages_are_png_with_alt_text() -> None:
    (page,) = render_bracket(golden_bracket())
    assert page.png.startswith(b"\x89PNG") and Image.open(io.BytesIO(page.png)).size == (page.width, page.height)
    assert page.alt_text.startswith("Double elimination bracket of Spring Cup: Winners' bracket; Losers' bracket")
    (table,) = render_standings(golden_standings())
    assert table.alt_text.startswith("Standings of Winter Swiss. Ranked by score")
    assert len(table.alt_text) <= 1000


def test_a_league_or_swiss_has_no_bracket() -> None:
    with pytest.raises(ValueError, match="only a knockout has a bracket"):
        bracket_images(golden_standings())


def test_the_bracket_as_text() -> None:
    text = bracket_text(golden_bracket(), names={"p1": "Robert"})
    lines = text.splitlines()
    assert lines[0] == "Spring Cup · Double elimination · round 4 of 7"
    assert "Round 1 — Winners 1" in lines
    assert "W1-1  (1) Alice         bye" in lines
    assert "W1-2  (4) Dmitri        7-2  (5) Eve DQ" in lines
    assert lines[lines.index("W1-4  (3) Carol         wo   (6) Frank") + 1] == "      Frank wins: walkover"
    assert lines[lines.index("W2-1  (1) Alice         dl   (4) Dmitri") + 1].endswith("decided at the deadline")
    assert "W2-2  (2) Robert        6-7  (6) Frank" in lines  # names given by the server win
    assert "L3-1  (2) Robert        vs   (3) Carol" in lines
    assert "GF2   loser of GF1      vs   winner of GF1" in lines
    assert max(len(line) for line in lines[1:]) <= 46  # a phone's code block does not wrap
    only = bracket_text(golden_bracket(), rounds=[4])
    assert "Round 1 —" not in only and "Round 4 — Losers 3" in only


def test_league_and_swiss_pairings_as_text() -> None:
    t = golden_standings()
    text = bracket_text(t, rounds=[1])
    assert text.splitlines()[:4] == [
        "Winter Swiss · Swiss · finished · champion Bob",
        "",
        "Round 1",
        "R1-1  (1) Alice         7-0  (4) Dmitri",
    ]
    assert "R1-4  (7) Grace DQ      bye" in text
    league = field(TournamentSpec(Format.ROUND_ROBIN, name="League", divisions=2), 5)
    assert "Round 1 — Division 2" in bracket_text(league, rounds=[1]).splitlines()


def test_the_standings_as_text() -> None:
    text = standings_text(golden_standings())
    lines = text.splitlines()
    assert lines[0] == "Winter Swiss · Swiss · finished"
    assert lines[2].split() == ["#", "Player", "Score", "W-L", "Buch", "MBuch", "+/-"]
    assert lines[-1].startswith("Ranked by score (wins; a bye counts as a win), then Buchholz")
    assert any("Grace DQ" in line for line in lines)
    assert max(len(line) for line in lines[1:-1]) <= 50
