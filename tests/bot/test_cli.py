"""`gammonbot plays`: the listing, the JSONL mode over the oracle corpus, and one-line errors."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from engine import Position
from tests.conftest import ORACLE, oracle_rows


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_plays_lists_every_opening_31_play_with_the_id_it_leaves() -> None:
    code, out = run("plays", "4HPwATDgc/ABMA", "31")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 16
    assert "8/5 6/5\tsGfwATDgc/ABMA" in lines


def test_plays_accepts_dashed_dice_and_an_explicit_variant() -> None:
    code, out = run("plays", "--variant", "bg", "4HPwATDgc/ABMA", "6-6")
    assert code == 0 and "24/18(2) 13/7(2)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["plays", "4HPwATDgc/ABM", "31"], "a Position ID has 14 characters"),
        (["plays", "4HPwATDgc/ABMA", "71"], "each die shows 1 to 6"),
        (["plays", "4HPwATDgc/ABMA", "3"], "write two numbers from 1 to 6"),
        (["plays", "--variant", "chess", "4HPwATDgc/ABMA", "31"], "no rule set called 'chess'; available:"),
        (["plays"], "give a Position ID and dice"),
    ],
)
def test_bad_input_is_one_line_and_a_nonzero_exit(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(*argv)
    err = capsys.readouterr().err
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def _console_script() -> list[str]:
    script = shutil.which("gammonbot")
    return [script] if script else [sys.executable, "-m", "bot.cli"]


def test_jsonl_mode_recomputes_the_plays_of_every_standard_oracle_row() -> None:
    rows = oracle_rows("backgammon")
    text = (ORACLE / "backgammon.jsonl").read_text()
    proc = subprocess.run(
        [*_console_script(), "plays", "--jsonl"], input=text, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(rows)
    for row, answer in zip(rows, answers):
        assert answer["position"] == row["position"] and answer["dice"] == row["dice"]
        assert {Position.from_frame(f) for f in answer["plays"]} == {Position.from_frame(f) for f in row["plays"]}


def test_jsonl_mode_ignores_a_given_plays_field_and_reports_a_bad_row_by_line() -> None:
    good = {
        "variant": "backgammon",
        "position": {
            "board": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2],
            "bar": [0, 0],
            "off": [0, 0],
        },
        "dice": [3, 1],
        "plays": ["junk"],
    }
    bad = dict(good, dice=[0, 1])
    stdin = json.dumps(good) + "\n" + json.dumps(bad) + "\n"
    proc = subprocess.run(
        [*_console_script(), "plays", "--jsonl"], input=stdin, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert len(json.loads(proc.stdout.splitlines()[0])["plays"]) == 16
    assert proc.stderr.strip() == 'gammonbot: line 2: "dice" must be two numbers from 1 to 6, got [0, 1]'


def test_import_checks_a_mat_file_and_prints_the_match_or_one_line_with_the_line_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.match import MatchOptions
    from engine.matfile import export_mat
    from engine.plugins import get_variant
    from engine.selfplay import play_match

    state, actions = play_match(get_variant("backgammon"), MatchOptions(length=3), 17)
    mat = tmp_path / "m.mat"
    mat.write_text(export_mat(state.setup, actions))
    code, out = run("import", str(mat))
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Backgammon, 3-point match: Alice v Bob"
    assert len(lines) == len(state.results) + 2
    for result, line in zip(state.results, lines[1:]):
        winner = state.setup.side_name(result.winner)
        assert line.startswith(f"Game {result.game}: {winner} wins {result.points} point"), line
    name = state.setup.side_name(state.winner or 0)
    loser = state.setup.side_name(1 - (state.winner or 0))
    won, lost = state.score[state.winner or 0], state.score[1 - (state.winner or 0)]
    assert lines[-1] == f"Final score: {name} {won} - {lost} {loser}; {name} wins"  # the winner's score first
    assert state.winner == 1  # (Bob wins this one: the line puts him first, as the board's banner does)

    text = mat.read_text().splitlines()
    row = next(k for k, line in enumerate(text) if line.startswith("  2) "))
    text[row] = "  2) 66: 25/1"  # a play no roll makes
    mat.write_text("\n".join(text))
    assert run("import", str(mat)) == (1, "")
    err = capsys.readouterr().err
    assert err.startswith(f"gammonbot: {mat}: line {row + 1}: ") and err.count("\n") == 1 and "Traceback" not in err


def test_import_speaks_each_games_rule_set_and_a_teams_plural(tmp_path: Path) -> None:
    """A Tavli match names each game's result in that game's rule set's words and says nothing of a cube it does
    not have; a Doubles team wins in the plural (issue 33 item 7)."""
    from engine.match import MatchOptions
    from engine.matfile import export_mat
    from engine.plugins import get_variant
    from engine.selfplay import play_match

    tavli = get_variant("tavli")
    state, actions = play_match(tavli, MatchOptions(length=5), 3)
    mat = tmp_path / "tavli.mat"
    mat.write_text(export_mat(state.setup, actions))
    code, out = run("import", str(mat))
    assert code == 0, out
    games = out.splitlines()[1:-1]
    assert games and not any("cube" in line for line in games), out
    for result, line in zip(state.results, games):
        words = tavli.for_game(result.game - 1).result_name(result.level)
        assert f"({words}" in line, (line, words)

    doubles = get_variant("doubles")
    state, actions = play_match(doubles, MatchOptions(length=1), 5)
    mat = tmp_path / "doubles.mat"
    mat.write_text(export_mat(state.setup, actions))
    code, out = run("import", str(mat))
    team = state.setup.side_name(state.winner or 0)
    assert code == 0 and " & " in team, out
    assert out.splitlines()[-1].endswith(f"; {team} win"), out


def test_the_rules_of_a_rule_set_with_the_cube_say_so() -> None:
    from bot.service import GameService

    assert GameService.rules("longgammon").endswith("Played with the doubling cube.")
    assert "Played with the doubling cube." not in GameService.rules("plakoto")
