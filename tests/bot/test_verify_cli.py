"""`gammonbot verify FILE`: one-line verdicts, exit codes 0/1/2/3, never a traceback."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from engine.fairdice import FairDice, dice_stats, recorded_rolls
from engine.match import MatchOptions
from engine.record import action_from_data
from tests.engine.test_fairdice import play_fair, record_of

SEED = bytes(range(100, 132))
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def finished() -> dict[str, Any]:
    fair = FairDice(SEED, "challenge-accepted-by-bob")
    state, actions = play_fair(fair, seed=4, options=MatchOptions(length=3))
    data: dict[str, Any] = json.loads(json.dumps(record_of(state, actions, fair.proof(reveal=True))))
    return data


@pytest.fixture()
def record(finished: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(finished))
    return data


def verify(tmp_path: Path, content: Any, *extra: str) -> tuple[int, str]:
    path = tmp_path / "match.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    out = io.StringIO()
    return main(["verify", str(path), *extra], out), out.getvalue()


def test_a_finished_match_is_verified_in_one_line(tmp_path: Path, record: dict[str, Any]) -> None:
    code, out = verify(tmp_path, record)
    rolls = sum(1 for a in record["actions"] if a["type"] in ("OpeningRoll", "Roll"))
    assert code == 0
    assert out.splitlines() == [f"verified: the seed matches the commitment and all {rolls} rolls match the dice"]


def test_an_edited_roll_fails_naming_the_roll(tmp_path: Path, record: dict[str, Any]) -> None:
    i, item = [(k, a) for k, a in enumerate(record["actions"]) if a["type"] == "Roll"][4]
    number = sum(1 for a in record["actions"][:i] if a["type"] in ("OpeningRoll", "Roll"))
    d1, d2 = item["dice"]
    item["dice"] = [d1 % 6 + 1, d2]
    code, out = verify(tmp_path, record)
    assert code == 1 and len(out.splitlines()) == 1
    assert out.startswith(f"tampered: roll {number} (game ")
    assert f"{item['by']}'s roll) is {d1 % 6 + 1}-{d2} but the dice derive {d1}-{d2}" in out


def test_a_replaced_seed_fails(tmp_path: Path, record: dict[str, Any]) -> None:
    record["dice"]["seed"] = bytes(32).hex()
    code, out = verify(tmp_path, record)
    assert code == 1 and "does not match the commitment" in out


def test_an_unrevealed_seed_exits_3(tmp_path: Path, record: dict[str, Any]) -> None:
    record["dice"]["seed"] = None
    code, out = verify(tmp_path, record)
    assert code == 3 and out.startswith("not verifiable yet: the seed is not revealed")


def test_stats_add_a_line_with_the_counts(tmp_path: Path, record: dict[str, Any]) -> None:
    code, out = verify(tmp_path, record, "--stats")
    lines = out.splitlines()
    expected = dice_stats(recorded_rolls([action_from_data(a) for a in record["actions"]]))
    assert code == 0 and len(lines) == 2
    assert lines[1] == expected.summary() and f"{expected.rolls} rolls: 1s {expected.faces[0]}," in lines[1]


def test_standard_input_is_read_for_a_dash(monkeypatch: pytest.MonkeyPatch, record: dict[str, Any]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(record)))
    out = io.StringIO()
    assert main(["verify", "-"], out) == 0 and out.getvalue().startswith("verified:")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "is not a verifiable match record"),
        ('{"setup": {}, "actions": []}', 'no "dice" proof'),
        ('{"setup": {}, "actions": [], "dice": {"scheme": "md5-dice"}}', "unknown dice scheme"),
        ("[" * 100_000, "is not"),
    ],
)
def test_unreadable_input_is_one_line_on_stderr_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    code, out = verify(tmp_path, content)
    err = capsys.readouterr().err
    assert code == 2 and out == ""
    assert err.startswith("gammonbot: ") and message in err and err.count("\n") == 1


def test_a_missing_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "nowhere.json")], io.StringIO()) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_installed_command_never_prints_a_traceback(tmp_path: Path, record: dict[str, Any]) -> None:
    roll = next(a for a in record["actions"] if a["type"] == "Roll")
    roll["dice"] = {"x": 1}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "verify", str(bad)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.startswith("gammonbot: ")


def test_right_dice_with_an_illegal_play_exit_1_as_invalid(tmp_path: Path, record: dict[str, Any]) -> None:
    move = next(a for a in record["actions"] if a["type"] == "Move" and a["moves"])
    move["moves"] = [[24, 1, False]]
    code, out = verify(tmp_path, record)
    assert code == 1 and out.startswith("invalid: all ") and "is not legal" in out


def test_huge_numbers_nan_and_lone_surrogates_are_one_line_naming_them(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 22: what JSON readers take but no record holds is refused in one line, never a traceback."""
    text = json.dumps(record)
    cases = {
        text.replace('"length": 3', '"length": ' + "1" * 4301, 1): "a number in it has more than 4,300 digits",
        text.replace('"length": 3', '"length": NaN', 1): "setup.options.length is nan",
        text.replace('"client": "', '"client": "\\ud800', 1): "dice.client has a character that is not text",
    }
    for content, words in cases.items():
        code, out = verify(tmp_path, content)
        err = capsys.readouterr().err
        assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1, err
