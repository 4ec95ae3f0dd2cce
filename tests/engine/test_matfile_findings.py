"""One test per ``.mat`` finding of issue 19: glued columns, the order of submoves, false hit marks, a reader
quadratic on long lines, and what GNU Backgammon 1.07 writes (raccoons, resignations after the roll)."""

from __future__ import annotations

import contextlib
import io
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.cli import main
from engine.match import (
    Action,
    ActionError,
    Beaver,
    Double,
    MatchOptions,
    Move,
    Raccoon,
    Resign,
    Roll,
    Take,
    apply,
    replay,
)
from engine.matfile import MatFileError, export_mat, import_mat, read_mat
from engine.plugins import get_variant
from tests.engine.test_matfile import GNUBG_FILE
from tests.engine.test_matfile_roundtrip import self_play

#: A submove run into the roll of the next column, as the old export wrote "15/911: 25/24".
GLUED = re.compile(r"/\d{1,2}\*?[1-6][1-6]:")


def rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"\s*\d+\) ", line)]


# --- 1. glued columns ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("length", "seed"), [(3, 17), (1, 46)])
def test_the_reported_selfplay_files_have_separate_columns(length: int, seed: int, tmp_path: Path) -> None:
    mat = tmp_path / "x.mat"
    assert main(["selfplay", "--length", str(length), "--seed", str(seed), "--mat", str(mat)], io.StringIO()) == 0
    text = mat.read_text()
    assert not [line for line in text.splitlines() if GLUED.search(line)]
    assert replay(*import_mat(text)).over


ENTRY_WORDS = frozenset(("Doubles", "Takes", "Drops", "Beavers", "Raccoons", "Wins"))


def right_entry(line: str) -> int | None:
    """Where the right column's entry of a move line starts (None if it has none)."""
    for m in re.finditer(r"\S+", line):
        if m.start() >= 30 and (re.fullmatch(r"[1-6][1-6]:", m.group()) or m.group() in ENTRY_WORDS):
            return m.start()
    return None


def long_left_entries() -> tuple[str, list[tuple[str, int]]]:
    """A self-played export with left entries of 27 characters or more beside a right entry, and those rows."""
    for seed in range(300):
        state, actions = self_play(get_variant("backgammon"), MatchOptions(length=3), seed)
        text = export_mat(state.setup, actions)
        long = [(line, at) for line in rows(text) if (at := right_entry(line)) and len(line[5:at].rstrip()) >= 27]
        if any(len(line[5:at].rstrip()) >= 28 for line, at in long):
            return text, long
    raise AssertionError("no self-played match with a left entry of 28 characters")


def test_an_entry_always_ends_with_a_blank_however_long() -> None:
    text, long = long_left_entries()
    for line, at in long:
        assert line[at - 1] == " " and not GLUED.search(line), line  # GNU Backgammon: "%3d) %-27s " + right
        assert at == max(33, 5 + len(line[5:at].rstrip()) + 1), line
    assert replay(*import_mat(text)).over


def test_files_with_glued_columns_from_older_versions_still_import() -> None:
    text, long = long_left_entries()
    # What the old export wrote: the left entry padded to 28 characters, and no blank after a longer one.
    old_rows = {line: line[:5] + line[5:at].rstrip().ljust(28) + line[at:] for line, at in long}
    old = "\n".join(old_rows.get(line, line) for line in text.splitlines())
    assert any(GLUED.search(line) for line in old.splitlines())
    assert read_mat(old).actions == read_mat(text).actions


# --- 2. the order of submoves ----------------------------------------------------------------------------------
#: A Longgammon match between two heuristic bots, cut after Bob's 22 in row 11: played in this order, the play
#: never builds six points in a row; sorted (24/22 21/19 19/17 17/15) it would, for a moment, which the
#: six-block rule forbids. Bob resigns after it.
LONGGAMMON_ORDER = """\
; [Player 1 "Alice"]
; [Player 2 "Bob"]
; [Variation "Longgammon"]
; [RuleSet "longgammon"]
; [Crawford "On"]
; [CubeLimit "64"]

 1 point match

 Game 1
 Alice : 0                      Bob : 0
  1)                             31: 24/21 21/20
  2) 62: 24/18 18/16             63: 24/18 20/17
  3) 53: 16/11 24/21             52: 24/19 17/15
  4) 51: 24/19 21/20             62: 15/9 24/22
  5) 64: 24/18 18/14             64: 22/16 24/20
  6) 53: 20/15 19/16             54: 24/19 19/15
  7) 53: 24/19 16/13             11: 20/19 19/18 18/17 9/8
  8) 43: 24/21 21/17             43: 8/4 24/21
  9) 54: 24/19 19/15             52: 19/14 24/22
 10) 22: 24/22 15/13 13/11 22/20 21: 24/22 22/21
 11) 32: 11/8 24/22              22: 24/22 17/15 21/19 19/17
                                  Wins 1 point

"""


