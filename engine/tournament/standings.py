"""Standings: each entrant's record, ranked by score and then by tiebreaks players know, named on the table.

- **Round robin** (a league): ranked by wins, then **head-to-head** (wins in the matches between the entrants
  level on wins: a mini-league), then **points difference** (match points won minus points lost). A rest in an
  odd-sized division is no win: everybody rests once.
- **Swiss**: ranked by score (wins; a bye counts as a win), then **Buchholz** (the sum of the scores of every
  opponent met, a walkover's included, a bye's not), then **median Buchholz** (the same without the best and
  the worst opponent, when there were three or more), then points difference; or the organiser's choice of
  **Buchholz cut-1** (without the worst opponent, when there were two or more) or **Sonneborn-Berger** (the sum
  of the scores of the opponents beaten) first.
- **Knockout**: ranked by how far each entrant went (those still in share first place until the end).

The tiebreaks are applied in order to each group of entrants level on the score; the first that tells some of
them apart splits the group, and each part still level is ranked again from the first tiebreak, among its own
members only (so head-to-head is re-applied to the entrants still tied, as league rules do). Entrants level on
everything are ranked by seed, the final tiebreak. Each row names the tiebreak that put it below the row above
(:attr:`Standing.separated_by`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from engine.i18n import _, pgettext

from .model import Bracket, Format, How, Match, Tiebreak, Tournament

__all__ = ["Record", "Standing", "Standings", "compute_standings", "records"]


#: The score's column heading and what it is, in words (kept in English; said by :data:`_SAID`).
_SCORE = "Score"
_W = "W"
_SWISS_SCORE = "score (wins; a bye counts as a win)"
_WINS = "wins"
_ROUND_REACHED = "the round reached"
_SAID = {
    _SCORE: lambda: pgettext("standings column", "Score"),
    # Translators: the heading of the column of wins in a table (one letter or a short word).
    _W: lambda: pgettext("standings column", "W"),
    _SWISS_SCORE: lambda: pgettext("ranked by", "score (wins; a bye counts as a win)"),
    _WINS: lambda: pgettext("ranked by", "wins"),
    _ROUND_REACHED: lambda: pgettext("ranked by", "the round reached"),
}


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of a table. ``tiebreaks`` holds the values of :attr:`Standings.tiebreaks`, in order (None where
    it does not apply: head-to-head for an entrant level with nobody)."""

    rank: int
    entrant: str
    played: int
    wins: int
    losses: int
    byes: int
    score: int
    points_for: int
    points_against: int
    tiebreaks: tuple[int | None, ...] = ()
    shared: bool = False
    withdrawn: bool = False
    #: What put this row below the one above when both have the same score: a tiebreak of the table, or
    #: :attr:`Tiebreak.SEED` when only the seed told them apart (None: the score did, or the first row).
    separated_by: Tiebreak | None = None

    @property
    def points_difference(self) -> int:
        return self.points_for - self.points_against


@dataclass(frozen=True, slots=True)
class Standings:
    """A ranked table (one per league division; ``division`` is 0 when the tournament has none). ``score_label``
    and ``score_words`` are kept in English (marked for the catalog): :attr:`score_heading` and :meth:`explain`
    give them in the active language."""

    format: Format
    division: int
    score_label: str
    score_words: str
    tiebreaks: tuple[Tiebreak, ...]
    rows: tuple[Standing, ...]

    @property
    def score_heading(self) -> str:
        """The score column's heading in the active language."""
        said = _SAID.get(self.score_label)
        return said() if said else self.score_label

    def explain(self) -> str:
        """How the table is ranked, in words: "Ranked by wins, then head-to-head (...), then ..."."""
        said = _SAID.get(self.score_words)
        parts = [said() if said else self.score_words, *(t.words for t in self.tiebreaks)]
        if self.format is not Format.KNOCKOUT:
            parts.append(Tiebreak.SEED.words)
        # Translators: joins the criteria a table is ranked by: "wins, then head-to-head (...), then ...".
        return _("Ranked by {criteria}.").format(criteria=_(", then ").join(parts))

    def row(self, entrant: str) -> Standing:
        for r in self.rows:
            if r.entrant == entrant:
                return r
        raise KeyError(entrant)


@dataclass(slots=True)
class Record:
    """One entrant's results so far (mutable while counting)."""

    wins: int = 0
    losses: int = 0
    byes: int = 0
    points_for: int = 0
    points_against: int = 0
    opponents: list[str] | None = None
    beaten: list[str] | None = None

    @property
    def played(self) -> int:
        return self.wins + self.losses


def records(t: Tournament, matches: Iterable[Match] | None = None) -> dict[str, Record]:
    """Every entrant's record over ``matches`` (all decided matches by default)."""
    out = {e.id: Record(opponents=[], beaten=[]) for e in t.entrants}
    for m in t.matches if matches is None else matches:
        r = m.result
        if r is None or r.how is How.VOID or r.winner is None:
            continue
        w = out[r.winner]
        if r.how is How.BYE or r.loser is None:
            w.byes += 1
            w.points_for += r.winner_points
            continue
        lo = out[r.loser]
        w.wins += 1
        lo.losses += 1
        w.points_for += r.winner_points
        w.points_against += r.loser_points
        lo.points_for += r.loser_points
        lo.points_against += r.winner_points
        assert w.opponents is not None and lo.opponents is not None and w.beaten is not None
        w.opponents.append(r.loser)
        lo.opponents.append(r.winner)
        w.beaten.append(r.loser)
    return out


def swiss_score(rec: Record) -> int:
    return rec.wins + rec.byes


