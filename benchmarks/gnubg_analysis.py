"""Our post-match analysis against GNU Backgammon's on the same self-played matches (issue 36).

    python benchmarks/gnubg_analysis.py --matches 24 [--analyst default|strong] [--ply 0]

Plays seeded matches between bot players (random, heuristic, bgsage casual, strong and expert), writes each as a
``.mat`` file, has GNU Backgammon (Debian's ``gnubg``, command mode) import, analyse (cubeful, ``--ply`` plies) and
show its statistics, and sets its figures beside ours: each player's error rate (mEMG per decision, GNU
Backgammon's "Overall statistics"), skill words, unforced moves, close or actual cube decisions and luck rate.
Prints the table, then over the player-matches where GNU Backgammon's error rate is at least 5: the median ratio
of the two error rates, their correlation, how often the skill words agree, and how often the luck rates agree in
sign. tests/engine/test_analysis_gnubg.py runs the same on a few short matches.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.analysis import MatchAnalysis, analyse  # noqa: E402
from engine.match import Action, MatchOptions, MatchSetup, replay  # noqa: E402
from engine.matchcard import rating_words  # noqa: E402
from engine.matfile import export_mat  # noqa: E402
from engine.players import HeuristicPlayer, Player, RandomBot  # noqa: E402
from engine.plugins import get_variant  # noqa: E402
from engine.selfplay import play_bot_match  # noqa: E402

GNUBG = ("/usr/games/gnubg", "gnubg")
#: The pairs the matches cycle through (side 0, side 1).
PAIRS = (
    ("casual", "heuristic"),
    ("strong", "casual"),
    ("expert", "random"),
    ("heuristic", "strong"),
    ("casual", "expert"),
    ("random", "casual"),
)


def make_player(name: str, seed: int) -> Player:
    if name == "random":
        return RandomBot(random.Random(seed))
    if name == "heuristic":
        return HeuristicPlayer(random.Random(seed))
    from variants.bgsage_player import SPECS

    return next(s for s in SPECS if s.name == name).create(seed)


def self_played(count: int, seed: int = 36, lengths: Sequence[int] = (5, 7)) -> list[tuple[MatchSetup, list[Action]]]:
    """``count`` seeded matches between the bots of :data:`PAIRS` (lengths cycled)."""
    bg = get_variant("backgammon")
    out = []
    for i in range(count):
        a, b = PAIRS[i % len(PAIRS)]
        length = lengths[i % len(lengths)]
        state, actions = play_bot_match(
            bg, MatchOptions(length=length), (make_player(a, seed + i), make_player(b, seed + 1000 + i)), seed + i,
            sides=((f"{a}0",), (f"{b}1",)), time_cap=10.0,
        )  # fmt: skip
        out.append((state.setup, actions))
    return out


@dataclass
class Figures:
    """One player's figures in one match, by one analyst."""

    error_rate: float
    words: str
    unforced: int
    cube: int
    luck_rate: float | None


def gnubg_binary() -> str | None:
    import shutil

    for name in GNUBG:
        found = shutil.which(name) or (name if Path(name).exists() else None)
        if found:
            return found
    return None


_SCRIPT = """
import gnubg
gnubg.command('set analysis chequerplay evaluation plies {ply}')
gnubg.command('set analysis cubedecision evaluation plies {ply}')
gnubg.command('set analysis chequerplay evaluation cubeful on')
for path in {paths!r}:
    gnubg.command('import mat ' + path)
    gnubg.command('analyse match')
    print('=== ' + path)
    gnubg.command('show statistics match')
"""


