"""The match card: one picture of a whole match, drawn in a board theme's colours (Pillow).

    from render.card import render_card
    card = render_card(match_card(setup, actions), theme, title="#7 Backgammon")   # RenderedCard

From top to bottom: the players (each with their checker) and the final score; the score after every game, as
a chart on the board's cloth; each side's dice (pips rolled, doubles, shots hit and checkers hit, against what
fair dice give); the cube actions, game by game; and, for an analysed match, each side's error rate and the
equity over the match. The figures come from :mod:`engine.matchcard`; this module only draws.

The picture is drawn at twice its size and shrunk, so lines and text are smooth. Pure and thread-safe (run it
in a worker thread); the width is the theme's (at least :data:`MIN_CARD_WIDTH`).

Its words and numbers are in the active language (:mod:`engine.i18n`), and every label that has a box of its own is
measured and fitted to it (a smaller size, then an ellipsis), whatever the language.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image

from engine import i18n
from engine.analysis import LuckyRoll, luck_words
from engine.i18n import _, ngettext, pgettext
from engine.matchcard import CardAnalysis, CubeAction, DiceLuck, MatchCard, rating_words

from . import sprites
from .board import encode_png
from .canvas import Canvas
from .fonts import caps
from .theme import RGB, Theme, builtin_config

__all__ = ["RenderedCard", "MIN_CARD_WIDTH", "render_card", "render_card_image", "card_text"]

#: The narrowest card drawn (a theme's narrower width is widened to this).
MIN_CARD_WIDTH = 560
#: The width every measure below is written for; other widths scale them.
BASE = 840
SS = 2  # drawn at twice the size, then shrunk
M = 28  # outer margin
#: The footnote's size: the card's body size, legible when a card is shown 390 pixels wide on a phone.
FOOTNOTE_SIZE = 14


@dataclass(frozen=True, slots=True)
class RenderedCard:
    """A rendered match card: the PNG, its size and a text alternative."""

    png: bytes
    width: int
    height: int
    alt_text: str


def render_card(
    card: MatchCard, theme: Theme | None = None, *, title: str = "", compress_level: int = 6
) -> RenderedCard:
    """Draw ``card`` and encode it as PNG, with its text alternative (:func:`card_text`)."""
    im = render_card_image(card, theme, title=title)
    return RenderedCard(encode_png(im, compress_level), im.width, im.height, card_text(card, title))


def render_card_image(card: MatchCard, theme: Theme | None = None, *, title: str = "") -> Image.Image:
    """Draw ``card`` as an RGB image."""
    t = theme or builtin_config().theme()
    c = _Canvas(t, max(MIN_CARD_WIDTH, t.width))
    y = _header(c, card, title)
    y = _score_chart(c, card, y)
    if _rolled(card):
        y = _dice(c, card, y)
    if card.uses_cube:
        y = _cube(c, card, y)
    if card.analysis is not None:
        y = _analysis(c, card, card.analysis, y)
    y = _footer(c, card, y)
    return c.finish(y)


# --- drawing in units ----------------------------------------------------------------------------------------
class _Canvas(Canvas):
    """A tall canvas drawn in units of an 840-pixel-wide card, at :data:`SS` times the final size (``shown``
    pixels wide); a label that does not fit is set smaller half a unit at a time."""

    def __init__(self, theme: Theme, width: int) -> None:
        super().__init__(theme, SS * width, SS * width * 4, scale=SS * width / BASE, smallest=6, step=0.5, mode="RGBA")
        self.shown = width

    def paste(self, sprite: Image.Image, centre: tuple[float, float]) -> None:
        x, y = self.p(centre[0]) - sprite.width // 2, self.p(centre[1]) - sprite.height // 2
        self.im.paste(sprite, (x, y), sprite)

    def title(self, y: float, text: str) -> float:
        """A section title; returns where the section's body starts."""
        self.text((M, y), self.fit(caps(text), 13, self.w - 2 * M), self.rgb("accent"), 13)
        return y + 22

    def cloth(self, y0: float, y1: float) -> tuple[float, float, float, float]:
        """A panel in the board's frame and cloth; returns the cloth's inner box (x0, y0, x1, y1)."""
        w = self.shown * SS / self.k
        self.draw.rounded_rectangle(
            self.box(M, y0, w - M, y1),
            radius=self.p(10),
            fill=self.rgb("frame"),
            outline=self.rgb("frame edge"),
            width=max(1, self.p(1.5)),
        )
        inner = (M + 8, y0 + 8, w - M - 8, y1 - 8)
        self.draw.rounded_rectangle(self.box(*inner), radius=self.p(5), fill=self.rgb("field"))
        return inner

    def panel(self, y0: float, y1: float) -> None:
        w = self.shown * SS / self.k
        self.draw.rounded_rectangle(self.box(M, y0, w - M, y1), radius=self.p(10), fill=self.rgb("info"))

    def checker(self, side: int, size: float) -> Image.Image:
        return sprites.checker(self.t, _colour(side), max(4, self.p(size)))

    def finish(self, y: float) -> Image.Image:
        out = self.im.crop((0, 0, self.im.width, self.p(y)))
        return out.resize((self.shown, round(out.height / SS)), Image.Resampling.LANCZOS)

    @property
    def w(self) -> float:
        """The card's width in units."""
        return self.shown * SS / self.k


