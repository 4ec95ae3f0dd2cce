"""Knockout brackets as pictures (Pillow) and as text, drawn in a board theme's colours.

    pages = render_bracket(tournament, theme, names={"p1": "Alice"})   # tuple of RenderedPage (PNG + alt text)
    text = bracket_text(tournament)                                     # the same, as a monospace listing

A page is sized for a phone: at most :data:`MAX_COLUMNS` rounds side by side (about 920 pixels wide, so a
name stays about 12 CSS pixels high on a 390-pixel screen) and at most :data:`MAX_ROWS` matches in its first
column. A large bracket is cut into bands of rounds, each band into parts of the first column with everything
those parts feed; the parts are then packed onto pages no taller than :data:`MAX_PAGE_HEIGHT`. A double
elimination draws the winners' bracket, then the losers' bracket, then the grand final (and its reset).
A knockout of up to 256 players fits in 10 pages, Discord's limit of attachments on one message; a double
elimination of more than 64 needs more, and ``only_round`` then draws the parts where a round is played.

Pure and thread-safe (run it in a worker thread). Names come from the tournament, or from ``names`` (entrant
id -> name) when the server calls its players otherwise.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PIL import Image

from engine import i18n
from engine.i18n import N_, _, ngettext, pgettext
from engine.tournament import (
    Bracket,
    Format,
    How,
    Match,
    Result,
    Status,
    Tournament,
    bracket_size,
    champion,
    note_words,
)

from .board import encode_png
from .canvas import Canvas, measure, wrap
from .fonts import text_width
from .theme import RGB, Theme, builtin_config

__all__ = [
    "MAX_COLUMNS",
    "MAX_PAGE_HEIGHT",
    "MAX_ROWS",
    "RenderedPage",
    "bracket_images",
    "bracket_text",
    "format_words",
    "kind_words",
    "page_words",
    "render_bracket",
    "round_title",
    "tag",
    "tag_words",
]

MAX_COLUMNS = 3
MAX_ROWS = 16
MAX_PAGE_HEIGHT = 2000
MARGIN = 20
BOX_W = 270
LINE_H = 42
BOX_H = 2 * LINE_H
PITCH = BOX_H + 22
GAP = 34
HEAD_H = 44
SECTION_H = 46
TITLE_H = 86
FOOT_H = 44
#: Each further line of a legend that needs more than one (a language with longer words).
FOOT_LINE = 24
NAME_SIZE = 26
SMALL = 19
#: What a result that was not played shows instead of points, with the legend's words (in English: :func:`tag` and
#: :func:`tag_words` give them in the active language).
TAGS = {
    How.WALKOVER: ("wo", "walkover"),
    How.DEADLINE: ("dl", "decided at the deadline"),
    How.ADMIN: ("adm", "an admin's decision"),
}


def tag(how: How) -> str:
    """The short tag of a result that was not played, in the active language."""
    if how is How.WALKOVER:
        # Translators: short tag of a walkover in a bracket's score column (at most 3 or 4 letters).
        return pgettext("result tag", "wo")
    if how is How.DEADLINE:
        # Translators: short tag of a match decided at the round's deadline, in a bracket's score column (3-4 letters).
        return pgettext("result tag", "dl")
    # Translators: short tag of a match an admin decided, in a bracket's score column (3 or 4 letters).
    return pgettext("result tag", "adm")


def tag_words(how: How) -> str:
    """What that tag means, in the active language."""
    if how is How.WALKOVER:
        return pgettext("result tag", "walkover")
    if how is How.DEADLINE:
        return pgettext("result tag", "decided at the deadline")
    return pgettext("result tag", "an admin's decision")


# --- the tournament's format in words: the one place (the service's sentences use format_words too) -------------
def format_words(fmt: Format) -> str:
    """A format as sentences call it, in the active language: knockout, Swiss, league."""
    if fmt is Format.KNOCKOUT:
        return pgettext("tournament format", "knockout")
    if fmt is Format.SWISS:
        return pgettext("tournament format", "Swiss")
    return pgettext("tournament format", "league")


def kind_words(t: Tournament) -> str:
    """The tournament's format as a title, in the active language: Knockout, Double elimination, League, Swiss."""
    if t.spec.double_elimination:
        return pgettext("format title", "Double elimination")
    if t.spec.format is Format.KNOCKOUT:
        return pgettext("format title", "Knockout")
    if t.spec.format is Format.ROUND_ROBIN:
        return pgettext("format title", "League")
    return pgettext("format title", "Swiss")


