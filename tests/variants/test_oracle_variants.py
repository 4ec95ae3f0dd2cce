"""The oracle corpus of Longgammon and Sprintgammon: every row's legal plays, in process and through the CLI.

The rows live in ``../shared/oracle`` beside the repository; the tests skip with a message where it is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Position
from engine.plugins import get_variant
from tests.conftest import ORACLE, oracle_rows

RULE_SETS = ("longgammon", "sprintgammon")


def _mismatches(name: str, rows: list[dict[str, object]]) -> list[str]:
    variant = get_variant(name)
    wrong = []
    for n, row in enumerate(rows, 1):
        pos = Position.from_frame(row["position"])  # type: ignore[arg-type]
        dice = tuple(row["dice"])  # type: ignore[arg-type]
        got = variant.legal_plays(pos, dice, bool(row.get("first_move", False))).positions  # type: ignore[arg-type]
        expected = {Position.from_frame(f) for f in row["plays"]}  # type: ignore[attr-defined]
        if got != expected:
            wrong.append(f"row {n}: {pos} dice {dice}: missing {expected - got}, extra {got - expected}")
    return wrong


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_oracle_row_matches_the_engine(name: str) -> None:
    rows = oracle_rows(name)
    assert rows and all(row["variant"] == name for row in rows)
    wrong = _mismatches(name, rows)
    assert not wrong, f"{len(wrong)} of {len(rows)} rows differ:\n" + "\n".join(wrong[:5])


def test_the_longgammon_corpus_covers_first_turns_doublets_and_bearing_off() -> None:
    rows = oracle_rows("longgammon")
    first = [r for r in rows if r["first_move"]]
    assert {tuple(r["dice"]) for r in first} >= {(6, 6), (4, 4), (3, 3)}
    assert any(r["position"]["off"][0] > 0 for r in rows)
    assert sum(r["dice"][0] == r["dice"][1] for r in rows) > 100


def test_every_oracle_position_is_valid_for_its_rule_set() -> None:
    for name in RULE_SETS:
        variant = get_variant(name)
        for row in oracle_rows(name):
            variant.validate_position(Position.from_frame(row["position"]))


def _console_script() -> list[str]:
    beside = Path(sys.executable).with_name("gammonbot")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("gammonbot")
    if found is None:
        pytest.skip("the gammonbot console script is not installed (pip install -e .)")
    return [found]


@pytest.mark.parametrize("name", RULE_SETS)
def test_gammonbot_plays_jsonl_reproduces_every_oracle_row(name: str) -> None:
    rows = oracle_rows(name)
    text = (ORACLE / f"{name}.jsonl").read_text()
    proc = subprocess.run(
        [*_console_script(), "plays", "--jsonl"], input=text, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(rows)
    for n, (row, answer) in enumerate(zip(rows, answers), 1):
        assert answer["position"] == row["position"] and answer["dice"] == row["dice"]
        got = {Position.from_frame(f) for f in answer["plays"]}
        assert got == {Position.from_frame(f) for f in row["plays"]}, f"row {n} of {name}"
