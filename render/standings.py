"""League and Swiss standings as pictures (Pillow) and as text, with the tiebreaks named on the table.

    pages = render_standings(tournament, theme)      # tuple of RenderedPage (PNG + alt text), one table a division
    text = standings_text(tournament)                # the same as monospace tables

Each tiebreak has its own column, headed by its short name in the accent colour ("H2H", "+/-", "Buch",
"MBuch"), and the line under the table says in words how the table is ranked ("Ranked by wins, then
head-to-head (...), then points difference (...)."). Entrants level on everything share a rank ("=3").
A table is about 900 pixels wide (legible on a 390-pixel phone screen); long tables are cut into parts of
:data:`MAX_TABLE_ROWS` and packed onto pages no taller than the bracket's pages. Pure and thread-safe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image

from engine.i18n import _, pgettext
from engine.tournament import Format, Standing, Standings, Tiebreak, Tournament, standings

from .board import encode_png
from .bracket import (
    MARGIN,
    MAX_PAGE_HEIGHT,
    SMALL,
    RenderedPage,
    capitals,
    entrant_name,
    kind_words,
    mix,
    outline,
    pack,
    page_title,
    page_words,
    status_line,
)
from .canvas import Canvas, measure, wrap
from .fonts import text_width
from .theme import Theme, builtin_config

__all__ = ["MAX_TABLE_ROWS", "TABLE_WIDTH", "render_standings", "standings_images", "standings_text"]

MAX_TABLE_ROWS = 32
TABLE_WIDTH = 900
ROW_H = 50
HEAD_H = 52
PART_H = 46
TITLE_H = 86
NAME_SIZE = 26
NUMBER_SIZE = 24
RANK_W = 78
LEGEND_LINE = 29
LEGEND_SIZE = 21


#: A column heading is at most this wide (pixels); a longer one is set smaller, then cut short.
MAX_LABEL_W = 130


@dataclass(frozen=True, slots=True)
class _Column:
    label: str
    width: int
    tiebreak: bool = False


def _column(label: str, width: int, tiebreak: bool = False) -> _Column:
    """A column at least ``width`` wide, wider when its heading (in the active language) needs it."""
    need = min(text_width(label, SMALL + 2), MAX_LABEL_W) + 12  # set 14 pixels in from the column's right edge
    return _Column(label, max(width, round(need)), tiebreak)


def _columns(table: Standings) -> list[_Column]:
    """The table's columns, headed in the active language."""
    if table.format is Format.SWISS:
        # Translators: the heading of a Swiss table's column of wins and losses ("3-1").
        cols = [_column(table.score_heading, 92), _column(pgettext("standings column", "W-L"), 92)]
    else:
        cols = [
            # Translators: the heading of a league table's column of matches played (one letter or a short word).
            _column(pgettext("standings column", "P"), 58),
            _column(table.score_heading, 58),
            # Translators: the heading of a league table's column of losses (one letter or a short word).
            _column(pgettext("standings column", "L"), 58),
        ]
    return cols + [_column(tb.label, 92 if len(tb.label) > 3 else 80, True) for tb in table.tiebreaks]


def _cells(table: Standings, row: Standing) -> list[str]:
    if table.format is Format.SWISS:
        cells = [str(row.score), f"{row.wins}-{row.losses}"]
    else:
        cells = [str(row.played), str(row.wins), str(row.losses)]
    return cells + [_value(tb, v) for tb, v in zip(table.tiebreaks, row.tiebreaks)]


def _value(tiebreak: Tiebreak, v: int | None) -> str:
    if v is None:
        return "–"
    return f"{v:+d}" if tiebreak is Tiebreak.POINTS_DIFFERENCE and v else str(v)


def _entrants_word(t: Tournament) -> str:
    """The heading of the names' column."""
    return pgettext("standings column", "Player") if t.spec.team_size == 1 else pgettext("standings column", "Team")


def _rank(row: Standing) -> str:
    return f"={row.rank}" if row.shared else str(row.rank)