def _colour(side: int) -> str:
    return "light" if side == 0 else "dark"


def _face(c: _Canvas, side: int) -> RGB:
    return c.rgb(f"checker {_colour(side)}")


def _edge(c: _Canvas, side: int) -> RGB:
    return c.rgb(f"checker {_colour(side)} edge")


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def _line(c: _Canvas, points: list[tuple[float, float]], side: int, width: float) -> None:
    """A player's line: their checker colour with its rim around it, so it shows on any cloth."""
    pts = [(c.p(x), c.p(y)) for x, y in points]
    if len(pts) < 2:
        return
    c.draw.line(pts, fill=_edge(c, side), width=c.p(width + 3), joint="curve")
    c.draw.line(pts, fill=_face(c, side), width=c.p(width), joint="curve")


# --- header --------------------------------------------------------------------------------------------------
def _header(c: _Canvas, card: MatchCard, title: str) -> float:
    what = _("Match to {length}").format(length=card.length) if card.length else _("Money session")
    heading = " · ".join(x for x in (_("Match card"), title, what) if x)
    c.text((c.w / 2, 26), c.fit(caps(heading), 13, c.w - 2 * M), c.rgb("text dim"), 13, "mm")
    top, bottom = 44, 140
    c.panel(top, bottom)
    mid = (top + bottom) / 2
    score = f"{card.score[0]}  –  {card.score[1]}"
    score_w = c.length(score, 46)
    c.text((c.w / 2, mid + 2), score, c.rgb("text"), 46, "mm")
    room = c.w / 2 - score_w / 2 - M - 86
    for side in (0, 1):
        x_icon = M + 40 if side == 0 else c.w - M - 40
        c.draw.ellipse(c.box(x_icon - 27, mid - 27, x_icon + 27, mid + 27), fill=c.rgb("field"))
        c.paste(c.checker(side, 40), (x_icon, mid))
        won = card.winner == side
        ink = c.rgb("text") if won or card.winner is None else c.rgb("text dim")
        name = c.fit(card.names[side], 24, room)
        x = x_icon + 34 if side == 0 else x_icon - 34
        anchor = "ls" if side == 0 else "rs"
        c.text((x, mid + 2), name, ink, 24, anchor)
        tag_room = (c.w / 2 - score_w / 2 - x if side == 0 else x - c.w / 2 - score_w / 2) - 12  # clear of the score
        if won and card.over:
            if card.length:
                tag = _("win the match") if card.teams else _("wins the match")
            else:
                tag = _("win the session") if card.teams else _("wins the session")
            shown, px = c.fitted(caps(tag), 12, tag_room, 9)
            c.text((x, mid + 24), shown, c.rgb("accent"), px, "ls" if side == 0 else "rs")
        elif card.over and card.winner is None and side == 0:
            shown, px = c.fitted(caps(_("a tied session")), 12, tag_room, 9)
            c.text((x, mid + 24), shown, c.rgb("text dim"), px, "ls")
    return bottom + 26