def page_words(page: int, pages: int) -> str:
    """ " · page 2 of 3" after a title (nothing for a single page)."""
    return " · " + _("page {page} of {pages}").format(page=page, pages=pages) if pages > 1 else ""


@dataclass(frozen=True, slots=True)
class RenderedPage:
    """One picture: the PNG, its size, a text alternative (for Discord's alt text) and the page's title."""

    png: bytes
    width: int
    height: int
    alt_text: str
    title: str


# --- shared drawing (the standings table uses it too) -------------------------------------------------------
def page_title(c: Canvas, heading: str, sub: str) -> None:
    """The heading at the top of a page, and under it ``sub`` ("Swiss · round 2 of 4 · page 2 of 3"): set smaller
    when it is long, and cut short before its last part, so that the page label stays whole."""
    c.text((MARGIN, 18), c.fit(heading, 34, c.width - 2 * MARGIN), c.rgb("text"), 34)
    room = c.width - 2 * MARGIN
    fitted, size = c.fitted(sub, SMALL + 2, room, 16)
    if fitted != sub and " · " in sub:
        head, tail = sub.rsplit(" · ", 1)
        tail = " · " + tail
        fitted = c.fit(head, size, max(room / 3, room - c.length(tail, size))) + tail
        fitted = c.fit(fitted, size, room)
    c.text((MARGIN, 60), fitted, c.rgb("text dim"), size)


def page_footer(c: Canvas, words: str | list[str], y: float) -> None:
    """The legend under a page: one line, or the lines of :func:`legend_lines`."""
    for k, line in enumerate([words] if isinstance(words, str) else words):
        line, size = c.fitted(line, SMALL, c.width - 2 * MARGIN, 15)
        c.text((MARGIN, y + 12 + k * FOOT_LINE), line, c.rgb("text dim"), size)


def legend_lines(words: str, width: int, most: int = 3) -> list[str]:
    """A legend ("a · b · c") in lines for a page ``width`` wide: one line when it fits, set down to 15 pixels; else
    cut at its " · " into at most ``most`` lines (the last one is cut short if it must be)."""
    room = width - 2 * MARGIN
    if text_width(words, 15) <= room:
        return [words]
    return wrap(words, room, measure(SMALL), sep=" · ", most=most)


def capitals(text: str) -> str:
    """``text`` in capitals as the active language writes them: Greek capitals drop their accents, Turkish i is İ."""
    if i18n.language() == "tr":
        text = text.replace("i", "İ")
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", text.upper()).replace("\u0301", ""))


def outline(c: Canvas) -> RGB | None:
    """An edge for panels when the theme's panel colour is its background's (high contrast), else None."""
    a, b = c.rgb("info"), c.rgb("background")
    return mix(a, c.rgb("text dim"), 0.5) if sum(abs(x - y) for x, y in zip(a, b)) < 24 else None


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def pack(heights: Sequence[int], limit: int) -> list[list[int]]:
    """Indices of ``heights`` packed in order onto pages of at most ``limit`` (a taller item gets a page)."""
    pages: list[list[int]] = []
    used = 0
    for i, h in enumerate(heights):
        if pages and used + h <= limit:
            pages[-1].append(i)
            used += h
        else:
            pages.append([i])
            used = h
    return pages


def status_line(t: Tournament, what: str) -> str:
    """ "Knockout · round 2 of 4", "Swiss · finished", with "paused" when it is (in the active language)."""
    if t.status is Status.SIGNUP:
        n = len(t.entrants)
        state = _("sign-ups open") + " · " + ngettext("{count} entrant", "{count} entrants", n).format(count=n)
    elif t.status is Status.FINISHED:
        state = pgettext("tournament status", "finished")
    else:
        state = _("round {round} of {rounds}").format(round=t.round, rounds=t.planned_rounds)
        state += " · " + pgettext("tournament status", "paused") if t.paused else ""
    return f"{what} · {state}"