def gnubg_figures(mats: Sequence[str], ply: int = 0, workdir: Path | None = None) -> list[dict[str, Figures]]:
    """GNU Backgammon's figures for each ``.mat`` text, by player name."""
    binary = gnubg_binary()
    if binary is None:
        raise RuntimeError("GNU Backgammon (Debian package gnubg) is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        folder = workdir or Path(tmp)
        paths = []
        for i, text in enumerate(mats):
            path = folder / f"m{i}.mat"
            path.write_text(text)
            paths.append(str(path))
        script = folder / "analyse.py"
        script.write_text(_SCRIPT.format(ply=ply, paths=paths))
        proc = subprocess.run(
            [binary, "-t", "-q", "-p", str(script)], capture_output=True, text=True, timeout=1800, cwd=folder
        )
    if proc.returncode != 0:
        raise RuntimeError(f"gnubg failed: {proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return [_parse(part) for part in proc.stdout.split("=== ")[1:]]


_COL = re.compile(r"^(.{40}) (.{23}) (.*)$")


def _parse(text: str) -> dict[str, Figures]:
    rows: dict[str, list[tuple[str, str]]] = {}
    names: tuple[str, str] | None = None
    section = ""
    for line in text.splitlines():
        found = _COL.match(line)
        if line.strip().endswith("statistics") and not found:
            section = line.strip()
        if not found:
            continue
        label, a, b = (x.strip() for x in found.groups())
        if label == "Player":
            names = (a, b)
        rows.setdefault(f"{section}|{label}", []).append((a, b))
    assert names is not None, text[:2000]

    def value(key: str, k: int) -> str:
        return rows[key][0][k]

    def num(text: str) -> float:
        return float(text.split()[0])

    out = {}
    for k, name in enumerate(names):
        rate_key = next(key for key in rows if key.startswith("Overall statistics|Error rate"))
        luck_key = next((key for key in rows if key.startswith("Luck statistics|Luck rate")), None)
        luck = value(luck_key, k) if luck_key else ""
        out[name] = Figures(
            error_rate=-num(value(rate_key, k)),
            words=value("Overall statistics|Overall rating", k),
            unforced=int(value("Chequerplay statistics|Unforced moves", k)),
            cube=int(value("Cube statistics|Close or actual cube decisions", k))
            if "Cube statistics|Close or actual cube decisions" in rows
            else 0,
            luck_rate=num(luck) if luck and luck != "n/a" else None,
        )
    return out


def our_figures(result: MatchAnalysis) -> dict[str, Figures]:
    return {
        s.name: Figures(
            s.error_rate, rating_words(s.error_rate), s.unforced, s.cube_decisions, s.luck_rate if s.rolls else None
        )
        for s in result.sides
    }


@dataclass
class Comparison:
    rows: list[tuple[int, str, Figures, Figures]]

    def judged(self, least: float = 5.0) -> list[tuple[int, str, Figures, Figures]]:
        return [r for r in self.rows if r[3].error_rate >= least]

    def median_ratio(self) -> float:
        return statistics.median(r[2].error_rate / r[3].error_rate for r in self.judged())

    def correlation(self) -> float:
        rows = self.judged()
        return statistics.correlation([r[2].error_rate for r in rows], [r[3].error_rate for r in rows])

    def words_agree(self) -> float:
        rows = self.judged()
        return sum(r[2].words == r[3].words for r in rows) / len(rows)

    def luck_signs(self) -> tuple[int, int]:
        rows = [r for r in self.rows if r[2].luck_rate is not None and r[3].luck_rate is not None]
        same = sum((r[2].luck_rate or 0.0) * (r[3].luck_rate or 0.0) > 0 for r in rows)
        return same, len(rows)

    def table(self) -> str:
        lines = [
            f"{'match':>5} {'player':<12} {'ours':>6} {'gnubg':>6} {'ratio':>5}  {'our words':<14} {'gnubg words':<14}"
            f" {'unf':>7} {'cube':>7} {'luck ours/gnubg':>16}"
        ]
        for i, name, ours, theirs in self.rows:
            ratio = ours.error_rate / theirs.error_rate if theirs.error_rate else float("nan")
            luck = f"{ours.luck_rate if ours.luck_rate is not None else float('nan'):+.1f}/{theirs.luck_rate or 0:+.1f}"
            lines.append(
                f"{i:>5} {name:<12} {ours.error_rate:6.1f} {theirs.error_rate:6.1f} {ratio:5.2f}  {ours.words:<14}"
                f" {theirs.words:<14} {ours.unforced:>3}/{theirs.unforced:<3} {ours.cube:>3}/{theirs.cube:<3}"
                f" {luck:>16}"
            )
        return "\n".join(lines)


def compare(
    matches: Sequence[tuple[MatchSetup, Sequence[Action]]],
    analyst: Any = None,
    *,
    ply: int = 0,
    luck: bool = True,
) -> tuple[Comparison, float]:
    """Both analyses of each match, and our analysis's seconds per game."""
    theirs = gnubg_figures([export_mat(setup, actions) for setup, actions in matches], ply)
    rows = []
    spent, games = 0.0, 0
    for i, ((setup, actions), gnu) in enumerate(zip(matches, theirs)):
        started = time.perf_counter()
        result = analyse(setup, actions, analyst, luck=luck)
        spent += time.perf_counter() - started
        games += len(replay(setup, actions).results)
        for name, ours in our_figures(result).items():
            rows.append((i, name, ours, gnu[name]))
    return Comparison(rows), spent / max(1, games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--ply", type=int, default=0, help="GNU Backgammon's analysis plies")
    parser.add_argument("--analyst", default="default", help="default (bgsage 2-ply) or strong (bgsage 1-ply)")
    parser.add_argument("--no-luck", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    matches = self_played(args.matches, args.seed)
    print(f"played {len(matches)} matches in {time.perf_counter() - started:.0f} s")
    analyst = None if args.analyst == "default" else make_player(args.analyst, 0)
    result, per_game = compare(matches, analyst, ply=args.ply, luck=not args.no_luck)
    print(result.table())
    same, total = result.luck_signs()
    print(
        f"\nplayer-matches with GNU Backgammon's rate >= 5: {len(result.judged())} of {len(result.rows)}\n"
        f"median ratio ours/gnubg {result.median_ratio():.3f}, correlation {result.correlation():.4f}, "
        f"skill words agree {100 * result.words_agree():.0f}%, luck rates agree in sign {same} of {total}\n"
        f"our analysis: {per_game:.1f} s per game"
    )


if __name__ == "__main__":
    main()