@dataclass(frozen=True, slots=True)
class _Part:
    title: str
    table: Standings
    rows: tuple[Standing, ...]

    @property
    def height(self) -> int:
        return (PART_H if self.title else 0) + HEAD_H + ROW_H * len(self.rows) + 10


def _parts(tables: tuple[Standings, ...]) -> list[_Part]:
    out = []
    for table in tables:
        chunks = [table.rows[i : i + MAX_TABLE_ROWS] for i in range(0, len(table.rows), MAX_TABLE_ROWS)] or [()]
        for k, chunk in enumerate(chunks):
            words = [_("Division {division}").format(division=table.division)] if table.division else []
            if len(chunks) > 1:
                first, last = k * MAX_TABLE_ROWS + 1, k * MAX_TABLE_ROWS + len(chunk)
                words.append(_("places {first}–{last}").format(first=first, last=last))
            out.append(_Part(" · ".join(words), table, tuple(chunk)))
    return out


def standings_images(
    t: Tournament, theme: Theme | None = None, *, names: Mapping[str, str] | None = None, title: str = ""
) -> list[Image.Image]:
    """The standings' pages as RGB images."""
    return [im for im, _words in _pages(t, theme or builtin_config().theme(), names, title)]


def render_standings(
    t: Tournament,
    theme: Theme | None = None,
    *,
    names: Mapping[str, str] | None = None,
    title: str = "",
    compress_level: int = 6,
) -> tuple[RenderedPage, ...]:
    """The standings' pages as PNGs, each with a text alternative (its table as text, cut to fit)."""
    return tuple(
        RenderedPage(encode_png(im, compress_level), im.width, im.height, alt, heading)
        for im, (heading, alt) in _pages(t, theme or builtin_config().theme(), names, title)
    )


def _pages(
    t: Tournament, theme: Theme, names: Mapping[str, str] | None, title: str
) -> list[tuple[Image.Image, tuple[str, str]]]:
    tables = standings(t)
    parts = _parts(tables)
    legend = wrap(tables[0].explain(), TABLE_WIDTH - 2 * MARGIN, measure(LEGEND_SIZE))
    foot = 16 + LEGEND_LINE * len(legend) + 12
    packed = pack([p.height for p in parts], MAX_PAGE_HEIGHT - TITLE_H - foot)
    heading = title or t.spec.name or kind_words(t)
    out = []
    for n, indices in enumerate(packed):
        chosen = [parts[i] for i in indices]
        height = TITLE_H + sum(p.height for p in chosen) + foot
        c = Canvas(theme, TABLE_WIDTH, height)
        page = page_words(n + 1, len(packed))
        page_title(c, heading, status_line(t, kind_words(t)) + page)
        y = TITLE_H
        for part in chosen:
            _draw_part(c, t, part, y, names)
            y += part.height
        for k, line in enumerate(legend):
            c.text((MARGIN, y + 12 + k * LEGEND_LINE), line, c.rgb("text dim"), LEGEND_SIZE)
        rows = "; ".join(f"{_rank(r)} {entrant_name(t, r.entrant, names)} {r.score}" for p in chosen for r in p.rows)
        # Translators: the start of a standings picture's text alternative ("Standings of Spring Swiss · page 1 of 2.").
        alt = _("Standings of {name}{page}.").format(name=heading, page=page) + f" {tables[0].explain()} {rows}"
        out.append((c.im, (heading + page, alt[:1000])))
    return out