def test_submoves_are_written_and_replayed_in_the_order_played() -> None:
    done = read_mat(LONGGAMMON_ORDER)
    moves = [a for a in done.actions if isinstance(a, Move)]
    played = ((24, 22, False), (17, 15, False), (21, 19, False), (19, 17, False))
    assert moves[-1].moves == played
    assert export_mat(done.setup, done.actions) == LONGGAMMON_ORDER
    # In the sorted order the play is illegal: it would make six points in a row for a moment.
    before = replay(done.setup, done.actions[: done.actions.index(moves[-1])])
    with pytest.raises(ActionError, match="block of six points"):
        apply(before, Move("Bob", tuple(sorted(played, reverse=True))))


def test_a_file_with_the_submoves_sorted_still_imports_in_an_order_that_is_legal() -> None:
    # What the old export wrote (sorted submoves): the reader finds the order in which the play is legal.
    done = read_mat(LONGGAMMON_ORDER.replace("22: 24/22 17/15 21/19 19/17", "22: 24/22 21/19 19/17 17/15"))
    last = [a for a in done.actions if isinstance(a, Move)][-1]
    assert sorted(last.moves) == sorted(((24, 22, False), (17, 15, False), (21, 19, False), (19, 17, False)))
    assert last.moves != tuple(sorted(last.moves, reverse=True))
    assert done.state.results == read_mat(LONGGAMMON_ORDER).state.results


def test_a_play_no_order_makes_legal_is_refused_with_the_rule_of_the_order_written() -> None:
    wrong = LONGGAMMON_ORDER.replace("22: 24/22 17/15 21/19 19/17", "22: 24/22 21/19 19/17 17/13")
    with pytest.raises(MatFileError, match=r"line 22: 21/19 with a 2: this would build a block of six points"):
        read_mat(wrong)


# --- 3. hit marks ---------------------------------------------------------------------------------------------
def test_a_false_hit_mark_is_refused() -> None:
    false_mark = GNUBG_FILE.replace("  2) 52: 13/8 24/22", "  2) 52: 13/8* 24/22")
    with pytest.raises(MatFileError, match=r"line 8: 13/8\* marks a hit, but there is no lone opposing checker on 8"):
        import_mat(false_mark)


def test_a_hit_without_its_mark_is_refused() -> None:
    missing = GNUBG_FILE.replace(
        " 11) 51: 2/1 21/16               42: 8/4* 4/2", " 11) 51: 2/1 21/16               42: 8/4 4/2"
    )
    assert missing != GNUBG_FILE
    with pytest.raises(MatFileError, match=r"line 17: 8/4 hits the opposing checker on 4: write it 8/4\*"):
        import_mat(missing)


# --- 4. linear time -------------------------------------------------------------------------------------------
def in_game(line: str) -> str:
    return " 1 point match\n\n Game 1\n Alice : 0                      Bob : 0\n" + line + "\n"


