"""Golden images: a few fixed boards compared with stored PNGs, with a tolerance.

The tolerance absorbs small anti-aliasing differences between Pillow/FreeType builds, not layout changes:
at most 1% of the pixels may differ by more than 48 on some channel, and the mean difference must stay
under 2 levels.

To regenerate after an intended change of the picture (then look at the files before committing them)::

    GAMMONBOT_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_golden.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot, GameEnd
from render.board import render_image
from render.theme import HIGH_CONTRAST, Theme

from .helpers import ROTATED, snap

GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("GAMMONBOT_REGENERATE_GOLDEN", "") not in ("", "0")
WIDTH = 420

CASES: dict[str, tuple[BoardSnapshot, Theme]] = {
    "mirrored-hit-cube": (
        snap(
            "24:1 19:-5 18:-1 17:-3 13:5 12:-4 8:3 6:5 1:-2 bar:1/0",
            names=("Ann", "Bob"),
            pips=(180, 160),
            on_roll=VIEWER,
            dice=(5, 2),
            cube_value=2,
            cube_owner=OPPONENT,
            score=(1, 3),
            match_length=5,
            last_play=((13, 7, True),),
            last_play_by=OPPONENT,
        ),
        Theme.build("classic", width=WIDTH),
    ),
    "rotated-bearoff-left": (
        snap(
            "3:2 1:1 15:-6 14:-2 13:-6 off:12/1",
            geometry=ROTATED,
            names=("Ann", "Bob"),
            pips=(7, 28),
            on_roll=OPPONENT,
            dice=(6, 6),
            home="left",
            cube_unavailable="Crawford",
            match_length=7,
            score=(6, 3),
            last_play=((2, 0, False), (1, 0, False)),
            last_play_by=VIEWER,
        ),
        Theme.build("classic", width=WIDTH),
    ),
    "teams-offered-contrast": (
        snap(
            "24:2 19:-5 17:-3 13:4 12:-5 8:3 6:5 5:1 1:-2",
            names=("Ann", "Cy"),
            team_names=("Foxes", "Owls"),
            pips=(167, 167),
            on_roll=OPPONENT,
            cube_value=2,
            cube_owner=OPPONENT,
            cube_offered_by=OPPONENT,
            match_length=11,
            score=(5, 7),
            viewer_checkers="dark",
        ),
        Theme.build("high-contrast", HIGH_CONTRAST, width=WIDTH),
    ),
    # The end of a game in a match that goes on: the final position (the opponent's last checkers borne off) under
    # the result banner.
    "result-banner": (
        snap(
            "24:1 13:4 8:4 6:6 off:0/15",
            names=("Ann", "Bob"),
            pips=(137, 0),
            on_roll=None,
            cube_value=2,
            cube_owner=VIEWER,
            score=(1, 5),
            match_length=7,
            last_play=((2, 0, False), (1, 0, False)),
            last_play_by=OPPONENT,
            result=GameEnd(OPPONENT, 4, "gammon", "borne off", game=3),
        ),
        Theme.build("classic", width=WIDTH),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_board_matches_its_golden_image(name: str) -> None:
    snapshot, theme = CASES[name]
    im = render_image(snapshot, theme)
    path = GOLDEN / f"{name}.png"
    if REGENERATE:
        GOLDEN.mkdir(exist_ok=True)
        im.save(path, optimize=True)
        pytest.skip(f"regenerated {path.name}")
    assert path.exists(), f"{path} is missing; see this module's docstring to regenerate it"
    golden = Image.open(path).convert("RGB")
    assert golden.size == im.size
    diff = ImageChops.difference(im, golden)
    mean = sum(ImageStat.Stat(diff).mean) / 3
    r, g, b = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b).point(lambda v: 255 if v > 48 else 0)
    far = ImageStat.Stat(worst).mean[0] / 255
    assert mean < 2.0, f"{name}: mean difference {mean:.2f}"
    assert far < 0.01, f"{name}: {far:.2%} of the pixels differ clearly"
