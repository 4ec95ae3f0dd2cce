"""Self-play: reproducible random matches, and the `gammonbot selfplay` command."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli import main
from engine.match import Beaver, Double, MatchOptions, Pass, Raccoon, Resign, Take, replay
from engine.matfile import import_mat
from engine.plugins import get_variant
from engine.selfplay import play_match


def test_same_seed_same_match_and_different_seed_different_match() -> None:
    bg = get_variant("backgammon")
    one = play_match(bg, MatchOptions(length=5), 42)
    assert play_match(bg, MatchOptions(length=5), 42) == one
    assert play_match(bg, MatchOptions(length=5), 43)[1] != one[1]


def test_random_players_exercise_every_cube_path() -> None:
    seen: set[type] = set()
    for seed in range(12):
        _, actions = play_match(get_variant("backgammon"), MatchOptions(games=4, beavers=True), seed)
        seen |= {type(a) for a in actions}
    assert {Double, Take, Pass, Beaver, Raccoon, Resign} <= seen


def test_money_session_needs_a_game_count() -> None:
    with pytest.raises(ValueError, match="number of games"):
        play_match(get_variant("backgammon"), MatchOptions(), 1)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_selfplay_command_writes_a_mat_file_and_prints_the_score(tmp_path: Path) -> None:
    mat = tmp_path / "m.mat"
    code, text = run("selfplay", "--variant", "backgammon", "--length", "5", "--seed", "9", "--mat", str(mat))
    assert code == 0
    setup, actions = import_mat(mat.read_text())
    state = replay(setup, actions)
    assert state.over
    w = state.winner or 0
    winner, loser = setup.side_name(w), setup.side_name(1 - w)
    assert text == (  # the winner's score first (issue 33)
        f"Backgammon, 5-point match: {winner} {state.score[w]} - {state.score[1 - w]} {loser} after "
        f"{len(state.results)} games; {winner} wins\n"
    )


def test_selfplay_money_session_with_options(tmp_path: Path) -> None:
    mat = tmp_path / "money.mat"
    code, text = run("selfplay", "--money", "3", "--seed", "2", "--jacoby", "--beavers", "--mat", str(mat))
    assert code == 0 and "money session of 3 games" in text
    setup, _ = import_mat(mat.read_text())
    assert setup.options.jacoby and setup.options.beavers and setup.options.games == 3


def test_selfplay_without_crawford(tmp_path: Path) -> None:
    mat = tmp_path / "nc.mat"
    assert run("selfplay", "--length", "3", "--seed", "1", "--no-crawford", "--mat", str(mat))[0] == 0
    assert '[Crawford "Off"]' in mat.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "1"], "either --length N"),
        (["--length", "3", "--money", "2", "--seed", "1"], "either --length N"),
        (["--length", "0", "--seed", "1"], "at least 1 point"),
        (["--length", "3", "--jacoby", "--seed", "1"], "money play only"),
        (["--variant", "chess", "--length", "3", "--seed", "1"], "no rule set called 'chess'"),
        (["--length", "3", "--seed", "1", "--mat", "/nonexistent/dir/x.mat"], "cannot write"),
    ],
)
def test_selfplay_usage_errors_are_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if "--mat" not in argv:
        argv = [*argv, "--mat", str(tmp_path / "x.mat")]
    code, _ = run("selfplay", *argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err
