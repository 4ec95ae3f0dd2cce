"""Our post-match analysis against GNU Backgammon's on the same self-played matches (issue 36), small: three
3-point matches, analysed by the strong bot's 1-ply network (the depth of GNU Backgammon's 0-ply) without luck, so
it takes seconds. benchmarks/gnubg_analysis.py runs the full cross-check (20+ matches, the deep analyst, luck)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import gnubg_binary

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))

pytestmark = pytest.mark.gnubg


def test_error_rates_and_counts_agree_with_gnu_backgammon() -> None:
    if gnubg_binary() is None:
        pytest.skip("GNU Backgammon (Debian package gnubg) is not installed; .ci/run installs it")
    from variants.bgsage_player import UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(str(UNAVAILABLE))
    import gnubg_analysis as bench

    matches = bench.self_played(4, 5, lengths=(3,))
    result, _per_game = bench.compare(matches, bench.make_player("strong", 0), luck=False)
    table = "\n" + result.table()
    # Counted as GNU Backgammon counts: the same unforced moves, the same close or actual cube decisions.
    assert all(abs(ours.unforced - theirs.unforced) <= 1 for _i, _n, ours, theirs in result.rows), table
    assert all(abs(ours.cube - theirs.cube) <= 1 for _i, _n, ours, theirs in result.rows), table
    judged = result.judged()
    assert len(judged) >= 4, table
    assert 0.8 <= result.median_ratio() <= 1.25, table
    assert result.correlation() >= 0.97, table
