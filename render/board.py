"""Board pictures: a pure function from a :class:`~engine.snapshot.BoardSnapshot` to a PNG and its text.

* :func:`render_board` returns a :class:`RenderedBoard` (PNG bytes, size, one-line text alternative).
* :func:`render_image` returns the Pillow image itself (tests sample its pixels).

The caller passes everything derived from the rules in the snapshot; this module only draws. The static
board comes from a cache (:func:`render.sprites.static_board`) and is copied, then only what changes is
drawn on the copy: checkers, dice, cube, names, pips, score and the last play (or the play being entered, its used
dice faint), and at the end of a game a banner with its result. No state is shared
between calls except read-only cached images, so any number of worker threads may render at once.

Labels and the text alternative are in the active language (:mod:`engine.i18n`; a worker thread started with
``asyncio.to_thread`` keeps the request's). Every label is measured in the board font and made to fit its box
(:func:`render.canvas.fit`: a smaller size, then an ellipsis), whatever the language's words.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.i18n import _, ngettext
from engine.position import BAR, OFF, POINTS, RESERVE
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot, Colour

from . import sprites
from .canvas import ellipsize, fit, measure, wrap
from .fonts import caps, text_width
from .layout import MAX_BAR_STACK, MAX_STACK, Layout, compute_layout
from .png import SUPPORTED_MODES, write_png
from .text import board_text, cube_reason, match_label, result_lines, rule_set_name, side_label
from .theme import RGB, RenderConfig, Theme, builtin_config

__all__ = [
    "RenderedBoard",
    "render_board",
    "render_image",
    "encode_png",
    "layout_for",
    "default_theme",
    "get_theme",
]


@dataclass(frozen=True, slots=True)
class RenderedBoard:
    """A rendered board: the PNG, its size, and a one-line text alternative for screen readers and logs."""

    png: bytes
    width: int
    height: int
    alt_text: str


@lru_cache(maxsize=1)
def _config() -> RenderConfig:
    return builtin_config()


def default_theme() -> Theme:
    """The renderer's default theme: the built-in ``classic`` (the renderer reads no file; the bot draws in its
    config's themes, :class:`~render.theme.RenderConfig`)."""
    return _config().theme()


def get_theme(name: str | None = None) -> Theme:
    """The built-in theme called ``name`` (the default one when None); ThemeError lists the names."""
    return _config().theme(name)


def layout_for(snapshot: BoardSnapshot, theme: Theme | None = None) -> Layout:
    """The layout a snapshot is drawn with (for tests and for callers that map clicks to points)."""
    t = theme or default_theme()
    return compute_layout(t.width, snapshot.geometry, snapshot.home)


def render_board(
    snapshot: BoardSnapshot,
    theme: str | Theme | None = None,
    *,
    config: RenderConfig | None = None,
    compress_level: int | None = None,
    palette_colors: int | None = None,
) -> RenderedBoard:
    """Draw ``snapshot`` and encode it as PNG. ``theme`` is a Theme, or the name of one of ``config``'s themes (as
    :meth:`~render.theme.RenderConfig.theme_for` picks it: None, "default" or a name it lacks give its default);
    ``config`` (default: the built-in one, :func:`~render.theme.builtin_config`) also gives the PNG settings not
    given here. The bot passes its config's ``[render]`` section."""
    config = config or _config()
    t = theme if isinstance(theme, Theme) else config.theme_for(theme)
    im = render_image(snapshot, t)
    level = config.compress_level if compress_level is None else compress_level
    colors = config.palette_colors if palette_colors is None else palette_colors
    return RenderedBoard(encode_png(im, level, colors), im.width, im.height, board_text(snapshot))


