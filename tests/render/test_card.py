"""The match card (a golden image, and every kind of match drawn) and game replays as GIFs (render.card, render.replay).

The golden card is compared like the golden boards (see test_golden.py, which explains the tolerance); regenerate it
after an intended change of the picture, then look at it, with::

    GAMMONBOT_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_card.py
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import replace as replace_card
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageSequence, ImageStat

from engine import match as m
from engine.analysis import LuckyRoll
from engine.matchcard import (
    CardAnalysis,
    CubeAction,
    DiceLuck,
    EquityPoint,
    GameLine,
    MatchCard,
    SideQuality,
    match_card,
    replay_frames,
)
from engine.plugins import get_variant
from engine.selfplay import play_match
from render.card import MIN_CARD_WIDTH, card_text, render_card, render_card_image
from render.replay import MAX_BYTES, frame_image, render_replay
from render.theme import HIGH_CONTRAST, Theme
from tests.engine.test_matchcard import random_game

GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("GAMMONBOT_REGENERATE_GOLDEN", "") not in ("", "0")
#: Discord's upload limit on a server without boosts.
DISCORD_LIMIT = 8 * 1024 * 1024


def fixed_card() -> MatchCard:
    """A 7-point match with every part of the card: a Crawford game, gammons, cube actions, an analysis."""
    games = (
        GameLine(1, 0, 2, 2, "borne off", 1, (2, 0), plays=40),
        GameLine(2, 1, 2, 1, "pass", 2, (2, 2), plays=22),
        GameLine(3, 0, 4, 2, "resign", 2, (6, 2), plays=35),
        GameLine(4, 1, 1, 1, "borne off", 1, (6, 3), crawford=True, plays=51),
        GameLine(5, 0, 1, 1, "borne off", 1, (7, 3), plays=44),
    )
    cube = (
        CubeAction(2, 0, "double", 2),
        CubeAction(2, 1, "take", 2),
        CubeAction(2, 1, "double", 4),
        CubeAction(2, 0, "pass", 4),
        CubeAction(3, 1, "double", 2),
        CubeAction(3, 0, "take", 2),
    )
    dice = (DiceLuck(96, 805, 18, 30, 14, 11.2, 9), DiceLuck(95, 760, 13, 41, 12, 15.5, 8))
    # Match winning chances over the whole range, 0 to 100% (issue 36: the graph was clipped at +-1 equity).
    equity = tuple(
        EquityPoint(
            1 + min(4, k // 40),
            2.6 * math.sin(k / 9),
            min(1.0, max(0.0, 0.5 + 0.55 * math.sin(k / 23) * math.cos(k / 61))),
            "double" if k % 47 == 5 else "end" if k % 40 == 39 else "",
        )
        for k in range(200)
    )
    analysis = CardAnalysis(
        "bgsage 2-ply",
        "cubeful equity (bgsage 2-ply)",
        True,
        (quality(101, 9, 1, 0.61, 12.5, 0.5, 0.21), quality(99, 17, 4, 1.92, -31.0, -0.5, -0.21)),
        equity,
        LuckyRoll(0, 3, (6, 6), 0.42, True),
        LuckyRoll(1, 2, (2, 1), -0.38),
    )
    return MatchCard(
        variant="Backgammon",
        names=("Ann Example", "Bob"),
        length=7,
        games=games,
        score=(7, 3),
        winner=0,
        over=True,
        dice=dice,
        cube=cube,
        uses_cube=True,
        hitting=True,
        analysis=analysis,
    )


def quality(
    decisions: int,
    errors: int,
    blunders: int,
    lost: float,
    luck: float = 0.0,
    result: float = 0.0,
    adjusted: float = 0.0,
) -> SideQuality:
    return SideQuality(decisions, errors, blunders, lost, 1000 * lost / decisions, luck, 80, result, adjusted)


def test_the_match_card_matches_its_golden_image() -> None:
    im = render_card_image(fixed_card(), Theme.build("classic", width=600), title="#12 Backgammon")
    path = GOLDEN / "match-card.png"
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
    far = ImageStat.Stat(worst).mean[0] / 255
    assert mean < 2.0, f"mean difference {mean:.2f}"
    assert far < 0.01, f"{far:.2%} of the pixels differ clearly"


def test_the_card_says_in_words_what_it_shows() -> None:
    text = card_text(fixed_card(), "#12 Backgammon")
    assert text.startswith("Match card #12 Backgammon (match to 7): Ann Example 7, Bob 3; Ann Example wins")
    assert "Ann Example rolled 805 pips in 96 rolls (expected 784), 18 doubles, hit 14 of 30 shots" in text
    assert "error rates Ann Example 6.0, Bob 19.4" in text and len(text) <= 1024


@pytest.mark.parametrize(
    ("variant", "options", "theme"),
    [
        ("backgammon", m.MatchOptions(games=20, beavers=True), Theme.build("classic", width=320)),
        ("longgammon", m.MatchOptions(length=5), Theme.build("high-contrast", HIGH_CONTRAST, width=840)),
        ("doubles", m.MatchOptions(length=3, cube=False), Theme.build("classic", width=1200)),
    ],
)
def test_every_kind_of_match_makes_a_card(variant: str, options: m.MatchOptions, theme: Theme) -> None:
    final, actions = play_match(get_variant(variant), options, 11)
    card = match_card(final.setup, actions)
    drawn = render_card(card, theme, title="#3")
    im = Image.open(io.BytesIO(drawn.png))
    assert im.size == (drawn.width, drawn.height) == (max(MIN_CARD_WIDTH, theme.width), drawn.height)
    assert 600 < drawn.height < 2.5 * drawn.width and len(drawn.png) < 1_000_000
    assert card.names[0] in drawn.alt_text


def test_a_card_before_any_game_is_finished() -> None:
    setup = m.MatchSetup(get_variant("backgammon"), (("a",), ("b",)), m.MatchOptions(length=3), ("Ann", "Bob"))
    card = match_card(setup, [m.OpeningRoll("a", (3, 1))])
    assert not card.games and not card.over
    render_card_image(card)


def test_a_long_game_replays_as_a_gif_under_discords_limit_one_frame_per_play() -> None:
    final, actions = random_game(0)
    frames = replay_frames(final.setup, actions, 1, names={"ann": "Ann", "bob": "Bob"})
    assert len(frames) > 60  # a long game (tests/engine/test_matchcard.py checks one frame per play)
    movie = render_replay(frames)
    assert len(movie.gif) <= MAX_BYTES < DISCORD_LIMIT
    gif = Image.open(io.BytesIO(movie.gif))
    assert gif.format == "GIF" and sum(1 for _ in ImageSequence.Iterator(gif)) == len(frames) == movie.frames
    assert (gif.width, gif.height) == (movie.width, movie.height)
    # Each stored frame holds only what changed: decoded, every frame is the picture drawn (up to the palette).
    theme = Theme.build("classic", width=movie.width)
    for k in (0, 1, len(frames) // 2, len(frames) - 1):
        gif.seek(k)
        diff = ImageChops.difference(gif.convert("RGB"), frame_image(frames, k, theme))
        assert sum(ImageStat.Stat(diff).mean) / 3 < 3.0, f"frame {k} decodes to another picture"
    assert f"Replay of {len(frames) - 1} plays" in movie.alt_text and "Game 1" in movie.alt_text
    gif.seek(0)
    durations = [gif.info["duration"] for _ in ImageSequence.Iterator(gif)]
    assert durations[0] == 1500 and set(durations[1:-1]) == {1200} and durations[-1] == 4000


def test_a_replay_too_big_for_the_limit_is_drawn_smaller_or_refused() -> None:
    final, actions = random_game(2)
    frames = replay_frames(final.setup, actions, 1)
    big = render_replay(frames, widths=(640,))
    small = render_replay(frames, max_bytes=len(big.gif) - 1, widths=(640, 360))
    assert small.width == 360 and len(small.gif) < len(big.gif)
    with pytest.raises(ValueError, match="bytes even small"):
        render_replay(frames, max_bytes=1000, widths=(360,))
    with pytest.raises(ValueError):
        render_replay([])


def test_each_cube_line_says_what_its_icon_shows_and_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose cube actions are too long for one line goes on over more lines, none cut with "…"; each line's
    cube icon shows the highest value its words name (issue 33, item 11)."""
    import re

    from render import card as card_module

    icons: list[tuple[str, int]] = []
    texts: list[tuple[str, int, float]] = []
    real_cube, real_text = card_module.sprites.cube, card_module._Canvas.text

    def cube(theme: Theme, text: str, size: int, *args: object) -> Image.Image:
        sprite = real_cube(theme, text, size, *args)
        icons.append((text, len(texts)))
        return sprite

    def text(
        self: card_module._Canvas, xy: tuple[float, float], s: str, colour: object, size: float, anchor: str = "la"
    ):  # type: ignore[no-untyped-def]
        texts.append((s, round(xy[1]), self.length(s, size) + xy[0]))
        return real_text(self, xy, s, colour, size, anchor)  # type: ignore[arg-type]

    monkeypatch.setattr(card_module.sprites, "cube", cube)
    monkeypatch.setattr(card_module._Canvas, "text", text)
    long = (
        CubeAction(4, 0, "double", 2),
        CubeAction(4, 1, "beaver", 4),
        CubeAction(4, 0, "raccoon", 8),
        CubeAction(4, 1, "double", 16),
        CubeAction(4, 0, "take", 16),
        CubeAction(4, 0, "double", 32),
        CubeAction(4, 1, "pass", 32),
    )
    card = replace_card(fixed_card(), names=("Alexandra Konstantinopoulou", "Bob"))
    card = replace_card(card, cube=card.cube + long)
    theme = Theme.build("classic", width=MIN_CARD_WIDTH)
    render_card_image(card, theme)
    start = next(i for i, (s, _y, _r) in enumerate(texts) if s == "CUBE")
    end = next(i for i, (s, _y, _r) in enumerate(texts) if s == "PLAY")
    lines = [t for t in texts[start + 1 : end] if not re.fullmatch(r"G\d+", t[0])]
    words = " ".join(s for s, _y, _r in lines)
    assert "…" not in words
    for phrase in ("raccoons to 8", "doubles to 16", "doubles to 32", "Bob passes"):
        assert phrase in words
    for _s, _y, right in lines:
        assert right <= 840 - 28  # inside the panel (in units of an 840-wide card)
    cube_icons = [(value, at) for value, at in icons if start < at <= end]
    assert len(cube_icons) >= 5
    for value, at in cube_icons:
        line = next(s for s, _y, _r in texts[at:end] if not re.fullmatch(r"G\d+", s))
        named = [int(v) for v in re.findall(r"to (\d+)", line)]
        assert named and max(named) == int(value), (value, line)