def compute_standings(t: Tournament) -> tuple[Standings, ...]:
    """The tables of ``t``: one per division of a league, else one."""
    recs = records(t)
    fmt = t.spec.format
    if fmt is Format.KNOCKOUT:
        return (_knockout(t, recs),)
    groups = t.divisions if fmt is Format.ROUND_ROBIN and t.divisions else (t.seeds or tuple(e.id for e in t.entrants),)
    numbered = len(groups) > 1
    return tuple(_table(t, recs, tuple(g), d + 1 if numbered else 0) for d, g in enumerate(groups))


def _table(t: Tournament, recs: dict[str, Record], ids: tuple[str, ...], division: int) -> Standings:
    swiss = t.spec.format is Format.SWISS
    tiebreaks = t.spec.effective_tiebreaks()
    score = {e: swiss_score(recs[e]) if swiss else recs[e].wins for e in ids}
    seed = {e: t.seed(e) for e in ids}
    fixed = {tb: {e: _tiebreak(tb, e, recs) for e in ids} for tb in tiebreaks if tb is not Tiebreak.HEAD_TO_HEAD}
    head: dict[str, int | None] = {e: None for e in ids}  # head-to-head among the last group it was level with
    separated: dict[str, Tiebreak | None] = {e: None for e in ids}

    def value(tb: Tiebreak, e: str, level: list[str]) -> int:
        if tb is Tiebreak.HEAD_TO_HEAD:
            others = set(level) - {e}
            won = sum(1 for o in recs[e].beaten or [] if o in others)
            head[e] = won
            return won
        return fixed[tb][e] or 0

    def rank(level: list[str]) -> list[str]:
        """``level`` (entrants on one score) in order: the first tiebreak that tells any apart splits them; each
        part still level is ranked again from the first tiebreak, among its own members."""
        if len(level) == 1:
            return level
        for tb in tiebreaks:
            values = {e: value(tb, e, level) for e in level}
            if len(set(values.values())) > 1:
                out: list[str] = []
                for v in sorted(set(values.values()), reverse=True):
                    part = rank([e for e in level if values[e] == v])
                    if out:
                        separated[part[0]] = tb
                    out.extend(part)
                return out
        ordered = sorted(level, key=seed.__getitem__)
        for e in ordered[1:]:
            separated[e] = Tiebreak.SEED
        return ordered

    order: list[str] = []
    for s in sorted(set(score.values()), reverse=True):
        order.extend(rank(sorted((e for e in ids if score[e] == s), key=seed.__getitem__)))
    rows: list[Standing] = []
    withdrawn = set(t.withdrawn)
    for i, e in enumerate(order):
        rec = recs[e]
        values = tuple(head[e] if tb is Tiebreak.HEAD_TO_HEAD else fixed[tb][e] for tb in tiebreaks)
        rows.append(
            Standing(
                i + 1,
                e,
                rec.played,
                rec.wins,
                rec.losses,
                rec.byes,
                score[e],
                rec.points_for,
                rec.points_against,
                values,
                False,
                e in withdrawn,
                separated[e] if i > 0 and score[order[i - 1]] == score[e] else None,
            )
        )
    words = _SWISS_SCORE if swiss else _WINS
    return Standings(t.spec.format, division, _SCORE if swiss else _W, words, tiebreaks, tuple(rows))


def _tiebreak(tb: Tiebreak, e: str, recs: dict[str, Record]) -> int | None:
    """A tiebreak that does not depend on who else is level (all but head-to-head)."""
    rec = recs[e]
    opponents = rec.opponents or []
    if tb is Tiebreak.POINTS_DIFFERENCE:
        return rec.points_for - rec.points_against
    scores = sorted(swiss_score(recs[o]) for o in opponents)
    if tb is Tiebreak.BUCHHOLZ:
        return sum(scores)
    if tb is Tiebreak.MEDIAN_BUCHHOLZ:
        return sum(scores[1:-1]) if len(scores) >= 3 else sum(scores)
    if tb is Tiebreak.BUCHHOLZ_CUT1:
        return sum(scores[1:]) if len(scores) >= 2 else sum(scores)
    if tb is Tiebreak.SONNEBORN_BERGER:
        return sum(swiss_score(recs[o]) for o in rec.beaten or [])
    raise ValueError(f"no tiebreak {tb}")  # pragma: no cover - head-to-head is counted where it is applied


def _knockout(t: Tournament, recs: dict[str, Record]) -> Standings:
    """Ranked by the round reached: an entrant's depth is the match they went out in (their second loss in a
    double elimination); those still in rank first."""
    losses: dict[str, int] = defaultdict(int)
    out_in: dict[str, int] = {}
    limit = 2 if t.spec.double_elimination else 1
    for m in t.matches:
        r = m.result
        if r is None or r.loser is None or r.how is How.BYE:
            continue
        losses[r.loser] += 1
        if losses[r.loser] >= limit:
            out_in[r.loser] = m.stage + (1000 if m.bracket is Bracket.FINAL else 0)
    ids = t.seeds or tuple(e.id for e in t.entrants)
    alive = 10**9
    depth = {e: out_in.get(e, alive) for e in ids}
    ranked = sorted(ids, key=lambda e: (-depth[e], t.seed(e)))
    rows = []
    for e in ranked:
        better = sum(1 for o in ids if depth[o] > depth[e])
        tied = sum(1 for o in ids if depth[o] == depth[e]) > 1
        rec = recs[e]
        rows.append(
            Standing(
                better + 1,
                e,
                rec.played,
                rec.wins,
                rec.losses,
                rec.byes,
                rec.wins,
                rec.points_for,
                rec.points_against,
                (),
                tied,
                e in t.withdrawn,
            )
        )
    return Standings(Format.KNOCKOUT, 0, _W, _ROUND_REACHED, (), tuple(rows))
