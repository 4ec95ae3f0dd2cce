"""The checks the README promises run with the tests: strict types on every package (bot/ included), ruff's lint
rules, and the layout rules of the issue that split bot/ (no file of bot/ far over 600 lines; the engine imports
neither discord nor PIL; no file of bot/ decides a cube rule by itself)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_mypy_strict_on_every_package(tmp_path: Path) -> None:
    result = _run(sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_finds_nothing() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", sorted((ROOT / "bot").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_of_bot_is_far_over_600_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= 650, f"{path.relative_to(ROOT)} has {lines} lines: split it by concern"


def test_the_engine_imports_neither_discord_nor_pil() -> None:
    pattern = re.compile(r"^\s*(from|import)\s+(discord|PIL)\b", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "engine").rglob("*.py") if pattern.search(p.read_text())]
    assert not offenders


def test_no_file_of_bot_asks_the_cube_rules_itself() -> None:
    """Which cube answers are possible comes from engine.controls (the buttons and the bots ask it), never from a
    copy of the beaver or redouble rules in bot/."""
    pattern = re.compile(r"\.beaver_limit|\.redoubles\b|\.may_double\(")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "bot").rglob("*.py") if pattern.search(p.read_text())]
    assert not offenders, offenders
