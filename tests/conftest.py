"""Shared test helpers: the oracle corpus and GNU Backgammon, both outside the repository; and the guard that
judges every request a test's bot sends to the simulated Discord as real Discord would (``tests/discord_guard.py``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.discord_guard import GUARD, install

ROOT = Path(__file__).resolve().parents[1]
ORACLE = ROOT.parent / "shared" / "oracle"


def oracle_rows(name: str) -> list[dict[str, Any]]:
    """Rows of ``../shared/oracle/NAME.jsonl``; skips the test with a clear message where it is absent."""
    path = ORACLE / f"{name}.jsonl"
    if not path.exists():
        pytest.skip(f"oracle corpus {path} is absent (it lives in ../shared/oracle beside the repository)")
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


def gnubg_binary() -> str | None:
    """Path of Debian's gnubg, or None."""
    found = shutil.which("gnubg")
    if found:
        return found
    fallback = Path("/usr/games/gnubg")
    return str(fallback) if fallback.exists() else None


def run_gnubg_script(script: str, tmp_path: Path, timeout: float = 300) -> str:
    """Run a Python script inside ``gnubg -t -q -p`` and return what it printed; skip if gnubg is absent."""
    binary = gnubg_binary()
    if binary is None:
        pytest.skip("GNU Backgammon (Debian package gnubg) is not installed; .ci/run installs it")
    path = tmp_path / "script.py"
    path.write_text(script)
    proc = subprocess.run(
        [binary, "-t", "-q", "-p", str(path)], capture_output=True, text=True, timeout=timeout, cwd=tmp_path
    )
    if proc.returncode != 0:
        raise AssertionError(f"gnubg failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return proc.stdout


@pytest.fixture
def gnubg(tmp_path: Path) -> Iterator[Any]:
    """A callable running a gnubg Python script in a temporary folder."""

    def run(script: str) -> str:
        return run_gnubg_script(script, tmp_path)

    yield run


install()  # every simcord request of the session passes the guard


@pytest.fixture(autouse=True)
def discord_guard() -> Iterator[Any]:
    """Every test: no request its bot made may be one Discord refuses (an oversize message, a 26th select option,
    a command over Discord's size…). A test expecting refusals takes them with ``discord_guard.take()``."""
    GUARD.reset()
    yield GUARD
    refused = GUARD.take()
    GUARD.reset()
    assert not refused, "the bot sent what Discord refuses:\n" + "\n".join(str(r) for r in refused)