#: Long lines of blanks where a backtracking pattern goes quadratic (the first three took the old reader 0.6 to
#: 1.2 s at 20,000 blanks), and others.
LONG_LINES: dict[str, Callable[[int], str]] = {
    "a score line with no colon": lambda n: " 1 point match\n Game 1\n Alice" + " " * n + "0\n",
    "a score line with one colon": lambda n: " 1 point match\n Game 1\n Alice :" + " " * n + "x\n",
    "a tag with no end": lambda n: "; [Player 1" + " " * n + '"Alice"\n' + in_game(""),
    "a tag of words": lambda n: "; [" + "a " * n + "\n" + in_game(""),
    "blanks after a roll": lambda n: in_game("  1)                             31:" + " " * n + "8/5 6/5"),
    "blanks between entries": lambda n: in_game("  1) 31: 8/5 6/5" + " " * n + "64: 24/18 13/9"),
    "blanks and then nothing readable": lambda n: in_game("  1) 31:" + " " * n + "x"),
    "blanks after an arrow": lambda n: in_game("  1)  Doubles =>" + " " * n + "x"),
    "one long word": lambda n: in_game("  1) 31:" + "1" * n),
    "many submoves": lambda n: in_game("  1) 31: " + "8/5 " * (n // 4)),
}


def cost(text: str, times: int) -> float:
    """The least processor time (of five tries) that reading ``text`` ``times`` times takes."""
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(times):
            with contextlib.suppress(MatFileError):
                read_mat(text)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("name", list(LONG_LINES))
def test_reading_grows_linearly_with_the_length_of_a_line(name: str) -> None:
    # Growth, not a time limit: reading one line 8 times as long costs about as much as reading the short one 8
    # times (a reader quadratic in the line would cost 8 times more; at 20,000 blanks the old one took 1.2 s).
    make = LONG_LINES[name]
    short, long = cost(make(20_000), 8), cost(make(160_000), 1)
    assert long < 3 * short + 0.005, (name, short, long)


# --- 5. what GNU Backgammon 1.07 writes -------------------------------------------------------------------------
#: GNU Backgammon 1.07's ``export match mat`` of a money session it imported: Alice's double, Bob's beaver,
#: Alice's raccoon (written as a second "Beavers"), Bob's take of it (written blank), then Alice rolls 43 and
#: resigns; in game 2 Bob rolls 43 and resigns a gammon; in game 3 Bob throws the opening 62 and resigns a
#: backgammon (1.07 writes that first roll in the left column).
GNUBG_RESIGNATIONS = (
    '; [EventDate "2026.12.01"]\n\n 0 point match\n\n Game 1\n'
    " Alice : 0                      Bob : 0\n"
    "  1)                             31: 8/5 6/5 \n"
    "  2)  Doubles => 2                Beavers => 4\n"
    "  3)  Beavers => 8                 \n"
    "  4) 42: 8/4 6/4                 61: 13/7 8/7 \n"
    "  5) 43:                         Wins 8 points\n\n"
    " Game 2\n Alice : 0                      Bob : 8\n"
    "  1) 31: 8/5 6/5                 43: \n"
    "      Wins 2 points\n\n"
    " Game 3\n Alice : 2                      Bob : 8\n"
    "  1) 62:       Wins 3 points\n\n"
)

#: GNU Backgammon 1.07's export of a 1-point match in which Alice rolled 61 with one legal play (25/24) and
#: resigned a backgammon: its importer played the forced move, and it writes the move.
GNUBG_FORCED_THEN_RESIGNED = (
    '; [EventDate "2026.12.01"]\n\n 1 point match\n\n Game 1\n'
    " Alice : 0                      Bob : 0\n"
    "  1)                             32: 24/22 24/21 \n"
    "  2) 41: 24/23 24/20             22: 22/20 20/18 8/6 6/4\n"
    "  3) 64: 20/14 13/9              51: 21/16* 4/3 \n"
    "  4) 63: 25/22* 8/2              63: 25/22 22/16 \n"
    "  5) 62: 13/11 11/5              31: 6/3* 3/2* \n"
    "  6) 61: 25/24                    Wins 3 points\n\n"
)


def test_a_raccoon_as_gnu_backgammon_writes_it() -> None:
    done = read_mat(GNUBG_RESIGNATIONS)
    assert done.setup.options.beavers
    cube = [a for a in done.actions[:8] if isinstance(a, Double | Beaver | Raccoon | Take)]
    assert cube == [Double("Alice"), Beaver("Bob"), Raccoon("Alice"), Take("Bob")]
    first = done.state.results[0]
    assert (first.winner, first.points, first.cube) == (1, 8, 8)
    again = read_mat(export_mat(done.setup, done.actions))
    assert again.actions == done.actions and again.state.results == done.state.results


def test_resignations_after_the_roll_as_gnu_backgammon_writes_them() -> None:
    done = read_mat(GNUBG_RESIGNATIONS)
    assert [(r.winner, r.points, r.level) for r in done.state.results] == [(1, 8, 1), (0, 2, 2), (0, 3, 3)]
    resigned_after = [
        (before.by, before.dice)
        for before, action in zip(done.actions, done.actions[1:])
        if isinstance(action, Resign) and isinstance(before, Roll)
    ]
    assert resigned_after == [("Alice", (4, 3)), ("Bob", (4, 3))]
    assert any(isinstance(a, Resign) and a.by == "Bob" and a.level == 3 for a in done.actions)  # game 3, Bob's roll


def test_a_forced_play_before_the_resignation_is_read_as_a_resignation_after_the_roll() -> None:
    done = read_mat(GNUBG_FORCED_THEN_RESIGNED)
    last: list[Action] = done.actions[-2:]
    assert last == [Roll("Alice", (6, 1)), Resign("Alice", 3)]
    assert [(r.winner, r.points) for r in done.state.results] == [(1, 3)]


def test_a_resignation_by_the_player_not_on_roll_is_refused_with_the_reason() -> None:
    text = GNUBG_RESIGNATIONS.replace("  5) 43:                         Wins 8 points", "  5) 43:       Wins 8 points")
    with pytest.raises(MatFileError, match="line 11: the file has Bob resign while Alice is on roll"):
        read_mat(text)