def entrant_name(t: Tournament, entrant: str, names: Mapping[str, str] | None) -> str:
    if names and entrant in names:
        return names[entrant]
    return t.entrant(entrant).name


# --- the bracket's structure -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Column:
    title: str
    matches: tuple[Match, ...]


@dataclass(frozen=True, slots=True)
class _Section:
    title: str
    columns: tuple[_Column, ...]
    y: Mapping[str, int]  # each match's top, relative to the first row
    rows_height: int

    @property
    def height(self) -> int:
        return (SECTION_H if self.title else 0) + HEAD_H + self.rows_height

    @property
    def width(self) -> int:
        n = len(self.columns)
        return 2 * MARGIN + n * BOX_W + (n - 1) * GAP


def round_title(t: Tournament, m: Match) -> str:
    """What a knockout round is called: "Round 1", "Quarter-finals", "Semi-finals", "Final"; in a double
    elimination "Winners 1" .. "Winners final", "Losers 1" .. "Losers final", "Grand final", "Reset" (in the
    active language)."""
    rounds = bracket_size(len(t.seeds or t.entrants)).bit_length() - 1
    if m.bracket is Bracket.MAIN:
        left = rounds - m.stage
        if left == 0:
            return _("Final")
        if left == 1:
            return _("Semi-finals")
        if left == 2:
            return _("Quarter-finals")
        return _("Round {round}").format(round=m.stage)
    if m.bracket is Bracket.WINNERS:
        # Translators: a round of the winners' bracket of a double elimination ("Winners 2").
        return _("Winners final") if m.stage == rounds else _("Winners {round}").format(round=m.stage)
    if m.bracket is Bracket.LOSERS:
        # Translators: a round of the losers' bracket of a double elimination ("Losers 3").
        return _("Losers final") if m.stage == 2 * rounds - 2 else _("Losers {round}").format(round=m.stage)
    return _("Grand final") if m.stage == 1 else _("Reset (if needed)")


_BRACKET_TITLES = {Bracket.MAIN: "", Bracket.WINNERS: N_("Winners' bracket"), Bracket.LOSERS: N_("Losers' bracket")}


def _span(first: str, last: str) -> str:
    """Columns from ``first`` to ``last``: "Round 1 to Semi-finals"."""
    return _("{first} to {last}").format(first=first, last=last)


def _nobody(t: Tournament, m: Match, side: int) -> bool:
    """Whether it is settled that nobody sits on that side of ``m`` (its feeder was a bye or not played)."""
    who = m.a if side == 0 else m.b
    feed = m.feeds[side]
    if who is not None:
        return False
    if not feed:
        return True
    source = t.match(feed[2:])
    return source.result is not None and (source.result.winner if feed[0] == "W" else source.result.loser) is None


def _hidden(t: Tournament, m: Match) -> bool:
    """A losers'-bracket match that will never have a player (both its feeders were byes): left out of the picture,
    so a double elimination with byes is not drawn as columns of empty boxes."""
    if m.bracket is not Bracket.LOSERS:
        return False
    if m.result is not None and m.result.how is How.VOID:
        return True
    return m.result is None and _nobody(t, m, 0) and _nobody(t, m, 1)


def _sections(t: Tournament, only_round: int | None = None) -> list[_Section]:
    out: list[_Section] = []
    for bracket in (Bracket.MAIN, Bracket.WINNERS, Bracket.LOSERS):
        matches = [m for m in t.matches if m.bracket is bracket and not _hidden(t, m)]
        if not matches:
            continue
        stages = sorted({m.stage for m in matches})
        bands = _bands(stages)
        if only_round is not None:  # the round's stage and the next one
            now = [m.stage for m in matches if m.round == only_round]
            bands = [[x for x in stages if min(now) <= x <= min(now) + 1]] if now else []
        for band in bands:
            out.extend(_band_sections(t, bracket, [m for m in matches if m.stage in band], band, len(bands) == 1))
    final = tuple(m for m in t.matches if m.bracket is Bracket.FINAL)
    if final and (only_round is None or any(m.round == only_round for m in final)):
        columns = tuple(_Column(round_title(t, m), (m,)) for m in final)
        y, h = _place(columns)
        out.append(_Section(_("Grand final"), columns, y, h))
    if len(out) == 1:  # a small knockout: one picture, no part to name
        out[0] = _Section("", out[0].columns, out[0].y, out[0].rows_height)
    return out