def _draw_part(c: Canvas, t: Tournament, part: _Part, top: int, names: Mapping[str, str] | None) -> None:
    if part.title:
        c.text((MARGIN, top + 14), c.fit(capitals(part.title), SMALL, TABLE_WIDTH - 2 * MARGIN), c.rgb("accent"), SMALL)
        top += PART_H
    cols = _columns(part.table)
    right = TABLE_WIDTH - MARGIN
    xs: list[int] = []  # each number column's right edge
    for col in reversed(cols):
        xs.insert(0, right - 14)
        right -= col.width
    name_x, name_room = MARGIN + RANK_W, right - MARGIN - RANK_W - 12
    head_y = top + HEAD_H // 2
    c.text((MARGIN + RANK_W - 22, head_y), "#", c.rgb("text dim"), SMALL + 2, "rm")
    who, size = c.fitted(_entrants_word(t), SMALL + 2, name_room, 16)
    c.text((name_x, head_y), who, c.rgb("text dim"), size, "lm")
    for col, x in zip(cols, xs):
        ink = c.rgb("accent") if col.tiebreak else c.rgb("text dim")
        label, size = c.fitted(col.label, SMALL + 2, col.width - 12, 15)
        c.text((x, head_y), label, ink, size, "rm")
        if col.tiebreak:
            w = c.length(label, size)
            c.draw.line([(x - w, head_y + 16), (x, head_y + 16)], fill=ink, width=2)
    y = top + HEAD_H
    for i, row in enumerate(part.rows):
        fill = c.rgb("info") if i % 2 == 0 else mix(c.rgb("info"), c.rgb("background"), 0.55)
        edge = outline(c)
        c.draw.rounded_rectangle(
            (MARGIN, y, TABLE_WIDTH - MARGIN - 1, y + ROW_H - 3), radius=6, fill=fill, outline=edge, width=1
        )
        mid = y + ROW_H // 2 - 1
        gone = row.withdrawn
        ink = mix(c.rgb("text dim"), c.rgb("info"), 0.3) if gone else c.rgb("text")
        top_ink = c.rgb("accent") if row.rank == 1 and t.finished and not gone else ink
        c.text((MARGIN + RANK_W - 22, mid), _rank(row), top_ink, NUMBER_SIZE, "rm")
        dq, dq_size = c.fitted(_("DQ"), SMALL, 90)
        room = name_room - (round(c.length(dq, dq_size)) + 24 if gone else 0)
        # A long name shrinks, then takes two lines, as in the bracket's boxes (cut short only past that).
        lines = c.name((name_x, mid), entrant_name(t, row.entrant, names), top_ink, room, NAME_SIZE)
        if gone:  # just after the name (a name that had to shrink or wrap fills its room)
            drawn = c.length(lines[0], NAME_SIZE) if len(lines) == 1 else room
            c.text((name_x + min(drawn, room) + 12, mid), dq, c.rgb("hit"), dq_size, "lm")
        for col, x, cell in zip(cols, xs, _cells(part.table, row)):
            c.text((x, mid), cell, ink if not col.tiebreak or gone else c.rgb("text"), NUMBER_SIZE, "rm")
        y += ROW_H


# --- text ------------------------------------------------------------------------------------------------------------
def standings_text(t: Tournament, *, names: Mapping[str, str] | None = None, width: int = 14) -> str:
    """The tables as monospace text (one per division; under 50 characters wide, so a Discord code block does
    not wrap on a phone), each followed by how it is ranked."""
    heading = t.spec.name or kind_words(t)
    lines = [f"{heading} · {status_line(t, kind_words(t))}"]
    dq = " " + _("DQ")
    for table in standings(t):
        cols = _columns(table)
        lines.append("")
        if table.division:
            lines.append(_("Division {division}").format(division=table.division))
        head = f"{'#':>3}  {_entrants_word(t)[:width]:<{width}}"
        head += "".join(f"{c.label:>{max(4, len(c.label)) + 1}}" for c in cols)
        lines.append(head)
        for row in table.rows:
            name = entrant_name(t, row.entrant, names)
            if row.withdrawn:
                keep = width - len(dq)
                name = name[:keep] + dq if len(name) > keep else name + dq
            name = name if len(name) <= width else name[: width - 1] + "…"
            line = f"{_rank(row):>3}  {name:<{width}}"
            line += "".join(f"{cell:>{max(4, len(c.label)) + 1}}" for c, cell in zip(cols, _cells(table, row)))
            lines.append(line)
        lines.append(table.explain())
    return "\n".join(lines)