def test_a_match_resigned_before_any_roll_shows_no_dice_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    """No dice were thrown: the card leaves out the dice section, its footnote and the dice in its text alternative,
    instead of rows of zeros (issue 33, item 10)."""
    from render import card as card_module

    drawn: list[str] = []
    real_text = card_module._Canvas.text

    def text(
        self: card_module._Canvas, xy: tuple[float, float], s: str, colour: object, size: float, anchor: str = "la"
    ):  # type: ignore[no-untyped-def]
        drawn.append(s)
        return real_text(self, xy, s, colour, size, anchor)  # type: ignore[arg-type]

    monkeypatch.setattr(card_module._Canvas, "text", text)
    setup = m.MatchSetup(get_variant("backgammon"), (("a",), ("b",)), m.MatchOptions(length=1), names=("Ann", "Bob"))
    card = match_card(setup, [m.OpeningRoll("a", (3, 1)), m.Resign("a", 1)])
    assert card.over and not any(d.rolls for d in card.dice)
    render_card_image(card, Theme.build("classic", width=MIN_CARD_WIDTH))
    assert "DICE" not in drawn and "PIPS ROLLED" not in drawn and "SHOTS HIT" not in drawn
    assert not any("0 rolls" in s or s.startswith("Dice:") for s in drawn)
    assert "CUBE" in drawn  # the rest of the card is there
    words = card_text(card)
    assert "Bob wins" in words and "rolls" not in words and "shots" not in words


def test_a_replays_text_alternative_counts_plays_and_says_each_caption_once() -> None:
    """0 plays is not "1 picture, one per play", and a one-frame replay's caption is not said twice; captions end
    in one full stop (issue 33, item 12)."""
    from render.replay import replay_text

    setup = m.MatchSetup(get_variant("backgammon"), (("a",), ("b",)), m.MatchOptions(length=1), names=("Ann", "Bob"))
    frames = replay_frames(setup, [m.OpeningRoll("a", (3, 1)), m.Resign("a", 1)], 1)
    assert len(frames) == 1
    text = replay_text(frames)
    assert "one per play" not in text and "1 picture" not in text and "before any play" in text
    assert text.count(frames[0].caption) == 1 and ".." not in text
    final, actions = random_game(0)
    frames = replay_frames(final.setup, actions, 1)
    text = replay_text(frames)
    assert text.startswith(f"Replay of {len(frames) - 1} plays")
    assert text.count(frames[-1].caption) == 1 and ".." not in text