def _bands(stages: list[int]) -> list[list[int]]:
    """Consecutive stages in bands of at most MAX_COLUMNS, as even as possible, the larger ones first."""
    count = math.ceil(len(stages) / MAX_COLUMNS)
    base, extra = divmod(len(stages), count)
    out, start = [], 0
    for i in range(count):
        size = base + (1 if i < extra else 0)
        out.append(stages[start : start + size])
        start += size
    return out


def _band_sections(
    t: Tournament, bracket: Bracket, matches: list[Match], band: list[int], whole: bool
) -> list[_Section]:
    first = sorted((m for m in matches if m.stage == band[0]), key=lambda m: m.slot)
    parts = [first[i : i + MAX_ROWS] for i in range(0, len(first), MAX_ROWS)]
    shown = {m.id for m in matches}
    out = []
    for k, part in enumerate(parts):
        chosen = {m.id for m in part}
        columns = [_Column(round_title(t, part[0]), tuple(part))]
        for stage in band[1:]:
            level = sorted((m for m in matches if m.stage == stage), key=lambda m: m.slot)
            here = tuple(
                m
                for i, m in enumerate(level)
                if any(f[2:] in chosen for f in m.feeds if f)
                # a match whose feeders in this band were all left out goes with the part of its place
                or (
                    not any(f[2:] in shown for f in m.feeds if f and t.match(f[2:]).stage in band)
                    and min(len(parts) - 1, i * len(parts) // len(level)) == k
                )
            )
            chosen.update(m.id for m in here)
            if here:
                columns.append(_Column(round_title(t, here[0]), here))
        words = [_(_BRACKET_TITLES[bracket])] if _BRACKET_TITLES[bracket] else []
        if not words or not whole:
            words.append(columns[0].title if len(columns) == 1 else _span(columns[0].title, columns[-1].title))
        if len(parts) > 1:
            words.append(_("part {part} of {parts}").format(part=k + 1, parts=len(parts)))
        y, h = _place(tuple(columns))
        out.append(_Section(" · ".join(words), tuple(columns), y, h))
    return out


def _place(columns: tuple[_Column, ...]) -> tuple[dict[str, int], int]:
    """Each match's top: the first column evenly spaced, later ones level with the middle of their feeders (or below
    the match above, when none of its feeders is drawn), never closer than a box apart."""
    y: dict[str, int] = {}
    for c, column in enumerate(columns):
        above: int | None = None
        for i, m in enumerate(column.matches):
            fed = [y[f[2:]] for f in m.feeds if f and f[2:] in y]
            if c == 0:
                want = i * PITCH
            elif fed:
                want = round(sum(fed) / len(fed))
            else:
                want = 0 if above is None else above + PITCH
            if above is not None:
                want = max(want, above + PITCH)
            y[m.id] = above = want
    return y, max(y.values(), default=0) + BOX_H + 8


# --- drawing -----------------------------------------------------------------------------------------------------
def bracket_images(
    t: Tournament,
    theme: Theme | None = None,
    *,
    names: Mapping[str, str] | None = None,
    title: str = "",
    only_round: int | None = None,
) -> list[Image.Image]:
    """The bracket's pages as RGB images (see the module's docstring for how it is cut)."""
    return [im for im, _words in _pages(t, theme or builtin_config().theme(), names, title, only_round)]


def render_bracket(
    t: Tournament,
    theme: Theme | None = None,
    *,
    names: Mapping[str, str] | None = None,
    title: str = "",
    compress_level: int = 6,
    only_round: int | None = None,
) -> tuple[RenderedPage, ...]:
    """The bracket's pages as PNGs, each with a text alternative.

    ``only_round``: draw only the parts where that round is played (a double elimination of 129 to 256
    players has more than 10 pages, Discord's limit of attachments on one message; its parts for one round
    never have more)."""
    pages = _pages(t, theme or builtin_config().theme(), names, title, only_round)
    return tuple(
        RenderedPage(encode_png(im, compress_level), im.width, im.height, alt, heading) for im, (heading, alt) in pages
    )


def _pages(
    t: Tournament, theme: Theme, names: Mapping[str, str] | None, title: str, only_round: int | None
) -> list[tuple[Image.Image, tuple[str, str]]]:
    if not t.spec.is_knockout:
        raise ValueError("only a knockout has a bracket; draw a league or a Swiss with render.standings")
    if not t.matches:
        raise ValueError("the bracket is drawn once the tournament has started")
    sections = _sections(t, only_round) or _sections(t)[-1:]
    # Room for the legend's further lines, when the language needs them on a page of full width.
    full = " · ".join([_("small numbers are seeds"), *(f"{tag(how)} {tag_words(how)}" for how in TAGS)])
    extra = len(legend_lines(full, 2 * MARGIN + MAX_COLUMNS * BOX_W + (MAX_COLUMNS - 1) * GAP)) - 1
    packed = pack([s.height for s in sections], MAX_PAGE_HEIGHT - TITLE_H - FOOT_H - extra * FOOT_LINE)
    what = kind_words(t)
    heading = title or t.spec.name or what
    out = []
    for p, indices in enumerate(packed):
        chosen = [sections[i] for i in indices]
        width = max(max(s.width for s in chosen), 600)
        legend = legend_lines(_legend(chosen), width, 1 + extra)
        height = TITLE_H + sum(s.height for s in chosen) + FOOT_H + (len(legend) - 1) * FOOT_LINE
        c = Canvas(theme, width, height)
        page = page_words(p + 1, len(packed))
        page_title(c, heading, status_line(t, what) + _champion_words(t, names) + page)
        y = TITLE_H
        for s in chosen:
            _draw_section(c, t, s, y, names)
            y += s.height
        page_footer(c, legend, y)
        parts = "; ".join(s.title or _span(s.columns[0].title, s.columns[-1].title) for s in chosen)
        # Translators: a bracket picture's text alternative: "Knockout bracket of Spring Cup · page 1 of 2: ...".
        alt = _("{kind} bracket of {name}{page}: {parts}.").format(kind=what, name=heading, page=page, parts=parts)
        out.append((c.im, (heading + page, alt[:1000])))
    return out


def _legend(sections: Sequence[_Section]) -> str:
    """What the small numbers and the tags on these sections mean."""
    shown = {m.result.how for s in sections for col in s.columns for m in col.matches if m.result is not None}
    tags = [f"{tag(how)} {tag_words(how)}" for how in TAGS if how in shown]
    return " · ".join([_("small numbers are seeds"), *tags])


def _champion_words(t: Tournament, names: Mapping[str, str] | None) -> str:
    winner = champion(t)
    return " · " + _("champion {name}").format(name=entrant_name(t, winner, names)) if winner else ""


def _draw_section(c: Canvas, t: Tournament, s: _Section, top: int, names: Mapping[str, str] | None) -> None:
    if s.title:
        c.text((MARGIN, top + 14), c.fit(capitals(s.title), SMALL, c.width - 2 * MARGIN), c.rgb("accent"), SMALL)
        top += SECTION_H
    rows = top + HEAD_H
    x_of = {m.id: MARGIN + k * (BOX_W + GAP) for k, col in enumerate(s.columns) for m in col.matches}
    for k, col in enumerate(s.columns):
        x = MARGIN + k * (BOX_W + GAP)
        current = any(m.round == t.round for m in col.matches) and t.status is Status.RUNNING
        ink = c.rgb("text") if current else c.rgb("text dim")
        title, size = c.fitted(col.title, SMALL + 2, BOX_W, 16)
        c.text((x, top + 8), title, ink, size)
    for col in s.columns:  # connectors first, boxes over them
        for m in col.matches:
            for side, feed in enumerate(m.feeds):
                src = feed[2:]
                if feed.startswith("W:") and src in s.y:
                    _connector(c, x_of[src] + BOX_W, rows + s.y[src] + BOX_H // 2, x_of[m.id], rows + s.y[m.id], side)
    champ = champion(t)
    for col in s.columns:
        for m in col.matches:
            _box(c, t, m, x_of[m.id], rows + s.y[m.id], names, champ)


def _connector(c: Canvas, x0: int, y0: int, x1: int, top: int, side: int) -> None:
    y1 = top + LINE_H // 2 + side * LINE_H
    mid = x0 + GAP // 2
    colour = mix(c.rgb("background"), c.rgb("text dim"), 0.55)
    c.draw.line([(x0, y0), (mid, y0), (mid, y1), (x1, y1)], fill=colour, width=3)


def _box(
    c: Canvas, t: Tournament, m: Match, x: int, y: int, names: Mapping[str, str] | None, champ: str | None
) -> None:
    live = m.round == t.round and m.result is None and t.status is Status.RUNNING
    fill = c.rgb("info on roll") if live else c.rgb("info")
    seed_w = c.length("8" * len(str(len(t.seeds))), SMALL) + 20
    if m.is_bye and m.result is not None and m.result.winner is not None:  # one line: the player and "bye"
        top = y + LINE_H // 2
        c.draw.rounded_rectangle(
            (x, top, x + BOX_W - 1, top + LINE_H - 1), radius=8, fill=fill, outline=outline(c), width=2
        )
        alone = m.result.winner
        c.text((x + 12, top + LINE_H // 2), str(t.seed(alone)), c.rgb("text dim"), SMALL, "lm")
        bye, bye_size = c.fitted(pgettext("tournament", "bye"), SMALL, 80)
        room = BOX_W - seed_w - max(70, c.length(bye, bye_size) + 24)
        ink = c.rgb("accent") if alone == champ else c.rgb("text")
        c.name((x + seed_w, top + LINE_H // 2), entrant_name(t, alone, names), ink, room, NAME_SIZE)
        c.text((x + BOX_W - 12, top + LINE_H // 2), bye, c.rgb("text dim"), bye_size, "rm")
        return
    c.draw.rounded_rectangle((x, y, x + BOX_W - 1, y + BOX_H - 1), radius=8, fill=fill)
    score_w = 46
    c.draw.rounded_rectangle(
        (x + BOX_W - score_w, y, x + BOX_W - 1, y + BOX_H - 1),
        radius=8,
        fill=mix(fill, c.rgb("background"), 0.45),
        corners=(False, True, True, False),
    )
    edge = outline(c)
    if edge is not None:
        c.draw.rounded_rectangle((x, y, x + BOX_W - 1, y + BOX_H - 1), radius=8, outline=edge, width=2)
    c.draw.line([(x + 8, y + LINE_H), (x + BOX_W - score_w - 8, y + LINE_H)], fill=c.rgb("background"), width=1)
    r = m.result
    dq, dq_size = c.fitted(_("DQ"), SMALL, 60)
    dq_w = max(46, round(c.length(dq, dq_size)) + 16)
    for side, (who, feed) in enumerate(zip((m.a, m.b), m.feeds)):
        ly = y + side * LINE_H + LINE_H // 2
        won = r is not None and who is not None and r.winner == who
        lost = r is not None and who is not None and r.winner != who
        if who is None:
            label, size = c.fitted(_empty_side(t, m, feed), SMALL, BOX_W - score_w - 20, 15)
            c.text((x + 12, ly), label, c.rgb("text dim"), size, "lm")
            continue
        seed = str(t.seed(who))
        c.text((x + 12, ly), seed, c.rgb("text dim"), SMALL, "lm")
        name_x = x + seed_w
        gone = who in t.withdrawn
        room = BOX_W - score_w - (name_x - x) - (dq_w if gone else 10)
        ink = c.rgb("accent") if won and who == champ else c.rgb("text")  # the champion's path in gold
        if lost:
            ink = mix(c.rgb("text dim"), c.rgb("info"), 0.35)
        c.name((name_x, ly), entrant_name(t, who, names), ink, room, NAME_SIZE)
        if gone:
            c.text((x + BOX_W - score_w - 8, ly), dq, c.rgb("hit"), dq_size, "rm")
        if r is not None:
            score, size = c.fitted(_score(r, won), SMALL + 2, score_w - 6, 12)
            c.text((x + BOX_W - score_w // 2, ly), score, c.rgb("text") if won else c.rgb("text dim"), size, "mm")


def _score(r: Result, won: bool) -> str:
    if r.how in TAGS:
        return tag(r.how) if won else ""
    if r.how is How.BYE or r.how is How.VOID:
        return ""
    return str(r.winner_points if won else r.loser_points)


def _empty_side(t: Tournament, m: Match, feed: str) -> str:
    if m.result is not None or not feed:
        return pgettext("tournament", "bye") if m.result is None or m.result.how is not How.VOID or feed == "" else "—"
    source = t.match(feed[2:])
    if source.result is not None:
        return pgettext("tournament", "bye")  # nobody comes from there: the other side will have a bye
    if feed[0] == "W":
        return _("winner of {match}").format(match=source.id)
    return _("loser of {match}").format(match=source.id)


# --- text ------------------------------------------------------------------------------------------------------------
def bracket_text(
    t: Tournament, *, names: Mapping[str, str] | None = None, rounds: Sequence[int] | None = None, width: int = 16
) -> str:
    """The bracket as monospace lines, round by round (only ``rounds`` when given): the match, each side with its
    seed, and the score (the first side's points first) or how it was decided. About 45 characters wide, so a
    Discord code block does not wrap on a phone; give a few rounds at a time to stay under a message's length.
    For a league or a Swiss it lists the pairings the same way (``rounds=[t.round]``: the round's pairings)."""
    knockout = t.spec.is_knockout
    what = kind_words(t)
    heading = t.spec.name or what
    lines = [f"{heading} · {status_line(t, what)}{_champion_words(t, names)}"]
    order = sorted(t.matches, key=lambda m: (m.round, list(Bracket).index(m.bracket), m.stage, m.slot))
    last_title = ""
    for m in order:
        if rounds is not None and m.round not in rounds:
            continue
        heading_here = _("Round {round}").format(round=m.round)
        if knockout:
            heading_here += f" — {round_title(t, m)}"
        elif m.division:
            heading_here += " — " + _("Division {division}").format(division=m.division)
        if heading_here != last_title:
            lines += ["", heading_here]
            last_title = heading_here
        lines.extend(_match_lines(t, m, names, width))
    return "\n".join(lines)


def _side_text(t: Tournament, m: Match, who: str | None, feed: str, names: Mapping[str, str] | None, width: int) -> str:
    if who is None:
        return _empty_side(t, m, feed)[:width]
    name = entrant_name(t, who, names)
    seed = f"({t.seed(who)}) "
    dq = " " + _("DQ") if who in t.withdrawn else ""
    room = width - len(seed) - len(dq)
    short = name if len(name) <= room else name[: room - 1] + "…"
    return seed + short + dq


def _match_lines(t: Tournament, m: Match, names: Mapping[str, str] | None, width: int) -> list[str]:
    left = _side_text(t, m, m.a, m.feeds[0], names, width)
    right = _side_text(t, m, m.b, m.feeds[1], names, width)
    r = m.result
    if r is not None and r.how is How.BYE and r.winner is not None:
        bye = pgettext("tournament", "bye")
        return [f"{m.id:<5} {_side_text(t, m, r.winner, '', names, width):<{width}}  {bye}"]
    if r is not None and r.how is How.VOID:
        why = note_words(t, r) or _("no players")
        return [f"{m.id:<5} " + _("not played: {why}").format(why=why)]
    # Translators: between the two sides of a match in a bracket's text ("Alice vs Bob"; at most 5 characters).
    middle = pgettext("bracket text", "vs")
    if r is not None and r.how in TAGS:
        middle = tag(r.how)
    elif r is not None:
        a_won = r.winner == m.a
        middle = f"{r.winner_points}-{r.loser_points}" if a_won else f"{r.loser_points}-{r.winner_points}"
    out = [f"{m.id:<5} {left:<{width}} {middle[:5]:^5} {right}".rstrip()]
    if r is not None and r.how in TAGS:
        winner = entrant_name(t, r.winner or "", names)
        out.append(f"{'':<5} " + _("{name} wins: {how}").format(name=winner, how=tag_words(r.how)))
    return out
