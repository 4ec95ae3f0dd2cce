"""The benchmarks the README shows run from a clone alone: without ``../shared/oracle``, legal_plays.py times
positions of its own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_legal_plays_benchmark_runs_without_the_oracle(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "legal_plays.py"),
            str(tmp_path / "no-oracle"),
            "--passes",
            "1",
            "--generate",
            "30",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("backgammon", "longgammon", "sprintgammon", "plakoto", "fevga", "aceydeucey"):
        assert re.search(rf"^{name} +30 rows .* generations/s", result.stdout, re.M), result.stdout
    assert "Traceback" not in result.stderr