# --- the score over time ---------------------------------------------------------------------------------------
def _score_chart(c: _Canvas, card: MatchCard, y: float) -> float:
    y = c.title(y, _("Score, game by game"))
    if not card.games:
        c.panel(y, y + 44)
        c.text(
            (c.w / 2, y + 22),
            c.fit(_("No game has been finished yet."), 15, c.w - 2 * M - 16),
            c.rgb("text dim"),
            15,
            "mm",
        )
        return y + 44 + 24
    x0, y0, x1, y1 = c.cloth(y, y + 260)
    left, right, top, bottom = x0 + 40, x1 - 26, y0 + 46, y1 - 30
    running = card.running_score()
    peak = max(max(s) for s in running)
    goal = card.length or 0
    top_value = max(goal, peak, 1)
    n = len(card.games)
    grid = _mix(c.rgb("field"), c.rgb("point number"), 0.18)
    ink = c.rgb("point number")

    def gx(k: float) -> float:
        return left + (right - left) * k / n

    def gy(v: float) -> float:
        return bottom - (bottom - top) * v / top_value

    for g in card.games:  # the Crawford game, shaded
        if g.crawford:
            c.draw.rectangle(c.box(gx(g.number - 1), top - 30, gx(g.number), bottom), fill=(*grid, 90))
            # Translators: the Crawford game's column in the score chart (shown in capitals).
            tag, px = c.fitted(caps(pgettext("chart", "Crawford")), 9, gx(1) - gx(0) - 2, 6)
            c.text(((gx(g.number - 1) + gx(g.number)) / 2, top - 22), tag, ink, px, "mm")
    for v in _ticks(top_value):
        c.draw.line((c.p(left), c.p(gy(v)), c.p(right), c.p(gy(v))), fill=grid, width=max(1, c.p(1)))
        if not goal or v != goal:
            c.text((left - 10, gy(v)), str(v), ink, 12, "rm")
    if goal:
        _dashed(c, left, right, gy(goal), c.rgb("accent"))
        c.text((left - 10, gy(goal)), str(goal), c.rgb("accent"), 13, "rm")
    step = max(1, -(-n // 16))
    for k in range(n + 1):
        if k == 0 or k == n or (k % step == 0 and n - k >= step / 2 + 0.5):
            # Translators: the score chart's axis: before the first game, then game 1, 2... (G1: keep it short).
            label = pgettext("chart", "start") if k == 0 else pgettext("chart", "G{number}").format(number=k)
            c.text((gx(k), bottom + 16), label, ink, 11, "mm")
    for side in (1, 0) if card.winner == 0 else (0, 1):
        _line(c, [(gx(k), gy(s[side])) for k, s in enumerate(running)], side, 4)
    size = 22 if n <= 12 else 16 if n <= 24 else 11
    for g in card.games:
        side = g.winner
        cx, cy = gx(g.number), gy(g.score_after[side])
        c.paste(c.checker(side, size), (cx, cy))
        if n <= 24:
            # A game a rule ended (a pinned mother) is no gammon, whatever its level: its points alone.
            label = f"+{g.points}{'' if g.reason in ('rule', 'draw') else _level_mark(g.level)}"
            above = cy - size / 2 - 9
            cubed = g.cube > 1 and n <= 16
            lw = c.length(label, 12) + (20 if cubed else 0)
            x = min(max(cx - lw / 2, left - 20), x1 - 4 - lw)  # the label's left end, inside the cloth
            c.text((x, above), label, c.rgb("text"), 12, "lm")
            if cubed:
                c.paste(sprites.cube(c.t, str(g.cube), max(6, c.p(15))), (x + lw - 8, above))
    return y + 260 + 26


def _level_mark(level: int) -> str:
    """The score chart's mark of a gammon ("G") or a backgammon ("BG") after the points a game scored."""
    if level == 2:
        # Translators: a gammon, abbreviated to one or two letters after the points a game scored ("+2G").
        return pgettext("chart", "G")
    if level == 3:
        # Translators: a backgammon (triple win), abbreviated after the points a game scored ("+3BG").
        return pgettext("chart", "BG")
    return ""


def _ticks(top: int) -> list[int]:
    step = 1
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        step = candidate
        if top / candidate <= 6:
            break
    else:
        step = max(1, top // 5)
    return list(range(0, top + 1, step))


def _dashed(c: _Canvas, x0: float, x1: float, y: float, colour: RGB) -> None:
    x = x0
    while x < x1:
        c.draw.line((c.p(x), c.p(y), c.p(min(x + 8, x1)), c.p(y)), fill=colour, width=max(1, c.p(2)))
        x += 14


# --- dice ------------------------------------------------------------------------------------------------------
def _counted(card: MatchCard, heading: str) -> str:
    """A section's heading, with the games it counts when it counts only a long session's last games."""
    if card.counted_from <= 1 or not card.games:
        return heading
    return _("{heading}: games {first} to {last}").format(
        heading=heading, first=card.counted_from, last=max(card.counted_from, card.games[-1].number)
    )


def _rolled(card: MatchCard) -> bool:
    """Whether any dice were thrown (a match resigned before the first roll has no dice to show)."""
    return any(d.rolls for d in card.dice)


def _shots(card: MatchCard) -> bool:
    """Whether the card has shots to count: a rule set that hits, and some roll thrown while a hit was possible."""
    return card.hitting and any(d.shots for d in card.dice)


def _dice(c: _Canvas, card: MatchCard, y: float) -> float:
    y = c.title(y, _counted(card, _("Dice")))
    a, b = card.dice

    def expected(value: str) -> str:
        return _("expected {value}").format(value=value)

    def of_rolls(luck: DiceLuck) -> str:
        return ngettext("of {count} roll · exp. {expected}", "of {count} rolls · exp. {expected}", luck.rolls).format(
            count=i18n.number(luck.rolls), expected=i18n.decimal(luck.expected_doubles, 1)
        )

    rows: list[tuple[str, tuple[float, float], tuple[str, str], tuple[str, str]]] = [
        (
            _("Pips rolled"),
            (a.pips, b.pips),
            (i18n.number(a.pips), i18n.number(b.pips)),
            (expected(i18n.number(round(a.expected_pips))), expected(i18n.number(round(b.expected_pips)))),
        ),
        (
            _("Doubles"),
            (a.doubles, b.doubles),
            (str(a.doubles), str(b.doubles)),
            (of_rolls(a), of_rolls(b)),
        ),
    ]
    if _shots(card):
        rows.append(
            (
                _("Shots hit"),
                (_rate(a), _rate(b)),
                (f"{a.shots_hit}/{a.shots}", f"{b.shots_hit}/{b.shots}"),
                (expected(i18n.decimal(a.expected_hits, 1)), expected(i18n.decimal(b.expected_hits, 1))),
            )
        )
    if card.hitting:
        rows.append((_("Checkers hit"), (a.hits, b.hits), (str(a.hits), str(b.hits)), ("", "")))
    height = 14 + 72 * len(rows)
    x0, y0, x1, _bottom = c.cloth(y, y + height)
    ink = c.rgb("point number")
    dim = _mix(c.rgb("field"), ink, 0.7)
    for i, (label, values, shown, notes) in enumerate(rows):
        top = y0 + 8 + 72 * i
        # The label between the two sides' figures, and each side's note in its half.
        room = x1 - x0 - 36 - 2 * max(c.length(shown[0], 19), c.length(shown[1], 19)) - 24
        label, px = c.fitted(caps(label), 12, room, 9)
        c.text(((x0 + x1) / 2, top + 10), label, ink, px, "mm")
        c.text((x0 + 18, top + 10), shown[0], ink, 19, "lm")
        c.text((x1 - 18, top + 10), shown[1], ink, 19, "rm")
        _split_bar(c, x0 + 18, x1 - 18, top + 30, values)
        half = (x1 - x0) / 2 - 18 - 8
        c.text((x0 + 18, top + 54), c.fit(notes[0], 11, half), dim, 11, "lm")
        c.text((x1 - 18, top + 54), c.fit(notes[1], 11, half), dim, 11, "rm")
    return y + height + 26


def _rate(luck: DiceLuck) -> float:
    return luck.shots_hit / luck.shots if luck.shots else 0.0


def _split_bar(c: _Canvas, x0: float, x1: float, y: float, values: tuple[float, float]) -> None:
    """One bar shared by the two sides in proportion to their values (half each when both are 0)."""
    total = values[0] + values[1]
    share = values[0] / total if total else 0.5
    h = 12
    mid = x0 + (x1 - x0) * share
    c.draw.rounded_rectangle(c.box(x0 - 1.5, y - 1.5, x1 + 1.5, y + h + 1.5), radius=c.p(7), fill=_edge(c, 1))
    c.draw.rounded_rectangle(c.box(x0, y, x1, y + h), radius=c.p(6), fill=_face(c, 1))
    if share > 0:
        c.draw.rounded_rectangle(c.box(x0 - 1.5, y - 1.5, mid, y + h + 1.5), radius=c.p(7), fill=_edge(c, 0))
        c.draw.rounded_rectangle(c.box(x0, y, max(x0 + 2, mid - 1.5), y + h), radius=c.p(6), fill=_face(c, 0))
    centre = (x0 + x1) / 2
    c.draw.line((c.p(centre), c.p(y - 4), c.p(centre), c.p(y + h + 4)), fill=c.rgb("accent"), width=max(1, c.p(2)))


# --- the cube ----------------------------------------------------------------------------------------------------
#: The most lines the cube section draws (then "… and N more games").
CUBE_ROWS = 10
#: The cube section's text size.
CUBE_SIZE = 14.0


def _cube(c: _Canvas, card: MatchCard, y: float) -> float:
    """The cube actions, a game per line (more lines when its actions do not fit one), each line with a cube showing
    the highest value the line names: the icon and the words always agree, and no action is cut."""
    y = c.title(y, _("Cube"))
    by_game: dict[int, list[CubeAction]] = {}
    for act in card.cube:
        by_game.setdefault(act.game, []).append(act)
    limit = c.w - 2 * M - 110
    # (game on its first line else 0, cube value or 0, text, size, whether the line is a game's)
    rows: list[tuple[int, int, str, float, bool]] = []
    games = sorted(by_game.items())
    for k, (game, acts) in enumerate(games):
        lines = _cube_lines(c, card, acts, limit)
        if len(rows) + len(lines) > CUBE_ROWS - (1 if k < len(games) - 1 else 0):
            more = len(games) - k
            rows.append(
                (
                    0,
                    0,
                    ngettext(
                        "… and {count} more game with cube actions", "… and {count} more games with cube actions", more
                    ).format(count=more),
                    CUBE_SIZE,
                    False,
                )
            )
            break
        rows += [(game if i == 0 else 0, value, text, px, True) for i, (value, text, px) in enumerate(lines)]
    if not rows:
        rows = [(0, 0, _("The cube was never turned."), CUBE_SIZE, False)]
    height = 16 + 26 * len(rows)
    c.panel(y, y + height)
    for i, (game, value, text, px, of_game) in enumerate(rows):
        cy = y + 8 + 26 * i + 13
        if value:
            c.paste(sprites.cube(c.t, str(value), max(6, c.p(18))), (M + 24, cy))
        if game:
            c.text((M + 44, cy), pgettext("chart", "G{number}").format(number=game), c.rgb("accent"), 14, "lm")
        c.text((M + 92 if of_game else M + 24, cy), text, c.rgb("text"), px, "lm")
    return y + height + 26


def _cube_lines(c: _Canvas, card: MatchCard, acts: list[CubeAction], limit: float) -> list[tuple[int, str, float]]:
    """One game's cube actions as lines at most ``limit`` units wide: (the highest value a line names, or 0 when it
    names none; its text; its size). Actions are never split or cut; a single action too long for a line has its
    player's name shortened."""
    phrases: list[tuple[int, str]] = []
    for act in acts:
        names_value = act.action in ("double", "beaver", "raccoon")
        text = _cube_words(act.action, card.names[act.side], act.value, card.teams)
        if c.length(text, CUBE_SIZE) > limit:
            # Only the name is shortened, so the value the icon shows stays in the words.
            rest = c.length(text, CUBE_SIZE) - c.length(card.names[act.side], CUBE_SIZE)
            who = c.fit(card.names[act.side], CUBE_SIZE, max(0.0, limit - rest))
            text = _cube_words(act.action, who, act.value, card.teams)
        phrases.append((act.value if names_value else 0, text))
    return [(value, text, CUBE_SIZE) for value, text in _pack(c, phrases, CUBE_SIZE, limit)]


def _pack(c: _Canvas, phrases: list[tuple[int, str]], px: float, limit: float) -> list[tuple[int, str]]:
    """``phrases`` joined with commas into lines at most ``limit`` units wide at ``px``, greedily."""
    sep = ", "
    lines: list[tuple[int, str]] = []
    value, line = 0, ""
    for v, phrase in phrases:
        trial = f"{line}{sep}{phrase}" if line else phrase
        if line and c.length(trial + sep.rstrip(), px) > limit:
            lines.append((value, line + sep.rstrip()))
            value, line = v, phrase
        else:
            value, line = max(value, v), trial
    if line:
        lines.append((value, line))
    return lines


def _cube_words(action: str, who: str, value: int, team: bool) -> str:
    """A cube action in words: "Ann doubles to 2", "Bob takes" (a team takes the plural verb)."""
    if action == "double":
        text = _("{name} double to {value}") if team else _("{name} doubles to {value}")
    elif action == "take":
        text = _("{name} take") if team else _("{name} takes")
    elif action == "pass":
        text = _("{name} pass") if team else _("{name} passes")
    elif action == "beaver":
        text = _("{name} beaver to {value}") if team else _("{name} beavers to {value}")
    else:
        text = _("{name} raccoon to {value}") if team else _("{name} raccoons to {value}")
    return text.format(name=who, value=value)


# --- analysis ------------------------------------------------------------------------------------------------------
def _analysis(c: _Canvas, card: MatchCard, a: CardAnalysis, y: float) -> float:
    y = c.title(y, _counted(card, _("Play")))
    lucky = a.exact and any(q.rolls for q in a.sides)
    height = 104 if lucky else 84
    c.panel(y, y + height)
    for side in (0, 1):
        q = a.sides[side]
        x = M + 24 if side == 0 else c.w - M - 24
        anchor = "l" if side == 0 else "r"
        rate = i18n.decimal(q.error_rate, 1)
        c.text((x, y + 28), rate, c.rgb("text"), 30, anchor + "m")
        unit = _("error rate (mEMG)") if a.exact else _("error rate (estimate)")
        label_x = x + (c.length(rate, 30) + 10) * (1 if side == 0 else -1)
        room = c.w / 2 - M - 24 - c.length(rate, 30) - 10 - 12  # to the middle of the card
        unit, px = c.fitted(unit, 11, room, 8)
        c.text((label_x, y + 22), unit, c.rgb("text dim"), px, anchor + "m")
        if a.exact and q.decisions:
            c.text((label_x, y + 37), c.fit(rating_words(q.error_rate), 12, room), c.rgb("accent"), 12, anchor + "m")
        detail = " · ".join(
            (
                ngettext("{count} error", "{count} errors", q.errors).format(count=q.errors),
                ngettext("{count} blunder", "{count} blunders", q.blunders).format(count=q.blunders),
                ngettext("{count} decision", "{count} decisions", q.decisions).format(count=q.decisions),
            )
        )
        detail, px = c.fitted(detail, 12, c.w / 2 - M - 24 - 12, 9)
        c.text((x, y + 64), detail, c.rgb("text dim"), px, anchor + "m")
        if lucky:
            luck = _("luck {rate} per roll: {words}").format(
                rate=_signed(q.luck_rate, 1), words=luck_words(q.luck_rate)
            )
            luck, px = c.fitted(luck, 12, c.w / 2 - M - 24 - 12, 9)
            c.text((x, y + 86), luck, c.rgb("text"), px, anchor + "m")
    y += height + 26
    if lucky:
        y = _luck_lines(c, card, a, y)
    if not a.equity:
        return y
    match = a.match_play
    y = c.title(y, _("Match winning chances, turn by turn") if match else _("Equity, turn by turn"))
    room = c.w / 2 - M
    words = _("▲ {first} ahead   ▼ {second} ahead")
    legend = words.format(first=card.names[0], second=card.names[1])
    if c.length(legend, 12) > room:  # long names: each cut to its share, so that both show
        share = max(24.0, (room - c.length(words.format(first="", second=""), 12)) / 2)
        legend = words.format(first=c.fit(card.names[0], 12, share), second=c.fit(card.names[1], 12, share))
    legend, px = c.fitted(legend, 12, room, 9)
    c.text((c.w - M, y - 22), legend, c.rgb("text dim"), px, "ra")
    x0, y0, x1, y1 = c.cloth(y, y + 200)
    left, right, top, bottom = x0 + 40, x1 - 12, y0 + 24, y1 - 12
    mid = (top + bottom) / 2
    ink = c.rgb("point number")
    grid = _mix(c.rgb("field"), ink, 0.18)
    n = len(a.equity)
    if match:
        values = [100.0 * (p.mwc if p.mwc is not None else 0.5) - 50.0 for p in a.equity]
        bound = 50.0
        ticks = [(50.0, "100%"), (0.0, "50%"), (-50.0, "0%")]
    else:
        values = [p.equity for p in a.equity]
        bound = max(1.0, math.ceil(2 * max(abs(v) for v in values)) / 2)  # whole and half units: never clipped
        ticks = [(bound, _signed(bound, 1)), (0.0, "0"), (-bound, _signed(-bound, 1))]

    def ex(i: int) -> float:
        return left + (right - left) * i / max(1, n - 1)

    def ey(v: float) -> float:
        return mid - (bottom - top) / 2 * v / bound

    for value, text in ticks:
        c.draw.line((c.p(left), c.p(ey(value)), c.p(right), c.p(ey(value))), fill=grid, width=max(1, c.p(1)))
        c.text((left - 6, ey(value)), text, ink, 10, "rm")
    first = 0
    for i, point in enumerate(a.equity):
        if i and point.game != a.equity[i - 1].game:
            c.draw.line((c.p(ex(i)), c.p(top - 6), c.p(ex(i)), c.p(bottom)), fill=grid, width=max(1, c.p(1)))
            first = i
        if i == first and (right - left) * 12 / max(1, n) < 400:
            c.text((ex(i) + 4, top - 12), pgettext("chart", "G{number}").format(number=point.game), ink, 10, "lm")
    points = [(ex(i), ey(v)) for i, v in enumerate(values)]
    for side in (0, 1):  # the area on each side's half, in its colour
        clipped = [(x, min(yv, mid) if side == 0 else max(yv, mid)) for x, yv in points]
        poly = [(points[0][0], mid), *clipped, (points[-1][0], mid)]
        c.draw.polygon([(c.p(x), c.p(yv)) for x, yv in poly], fill=(*_face(c, side), 110 if side == 0 else 170))
    c.draw.line((c.p(left), c.p(mid), c.p(right), c.p(mid)), fill=grid, width=max(1, c.p(1.5)))
    c.draw.line([(c.p(x), c.p(yv)) for x, yv in points], fill=c.rgb("accent"), width=c.p(2.5), joint="curve")
    for (x, yv), point in zip(points, a.equity):
        if point.mark == "double":  # a cube: a small square on the line
            c.draw.rectangle(c.box(x - 4, yv - 4, x + 4, yv + 4), fill=c.rgb("text"), outline=c.rgb("field"))
        elif point.mark == "end":
            c.draw.ellipse(c.box(x - 3, yv - 3, x + 3, yv + 3), fill=c.rgb("accent"))
    y = y1 + 8 + 6
    key = _("■ a double   ● a game's end")
    key, px = c.fitted(key, 11, c.w - 2 * M, 8)
    c.text((M, y), key, c.rgb("text dim"), px)
    return y + 16 + 20


def _signed(value: float, places: int) -> str:
    """A number with its sign ("+12.3", "-0.5"), in the active language's digits."""
    text = i18n.decimal(abs(value), places)
    return ("+" if value >= 0 else "-") + text


def _roll_words(card: MatchCard, roll: LuckyRoll) -> str:
    """ "game 3, Ann: 6-6 from the bar, +0.42" (the luck in equity for the roller)."""
    dice = f"{max(roll.dice)}-{min(roll.dice)}"
    fields = {"game": roll.game, "name": card.names[roll.side], "dice": dice, "luck": _signed(roll.luck, 2)}
    if roll.from_bar:
        return _("game {game}, {name}: {dice} from the bar, {luck}").format(**fields)
    return _("game {game}, {name}: {dice}, {luck}").format(**fields)


def _luck_lines(c: _Canvas, card: MatchCard, a: CardAnalysis, y: float) -> float:
    """The luck-adjusted results and the luckiest and unluckiest rolls, in words."""
    lines = []
    match = card.length > 0
    for side in (0, 1):
        q = a.sides[side]
        if match:
            result, adjusted = _signed(100 * q.result, 1) + "%", _signed(100 * q.luck_adjusted, 1) + "%"
        else:
            result, adjusted = _signed(q.result, 2), _signed(q.luck_adjusted, 2)
        lines.append(
            _("{name}: result {result}, luck-adjusted {adjusted}").format(
                name=card.names[side], result=result, adjusted=adjusted
            )
        )
    if a.luckiest is not None:
        lines.append(_("Luckiest roll: {roll}").format(roll=_roll_words(card, a.luckiest)))
    if a.unluckiest is not None:
        lines.append(_("Unluckiest roll: {roll}").format(roll=_roll_words(card, a.unluckiest)))
    for line in lines:
        text, px = c.fitted(line, 13, c.w - 2 * M, 9)
        c.text((M, y), text, c.rgb("text"), px)
        y += 20
    return y + 16


# --- footer ----------------------------------------------------------------------------------------------------------
def _footer(c: _Canvas, card: MatchCard, y: float) -> float:
    notes: list[str] = []
    if _rolled(card):
        notes.append(
            _("Dice: the rolls each side threw (opening throws not counted); a doublet's pips count four times.")
        )
    if _rolled(card) and _shots(card):
        notes.append(
            _(
                "A shot is a roll made while some roll could hit; it is hit when the roll thrown could hit, "
                "whether or not the player did."
            )
        )
    if card.analysis is not None:
        a = card.analysis
        if a.exact:
            note = _(
                "Analysis by {analyst}: {label}. Error rate: equity lost per decision, in thousandths of a money "
                "game (mEMG), counted as GNU Backgammon counts: unforced moves and close or actual cube decisions; "
                "an error loses 0.08 or more, a blunder 0.16; its words: under 2 Supernatural, 5 World class, "
                "8 Expert, 12 Advanced, 18 Intermediate, 26 Casual player, 35 Beginner. Luck: what a roll gave "
                "against the average roll, per roll, in mEMG."
            )
        else:
            note = _(
                "Analysis by {analyst}: {label} (a heuristic's estimates, not equities). "
                "Error rate: equity lost per decision, in thousandths."
            )
        notes.append(note.format(analyst=a.analyst, label=a.label))
    lines: list[str] = []
    for note in notes:
        lines += c.wrap(note, FOOTNOTE_SIZE, c.w - 2 * M)
    for line in lines:
        c.text((M, y), line, c.rgb("text dim"), FOOTNOTE_SIZE)
        y += round(FOOTNOTE_SIZE * 1.45)
    return y + 14


# --- text ------------------------------------------------------------------------------------------------------------
def card_text(card: MatchCard, title: str = "") -> str:
    """The card in words, for screen readers (Discord's image description holds 1,024 characters), in the active
    language."""
    a, b = card.names
    what = _("match to {length}").format(length=card.length) if card.length else _("money session")
    fields = {"what": what, "title": title, "first": a, "first_score": card.score[0], "second": b}
    fields["second_score"] = card.score[1]
    if title:
        head = _("Match card {title} ({what}): {first} {first_score}, {second} {second_score}").format(**fields)
    else:
        head = _("Match card ({what}): {first} {first_score}, {second} {second_score}").format(**fields)
    if card.over and card.winner is not None:
        won = _("{name} win") if card.teams else _("{name} wins")
        head += "; " + won.format(name=card.names[card.winner])
    elif card.over:
        head += "; " + _("tied")
    parts = [head]
    if card.counted_from > 1:
        parts.append(_("dice, cube and play of games {first} and later").format(first=card.counted_from))
    if card.games:
        games = ", ".join(
            _("{number} {name} +{points} ({how})").format(
                number=g.number, name=card.names[g.winner], points=g.points, how=g.how
            )
            for g in card.games[:12]
        )
        parts.append(_("games: {games}").format(games=games))
    for side in (0, 1) if _rolled(card) else ():
        d = card.dice[side]
        text = _("{name} rolled {pips} pips in {rolls} rolls (expected {expected})").format(
            name=card.names[side], pips=i18n.number(d.pips), rolls=i18n.number(d.rolls),
            expected=i18n.number(round(d.expected_pips)),
        )  # fmt: skip
        text += ", " + ngettext("{count} double", "{count} doubles", d.doubles).format(count=d.doubles)
        if _shots(card):
            text += ", " + _("hit {hit} of {shots} shots (expected {expected})").format(
                hit=d.shots_hit, shots=d.shots, expected=i18n.decimal(d.expected_hits, 1)
            )
        parts.append(text)
    if card.analysis is not None:
        q = card.analysis.sides
        parts.append(
            _("error rates {first} {first_rate}, {second} {second_rate}").format(
                first=a,
                first_rate=i18n.decimal(q[0].error_rate, 1),
                second=b,
                second_rate=i18n.decimal(q[1].error_rate, 1),
            )
        )
    return "; ".join(parts)[:1024]
