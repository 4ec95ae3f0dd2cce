"""The oracle corpus of Longgammon, Sprintgammon, Plakoto, Fevga, Acey-deucey and Gul bara (and Portes on the
backgammon rows): every row's legal plays, Plakoto's game results, Acey-deucey's 1-2 bonus with its named doublets
and Gul bara's next stage of a cascade (``next`` given the roller's ``turn``), in process and through the CLI.

The rows live in ``../shared/oracle`` beside the repository; the tests skip with a message where it is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Position
from engine.plugins import get_variant
from engine.variant import NextStage, TurnContext, TurnStep
from tests.conftest import ORACLE, oracle_rows

RULE_SETS = ("longgammon", "sprintgammon", "plakoto", "fevga", "aceydeucey", "gulbara")
#: Rule sets checked on another rule set's rows: Portes has exactly backgammon's legal plays.
BORROWED = {"portes": "backgammon"}


def _mismatches(name: str, rows: list[dict[str, Any]]) -> list[str]:
    variant = get_variant(name)
    wrong = []
    for n, row in enumerate(rows, 1):
        pos = Position.from_frame(row["position"])
        dice = (int(row["dice"][0]), int(row["dice"][1]))
        plays = variant.legal_plays(pos, dice, bool(row.get("first_move", False)))
        got = plays.positions
        expected = {Position.from_frame(f) for f in row["plays"]}
        if got != expected:
            wrong.append(f"row {n}: {pos} dice {dice}: missing {expected - got}, extra {got - expected}")
        if "turn" in row:  # a stage row: the next stage's dice, fixed by the rule set, or null
            step = variant.next_stage(dice, plays.max_dice, TurnContext(turn=row["turn"]))
            fixed = isinstance(step, NextStage) and step.step is TurnStep.FIXED_DICE
            following = list(step.dice) if isinstance(step, NextStage) and fixed and step.dice else None
            if following != row.get("next"):
                wrong.append(f"row {n}: {pos} dice {dice} turn {row['turn']}: next {following}, not {row.get('next')}")
        for frame in row["plays"]:
            if "result" in frame or variant.pinning:  # Plakoto's rows say which plays end the game, and how
                over = variant.game_over(Position.from_frame(frame))
                mine = None if over is None else {"winner": over.winner, "points": over.level}
                if mine != frame.get("result"):
                    after = Position.from_frame(frame)
                    wrong.append(f"row {n}: the play to {after} ends {mine}, not {frame.get('result')}")
    return wrong


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_oracle_row_matches_the_engine(name: str) -> None:
    rows = oracle_rows(name)
    assert rows and all(row["variant"] == name for row in rows)
    wrong = _mismatches(name, rows)
    assert not wrong, f"{len(wrong)} of {len(rows)} rows differ:\n" + "\n".join(wrong[:5])


@pytest.mark.parametrize(("name", "rows_of"), sorted(BORROWED.items()))
def test_a_rule_set_agrees_with_the_rows_of_the_rule_set_whose_plays_it_shares(name: str, rows_of: str) -> None:
    rows = [{**row, "variant": name} for row in oracle_rows(rows_of)]
    wrong = _mismatches(name, rows)
    assert not wrong, f"{len(wrong)} of {len(rows)} rows differ:\n" + "\n".join(wrong[:5])


def test_the_plakoto_corpus_covers_pins_mothers_and_draws() -> None:
    rows = oracle_rows("plakoto")
    assert sum(any(row["position"]["pinned"]) for row in rows) > 300
    results = [f["result"] for row in rows for f in row["plays"] if "result" in f]
    assert {"winner": 0, "points": 0} in results and {"winner": 1, "points": 2} in results


def test_the_gul_bara_corpus_covers_cascades_cut_short_and_the_fourth_turn() -> None:
    rows = oracle_rows("gulbara")
    sources = {row["source"].split("/")[0] for row in rows}
    assert {"selfplay-cascade", "edge:cascade-cut", "edge:turn3-vs-4", "edge:six-six"} <= sources
    assert sum(row.get("next") is not None for row in rows) > 100
    assert any(row["dice"][0] == row["dice"][1] and row["turn"] >= 4 and row.get("next") is None for row in rows)


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
        if "turn" in row:  # a stage row (Gul bara): the next stage's dice or null
            assert answer["next"] == row.get("next"), f"row {n} of {name}"
        if row.get("kind") == "acey_bonus":  # the 1-2: whether a doublet is named, and the named continuations
            assert answer["bonus"] == row["bonus"], f"row {n} of {name}"
            assert len(answer["named"]) == (len(row["named"]) if row["named"] or not row["bonus"] else 6)
            for given, got in zip(row["named"], answer["named"]):
                assert (got["double"], got["reroll"]) == (given["double"], given["reroll"]), f"row {n} of {name}"
                assert Position.from_frame(got["after"]) == Position.from_frame(given["after"])
                found, expected = ({Position.from_frame(f) for f in c["plays"]} for c in (got, given))
                assert found == expected, f"row {n} of {name}"
        if "pinned" in row["position"]:  # the plays carry the pins and results the row's frame has
            assert all("pinned" in f for f in answer["plays"]), f"row {n} of {name}"
            results = {json.dumps(f, sort_keys=True) for f in answer["plays"]}
            assert results == {json.dumps(f, sort_keys=True) for f in row["plays"]}, f"row {n} of {name}"
