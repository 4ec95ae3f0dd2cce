"""The ASCII board: every checker drawn where it stands, counts for tall stacks (10 to 15 too), bar, off, pips, dice."""

from __future__ import annotations

import pytest

from engine import Position
from engine.ascii import ascii_board
from engine.plugins import get_variant

BG = get_variant("backgammon")
LG = get_variant("longgammon")


def columns(text: str) -> dict[int, str]:
    """Map each point number to the characters drawn in its column, edge of the board first."""
    lines = text.splitlines()
    top_numbers, bottom_numbers = lines[0], lines[-2]
    found: dict[int, str] = {}
    for numbers, rows in ((top_numbers, lines[2:7]), (bottom_numbers, list(reversed(lines[8:13])))):
        for token_end, ch in enumerate(numbers):
            if ch.isdigit() and (token_end + 1 == len(numbers) or not numbers[token_end + 1].isdigit()):
                start = token_end - 1 if token_end and numbers[token_end - 1].isdigit() else token_end
                point = int(numbers[start : token_end + 1])
                # A count of 10 or more fills the column's space on the left as well.
                cells = [row[token_end - 1 : token_end + 1].strip() for row in rows]
                found[point] = "".join(cells).rstrip()
    return found


def test_starting_position_shows_every_stack() -> None:
    cols = columns(ascii_board(BG, BG.start_position()))
    assert cols[24] == "XX" and cols[13] == "XXXXX" and cols[8] == "XXX" and cols[6] == "XXXXX"
    assert cols[1] == "OO" and cols[12] == "OOOOO" and cols[17] == "OOO" and cols[19] == "OOOOO"
    assert all(cols[p] == "" for p in (2, 3, 4, 5, 7, 9, 10, 11, 14, 15, 16, 18, 20, 21, 22, 23))


def test_tall_stacks_show_their_count_bar_and_off_are_drawn() -> None:
    pos = Position.parse("24:7 6:-9 3:3 bar:2/1 off:3/5")
    text = ascii_board(BG, pos, dice=(6, 5), names=("ann", "bo"))
    cols = columns(text)
    assert cols[24] == "XXXX7" and cols[6] == "OOOO9" and cols[3] == "XXX"
    assert "off: ann 3  bo 5" in text
    assert "dice 6-5" in text
    pips = BG.pips(pos)
    assert f"pips {pips[0]}" in text and f"pips {pips[1]}" in text
    middle = text.splitlines()[2:13]
    assert sum(line.count("| X |") for line in middle) == 2
    assert sum(line.count("| O |") for line in middle) == 1


@pytest.mark.parametrize("count", range(1, 16))
def test_every_stack_height_reads_in_full_and_keeps_the_columns(count: int) -> None:
    """Up to 15 checkers on one point, and on the bar: the count is written out, every border stays put."""
    rest = 15 - count  # X: ``count`` on 13, the rest on 6; O: ``count`` on the bar, the rest on X's 24
    pos = Position.parse(f"13:{count} 6:{rest} 24:-{rest} bar:0/{count}" if rest else "13:15 bar:0/15")
    text = ascii_board(BG, pos)
    expected = "X" * min(count, 5) if count <= 5 else "XXXX" + str(count)
    assert columns(text)[13] == expected
    lines = text.splitlines()
    framed = lines[1:14]
    assert len({len(line) for line in framed}) == 1, framed  # nothing shifts the right border
    assert all(line[20] in "|+" and line[24] in "|+" for line in framed)  # nor the bar's borders
    bar = "".join(line[21:24].strip() for line in lines[2:7])
    assert bar == ("O" * count if count <= 5 else "OOOO" + str(count))


def test_a_longgammon_head_of_fifteen_is_readable() -> None:
    cols = columns(ascii_board(LG, LG.start_position()))
    heads = [text for text in cols.values() if text]
    assert sorted(heads) == ["OOOO15", "XXXX15"]