def encode_png(im: Image.Image, compress_level: int = 1, palette_colors: int = 0) -> bytes:
    """PNG bytes of ``im`` at zlib level ``compress_level``; with ``palette_colors`` (2..256) it is first
    reduced to that many colours.

    Full-colour and grey images go through :func:`render.png.write_png` (unfiltered rows: faster and
    smaller than Pillow's encoder for board pictures); palette images and other modes through Pillow,
    which packs small palettes into fewer bits per pixel.
    """
    if palette_colors:
        im = im.quantize(palette_colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    if im.mode in SUPPORTED_MODES:
        return write_png(im, compress_level)
    buf = io.BytesIO()
    im.save(buf, "PNG", compress_level=compress_level)
    return buf.getvalue()


def _colours(s: BoardSnapshot) -> tuple[Colour, Colour]:
    """Checker colours of (viewer, opponent)."""
    return ("light", "dark") if s.viewer_checkers == "light" else ("dark", "light")


def render_image(snapshot: BoardSnapshot, theme: Theme | None = None) -> Image.Image:
    """Draw ``snapshot`` as an RGB image (the static board comes from a cache and is copied)."""
    t = theme or default_theme()
    L = compute_layout(t.width, snapshot.geometry, snapshot.home)
    im = sprites.static_board(t, L).copy()
    draw = ImageDraw.Draw(im)
    colours = _colours(snapshot)
    _draw_info_rows(im, draw, snapshot, t, L, colours)
    moves = snapshot.last_play_for_viewer()
    mover = snapshot.last_play_by
    if moves and mover is not None:
        _draw_play_lines(draw, snapshot, t, L, moves, mover)
    _draw_checkers(im, draw, snapshot, t, L, colours)
    _draw_trays(im, draw, snapshot, t, L, colours)
    if any(snapshot.position.reserve):
        _draw_reserves(im, snapshot, t, L, colours)
    _draw_cube(im, draw, snapshot, t, L)
    _draw_dice(im, snapshot, t, L, colours)
    if moves and mover is not None:
        _draw_play_marks(im, draw, snapshot, t, L, moves, mover, colours)
    if snapshot.result is not None:
        _draw_result(im, snapshot, t, L)
    return im


# --- pieces -------------------------------------------------------------------------------------


def _paste(im: Image.Image, sprite: Image.Image, center: tuple[int, int]) -> None:
    x = center[0] - sprite.width // 2
    y = center[1] - sprite.height // 2
    im.paste(sprite, (x, y), sprite)


def _text(im: Image.Image, xy: tuple[int, int], text: str, colour: RGB, size: int, anchor: str) -> None:
    """``draw.text`` in the board font, from a cached mask (the same pixels, without FreeType)."""
    mask, dx, dy = sprites.text_mask(text, size, anchor)
    im.paste(colour, (xy[0] + dx, xy[1] + dy), mask)


def _count_label(im: Image.Image, t: Theme, L: Layout, colour: Colour, center: tuple[int, int], n: int) -> None:
    _text(im, center, str(n), t.rgb(f"checker {colour} text"), round(L.d * 0.44), "mm")


def _side_stack(s: BoardSnapshot, side: int) -> dict[int, int]:
    """{viewer's point: checkers of ``side``} for the points ``side`` occupies."""
    out: dict[int, int] = {}
    for p in range(1, POINTS + 1):
        v = s.position.board[p - 1]
        if (v > 0 and side == VIEWER) or (v < 0 and side == OPPONENT):
            out[p] = abs(v)
    return out


def _draw_checkers(
    im: Image.Image, draw: ImageDraw.ImageDraw, s: BoardSnapshot, t: Theme, L: Layout, colours: tuple[Colour, Colour]
) -> None:
    room = _stack_room(s, L)
    for p in range(1, POINTS + 1):
        v = s.position.board[p - 1]
        if not v:
            continue
        colour = colours[VIEWER if v > 0 else OPPONENT]
        sprite = sprites.checker(t, colour, L.d)
        n = abs(v)
        base = 0
        if s.position.is_pinned(p):
            # The pinned checker lies at the edge, under its pinners, with a pin's head on it.
            centre = L.checker_center(p, 0)
            _paste(im, sprites.checker(t, colours[OPPONENT if v > 0 else VIEWER], L.d), centre)
            _paste(im, sprites.pin_head(t, colour, L.d), centre)
            base = 1
        shown = min(n, room - base)
        for slot in range(shown):
            _paste(im, sprite, L.checker_center(p, base + slot))
        if n > room - base:
            _count_label(im, t, L, colour, L.checker_center(p, room - 1), n)
    for side in (VIEWER, OPPONENT):
        n = s.position.bar[side]
        if not n:
            continue
        colour = colours[side]
        sprite = sprites.checker(t, colour, L.d)
        shown = min(n, MAX_BAR_STACK)
        for slot in range(shown):
            _paste(im, sprite, L.bar_checker_center(side, slot))
        if n > 1:
            _count_label(im, t, L, colour, L.bar_checker_center(side, shown - 1), n)


def _draw_trays(
    im: Image.Image, draw: ImageDraw.ImageDraw, s: BoardSnapshot, t: Theme, L: Layout, colours: tuple[Colour, Colour]
) -> None:
    slab = L.tray_slab_h(s.checkers)
    pad = max(2, L.d // 12)
    size = round(L.d * 0.4)
    for side in (VIEWER, OPPONENT):
        n = s.position.off[side]
        x0, y0, x1, y1 = L.trays[side]
        top = L.tray_top[side]
        face = t.rgb(f"checker {colours[side]}")
        edge = t.rgb(f"checker {colours[side]} edge")
        for i in range(n):
            ya = y0 + pad + i * slab if top else y1 - pad - (i + 1) * slab
            draw.rectangle((x0 + pad, ya, x1 - pad - 1, ya + slab - 1), fill=face, outline=edge)
        if n:
            label_y = (y0 + pad + n * slab + L.d // 4) if top else (y1 - pad - n * slab - L.d // 4)
            _text(im, ((x0 + x1) // 2, label_y), str(n), t.rgb("text"), size, "mm")


#: Checkers drawn waiting to enter; more show their count on the last one.
MAX_RESERVE = 4


def _reserve_slot(L: Layout, side: int, slot: int) -> tuple[int, int]:
    """Centre of the ``slot``-th checker of ``side`` waiting to enter (0 at the edge of the board)."""
    x0, y0, x1, y1 = L.reserve_rect(side)
    r = L.d // 2
    top = L.tray_top[side]
    y = y0 + L.d // 2 + r + slot * L.d if top else y1 - L.d // 2 - r - slot * L.d
    return (x0 + x1) // 2, y


def _draw_reserves(im: Image.Image, s: BoardSnapshot, t: Theme, L: Layout, colours: tuple[Colour, Colour]) -> None:
    """Each side's checkers waiting to enter, stacked in its reserve column, the count on the last, under "to enter"."""
    size = round(L.d * 0.3)
    for side in (VIEWER, OPPONENT):
        n = s.position.reserve[side]
        if not n:
            continue
        sprite = sprites.checker(t, colours[side], L.d)
        shown = min(n, MAX_RESERVE)
        for slot in range(shown):
            _paste(im, sprite, _reserve_slot(L, side, slot))
        if n > 1:
            _count_label(im, t, L, colours[side], _reserve_slot(L, side, shown - 1), n)
        x0, y0, x1, y1 = L.reserve_rect(side)
        label_y = y0 + L.d // 4 if L.tray_top[side] else y1 - L.d // 4
        # Translators: a short label above checkers waiting to enter the board (Acey-deucey); its column is narrow.
        text, px = fit(_("to enter"), x1 - x0 - 2, size, round(size * 0.75))
        _text(im, ((x0 + x1) // 2, label_y), text, t.rgb("text"), px, "mm")


def _draw_dice(im: Image.Image, s: BoardSnapshot, t: Theme, L: Layout, colours: tuple[Colour, Colour]) -> None:
    rolled = s.dice is not None and s.on_roll is not None
    if s.opening_dice is not None and not rolled:  # once the roll is being played, only its dice show
        for side in (VIEWER, OPPONENT):
            sprite = sprites.die(t, colours[side], s.opening_dice[side], L.die_size)
            _paste(im, sprite, L.dice_centers(side, 1)[0])
    if s.dice is not None and s.on_roll is not None:
        side = s.on_roll
        spent = _spent_dice(s)
        centers = L.dice_centers(side, 2)
        for value, center, used in zip(s.dice, centers, spent):
            make = sprites.spent_die if used else sprites.die
            _paste(im, make(t, colours[side], value, L.die_size), center)
        left = len(s.dice_left())
        if (s.dice_used or s.dice_count is not None) and s.dice[0] == s.dice[1] and left:
            # A doublet being played (or the rest of one handed over): how many of its moves are left.
            x, y = centers[1]
            at = (x + L.die_size // 2 + L.d // 5, y)
            _text(im, at, f"×{left}", t.rgb("accent"), round(L.d * 0.42), "lm")
        if s.stages:
            # A turn of stages (a cascade): the dice of the stages already played, before this stage's dice.
            (x0, y), (x1, _y1) = centers
            done = "  ".join(f"{a}-{b}" for a, b in s.stages)
            at = ((x0 + x1) // 2, y + L.die_size // 2 + L.d // 6)
            _text(im, at, f"{done}  ›  {s.dice[0]}-{s.dice[1]}", t.rgb("text dim"), round(L.d * 0.34), "mt")


def _spent_dice(s: BoardSnapshot) -> tuple[bool, bool]:
    """Which of the two dice a play being entered has used up (a doublet's both once all four moves are made)."""
    if not s.dice_used or s.dice is None:
        return False, False
    if s.dice[0] == s.dice[1]:
        done = not s.dice_left()
        return done, done
    return s.dice[0] in s.dice_used, s.dice[1] in s.dice_used


def _draw_cube(im: Image.Image, draw: ImageDraw.ImageDraw, s: BoardSnapshot, t: Theme, L: Layout) -> None:
    if not s.uses_cube:
        return
    if s.cube_unavailable:
        length = 2 * L.bar_clear - max(4, L.d // 6)
        label = sprites.vertical_label(t, caps(cube_reason(s)), round(L.bar_w * 0.62), length)
        _paste(im, label, (L.bar_center_x, L.mid_y))
        return
    if s.cube_offered_by is not None:
        value = s.cube_value * 2
        sprite = sprites.cube(t, str(value), L.cube_size, t.rgb("accent"))
        cx, cy = L.offered_cube_center(s.cube_offered_by)
        _paste(im, sprite, (cx, cy))
        x = cx + sprite.width // 2 + L.d // 5
        half_x = L.left_x if cx < L.bar_x else L.right_x
        limit = half_x + 6 * L.point_w - L.d // 6 - x  # to the edge of the offerer's half of the board
        size = round(L.d * 0.34)
        text, px = fit(_("doubles to {value}").format(value=value), limit, size, round(size * 0.75))
        _text(im, (x, cy), text, t.rgb("accent"), px, "lm")
        return
    text = str(s.cube_value) if s.cube_owner is not None or s.cube_value > 1 else "64"
    _paste(im, sprites.cube(t, text, L.cube_size), L.cube_center(s.cube_owner))


# --- the result ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Banner:
    """The result banner as it is drawn: its rectangle and its lines (text, size, colour key) in two parts."""

    rect: tuple[int, int, int, int]
    parts: tuple[tuple[list[str], int, str], ...]

    @property
    def one_line_each(self) -> bool:
        return all(len(lines) == 1 for lines, _px, _colour in self.parts)


def _banner(s: BoardSnapshot, L: Layout) -> _Banner:
    """Where the result banner goes and what it says (the checkers are drawn around it: :func:`_stack_room`)."""
    first, second = result_lines(s)
    x0, y0, x1, y1 = L.result_rect()
    limit = x1 - x0 - L.d
    least = round(L.d * 0.3)
    parts = (
        (*_banner_lines(first, limit, round(L.d * 0.5), least), "accent"),
        (*_banner_lines(second, limit, round(L.d * 0.36), least), "text"),
    )
    if not all(len(lines) == 1 for lines, _px, _colour in parts):  # taller, about the middle line
        rows = sum(round(px * 1.3) * len(lines) for lines, px, _colour in parts)
        h = max(y1 - y0, rows + round(L.d * 0.9))
        y0 = L.mid_y - h // 2
        y1 = y0 + h
    return _Banner((x0, y0, x1, y1), parts)


def _stack_room(s: BoardSnapshot, L: Layout) -> int:
    """Checkers drawn on a point: :data:`MAX_STACK`, or fewer when the result banner would cover the outermost
    ones (a taller stack's count goes on the last checker wholly clear of the banner, never under its edge)."""
    if s.result is None:
        return MAX_STACK
    _x0, y0, _x1, y1 = _banner(s, L).rect
    clear = min(y0 - L.field_top, L.field_bottom - y1) // L.d
    return max(1, min(MAX_STACK, clear))


def _draw_result(im: Image.Image, s: BoardSnapshot, t: Theme, L: Layout) -> None:
    """The banner over the middle of the final position: who won the game and how, then the score.

    Each line is drawn in a smaller font if it is too long, down to the size of the name rows' small text; a line
    still too long (long names, a language's longer words) is wrapped onto two lines and the banner grows to hold
    them, and only what does not fit even then is cut with an ellipsis."""
    banner = _banner(s, L)
    x0, y0, x1, y1 = banner.rect
    parts = banner.parts
    one_line_each = banner.one_line_each
    region = im.crop((x0, y0, x1, y1)).convert("RGBA")
    veil = Image.new("RGBA", region.size, (*t.rgb("info"), 240))
    im.paste(Image.alpha_composite(region, veil).convert("RGB"), (x0, y0))
    draw = ImageDraw.Draw(im)
    draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=t.rgb("accent"), width=max(2, L.d // 14))
    cx, h = (x0 + x1) // 2, y1 - y0
    if one_line_each:
        for (lines, px, colour), y in zip(parts, (35, 73)):
            _text(im, (cx, y0 + h * y // 100), lines[0], t.rgb(colour), px, "mm")
        return
    rows = sum(round(px * 1.3) * len(lines) for lines, px, _colour in parts)
    y = y0 + (h - rows) // 2
    for lines, px, colour in parts:
        step = round(px * 1.3)
        for line in lines:
            _text(im, (cx, y + step // 2), line, t.rgb(colour), px, "mm")
            y += step


def _banner_lines(text: str, limit: int, size: int, least: int) -> tuple[list[str], int]:
    """One line of the result banner as it is drawn: on one line at ``size`` or smaller (not below ``least``) if it
    fits, else wrapped onto two lines at the largest size that fits, the rest cut with an ellipsis."""
    shown, px = fit(text, limit, size, least)
    if shown == text:
        return [text], px
    for px in range(size, least - 1, -1):
        lines = wrap(text, limit, measure(px))
        if len(lines) <= 2 and all(text_width(line, px) <= limit for line in lines):
            return lines, px
    lines = wrap(text, limit, measure(least))
    head, rest = lines[0], " ".join(lines[1:])
    return [ellipsize(head, least, limit), ellipsize(rest, least, limit)], least


# --- names, pips, score ---------------------------------------------------------------------------


def _draw_info_rows(
    im: Image.Image,
    draw: ImageDraw.ImageDraw,
    s: BoardSnapshot,
    t: Theme,
    L: Layout,
    colours: tuple[Colour, Colour],
) -> None:
    size = round(L.d * 0.42)
    small = round(L.d * 0.34)
    pad = L.d // 3
    for side in (VIEWER, OPPONENT):
        x0, y0, x1, y1 = L.info_rect(side)
        cy = (y0 + y1) // 2
        if s.on_roll == side:
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=t.rgb("info on roll"))
            draw.rectangle((x0, y0, x0 + max(4, L.d // 8) - 1, y1 - 1), fill=t.rgb("accent"))
        icon = sprites.checker_icon(t, colours[side], round(L.d * 0.62))
        _paste(im, icon, (x0 + pad + icon.width // 2, cy))
        name_x = x0 + pad + icon.width + pad // 2
        # Right: the score and the pips; in the middle: the match (or the rule set), kept clear of the pips and of
        # the room a name needs at least; the name takes what is left.
        pips = ngettext("{count} pip", "{count} pips", s.pips[side]).format(count=s.pips[side])
        score = _score_text(s, side)
        right = f"{score}   {pips}" if score else pips
        right, right_px = fit(right, L.width // 2 - name_x - pad, size, small)
        right_x = x1 - pad - text_width(right, right_px)
        _text(im, (x1 - pad, cy), right, t.rgb("text"), right_px, "rm")
        centre = match_label(s) if side == OPPONENT else rule_set_name(s)
        half = min(L.width / 2 - name_x - 2 * L.d - pad, right_x - pad - L.width / 2)
        # The match (or rule set) label in the name rows' size, as legible as the names on a phone.
        centre, centre_px = fit(centre, 2 * half, size, small)
        centre_w = text_width(centre, centre_px)
        _text(im, (L.width // 2, cy), centre, t.rgb("text dim"), centre_px, "mm")
        limit = int(L.width // 2 - centre_w / 2 - name_x - pad)
        name = _name_label(s, side, size, limit)
        _text(im, (name_x, cy), name, t.rgb("text"), size, "lm")


def _name_label(s: BoardSnapshot, side: int, size: int, limit: float) -> str:
    """A name row's name, at most ``limit`` pixels wide: in team play the team's name is shortened first, so the
    acting member's name (who is to act) stays whole as long as it fits on its own."""
    label = side_label(s, side)
    if s.team_names is None or text_width(label, size) <= limit:
        return ellipsize(label, size, limit)
    member = s.names[side]
    tail = f" · {member}"
    room = limit - text_width(tail, size)
    if room >= text_width("W…", size):
        return ellipsize(s.team_names[side], size, room) + tail
    return ellipsize(member, size, limit)


def _score_text(s: BoardSnapshot, side: int) -> str:
    if s.match_length == 0 and not any(s.score):
        return ""
    n = s.score[side]
    # Translators: a match score in points, abbreviated ("3 pts"), beside the pips in a player's row.
    return ngettext("{count} pt", "{count} pts", n).format(count=n)


# --- the last play ------------------------------------------------------------------------------


def _place(s: BoardSnapshot, L: Layout, side: int, point: int, slot: int) -> tuple[int, int]:
    """Where the ``slot``-th checker of ``side`` on the viewer's ``point`` (25 bar, 0 off, 29 waiting to enter) is
    drawn."""
    if point == RESERVE:
        return _reserve_slot(L, side, min(slot, MAX_RESERVE - 1))
    if point == BAR:
        return L.bar_checker_center(side, min(slot, MAX_BAR_STACK - 1))
    if point == OFF:
        x0, y0, x1, y1 = L.trays[side]
        return (x0 + x1) // 2, (y0 + y1) // 2
    return L.checker_center(point, min(_below(s, side, point) + slot, _stack_room(s, L) - 1))


def _below(s: BoardSnapshot, side: int, point: int) -> int:
    """Slots under ``side``'s checkers on a point: a checker its stack pins, or the other side's (a freed one)."""
    v = s.position.board[point - 1]
    pinned = 1 if s.position.is_pinned(point) else 0
    if not v or (v > 0) == (side == VIEWER):
        return pinned
    return abs(v) + pinned


def _count_of(s: BoardSnapshot, side: int, point: int) -> int:
    if point == RESERVE:
        return s.position.reserve[side]
    if point == BAR:
        return s.position.bar[side]
    if point == OFF:
        return s.position.off[side]
    v = s.position.board[point - 1]
    return abs(v) if (v > 0) == (side == VIEWER) and v else 0


def _net_flow(moves: tuple[tuple[int, int, bool], ...]) -> Counter[int]:
    """Checkers gained (positive) or lost (negative) by each point through the play."""
    flow: Counter[int] = Counter()
    for src, dst, _hit in moves:
        flow[src] -= 1
        flow[dst] += 1
    return flow


def _draw_play_lines(
    draw: ImageDraw.ImageDraw,
    s: BoardSnapshot,
    t: Theme,
    L: Layout,
    moves: tuple[tuple[int, int, bool], ...],
    mover: int,
) -> None:
    """A line for each submove from where the checker was to where it went (drawn under the checkers)."""
    width = max(2, L.d // 12)
    colour = t.rgb("highlight")
    shadow = t.rgb("frame edge")
    flow = _net_flow(moves)
    segments = []
    for src, dst, _hit in moves:
        a = _place(s, L, mover, src, _count_of(s, mover, src))
        # A checker that stayed ends on top of its new stack; one that passed through is drawn just above it.
        n = _count_of(s, mover, dst)
        b = _place(s, L, mover, dst, max(0, n - 1) if flow[dst] > 0 else n)
        segments.append((a, b))
    for a, b in segments:
        draw.line((a, b), fill=shadow, width=width + 2)
    for a, b in segments:
        draw.line((a, b), fill=colour, width=width)


def _draw_play_marks(
    im: Image.Image,
    draw: ImageDraw.ImageDraw,
    s: BoardSnapshot,
    t: Theme,
    L: Layout,
    moves: tuple[tuple[int, int, bool], ...],
    mover: int,
    colours: tuple[Colour, Colour],
) -> None:
    """Faint checkers where checkers left, rings on the checkers that arrived, badges where one hit or pinned (a
    pinner's badge is a pin: the checker under it is held, not captured)."""
    flow = _net_flow(moves)
    landed = {dst for _src, dst, hit in moves if hit}
    pins = {p for p in landed if 1 <= p <= POINTS and s.position.is_pinned(p)}
    hits = landed - pins
    ghost = sprites.ghost(t, colours[mover], L.d)
    ring = sprites.ring(t.rgb("highlight"), L.d)
    hit_ring = sprites.ring(t.rgb("hit"), L.d)
    badge_size = max(10, round(L.d * 0.42))
    badges = {"hit": sprites.hit_badge(t, badge_size), "pin": sprites.pin_badge(t, badge_size)}
    for point, delta in sorted(flow.items()):
        n = _count_of(s, mover, point)
        if point == RESERVE:
            if delta < 0 and n < MAX_RESERVE:  # the checkers that entered, faint where they waited
                for j in range(min(-delta, MAX_RESERVE - n)):
                    _paste(im, ghost, _place(s, L, mover, point, n + j))
            continue
        if point == OFF:
            if delta > 0:
                x0, y0, x1, y1 = L.trays[mover]
                draw.rounded_rectangle(
                    (x0, y0, x1 - 1, y1 - 1), radius=L.d // 8, outline=t.rgb("highlight"), width=max(2, L.d // 14)
                )
            continue
        limit = MAX_BAR_STACK if point == BAR else max(1, _stack_room(s, L) - _below(s, mover, point))
        if delta < 0:
            for j in range(-delta):
                slot = n + j
                if slot < limit:
                    _paste(im, ghost, _place(s, L, mover, point, slot))
        elif delta > 0:
            shown = min(n, limit)
            for j in range(min(delta, shown)):
                _paste(im, hit_ring if point in hits else ring, _place(s, L, mover, point, shown - 1 - j))
    for point in sorted(landed):
        if point in (BAR, OFF):
            continue
        badge = badges["pin" if point in pins else "hit"]
        n = _count_of(s, mover, point)
        cx, cy = _place(s, L, mover, point, max(0, min(n, _stack_room(s, L) - _below(s, mover, point)) - 1))
        r = L.d // 2
        _paste(im, badge, (cx + r - badge.width // 3, cy - r + badge.height // 3))
