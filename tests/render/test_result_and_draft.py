"""The end of a game and a play being entered, drawn: the result banner and its words, the draft on the board (image,
text alternative and ASCII board), and the names a match's snapshot carries."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from engine.ascii import ascii_board
from engine.match import (
    AcceptResignation,
    Double,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    Pass,
    Resign,
    Roll,
    apply,
    new_match,
)
from engine.plugins import get_variant
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot, GameEnd, board_snapshot
from engine.turn import TurnDraft
from render.board import layout_for, render_image
from render.text import board_text, result_lines
from render.theme import Theme

from .helpers import snap

BG = get_variant("backgammon")
THEME = Theme.build("classic", width=420)
NAMES = {"111111111111111111": "Annie", "222222222222222222": "Ben", "333": "Cy", "444": "Di"}
A, B = "111111111111111111", "222222222222222222"


def _differs(box: tuple[int, int, int, int], one: BoardSnapshot, two: BoardSnapshot) -> bool:
    a, b = render_image(one, THEME), render_image(two, THEME)
    return ImageChops.difference(a.crop(box), b.crop(box)).getbbox() is not None


# --- the result banner ---------------------------------------------------------------------------


def test_the_banner_is_drawn_over_the_middle_of_the_final_position() -> None:
    plain = snap(names=("Ann", "Bob"), on_roll=None, score=(0, 2), match_length=5)
    ended = snap(
        names=("Ann", "Bob"),
        on_roll=None,
        score=(0, 2),
        match_length=5,
        result=GameEnd(OPPONENT, 2, "gammon", "borne off", game=1),
    )
    box = layout_for(plain, THEME).result_rect()
    assert _differs(box, plain, ended)
    # Nothing away from the banner changes: the name rows and the checkers away from the middle are as they were (a
    # stack reaching under the banner stops short of it, its count on its last checker clear of it).
    L = layout_for(plain, THEME)
    top = (0, 0, THEME.width, L.field_top + 3 * L.d - 1)
    assert not _differs(top, plain, ended)
    assert "game 1 over: Bob wins a gammon: 2 points" in board_text(ended)


@pytest.mark.parametrize(
    ("end", "first"),
    [
        (GameEnd(OPPONENT, 2, "mars", "borne off"), "Bob wins a mars: 2 points"),
        (GameEnd(VIEWER, 1, "single game", "pass"), "Ann wins 1 point: Bob passed"),
        (GameEnd(OPPONENT, 6, "backgammon", "resign"), "Bob wins 6 points: Ann resigned a backgammon"),
        (GameEnd(VIEWER, 1, "", "timeout"), "Ann wins 1 point: Bob ran out of time"),
        (GameEnd(OPPONENT, 3, "", "forfeit", match_over=True, match_winner=OPPONENT), "Bob wins: Ann forfeited"),
    ],
)
def test_the_banner_says_who_won_how_and_for_how_much(end: GameEnd, first: str) -> None:
    s = snap(names=("Ann", "Bob"), on_roll=None, score=(2, 3), match_length=7, result=end)
    line, score = result_lines(s)
    assert line.startswith(first)
    if end.match_over:
        assert score == "Match over: Bob wins 3-2"
    else:
        assert score == "Score: Ann 2, Bob 3 (match to 7)"


def test_teams_win_and_money_sessions_end_in_words() -> None:
    teams = snap(
        names=("Ann", "Bob"),
        team_names=("Ann & Cy", "Bob & Di"),
        on_roll=None,
        score=(1, 0),
        match_length=1,
        result=GameEnd(VIEWER, 1, "single game", "borne off", match_over=True, match_winner=VIEWER),
    )
    assert result_lines(teams) == ("Ann & Cy win a single game: 1 point", "Match over: Ann & Cy win 1-0")
    money = snap(names=("Ann", "Bob"), on_roll=None, score=(2, 2), result=GameEnd(VIEWER, 1, "single game", "pass"))
    assert result_lines(money)[1] == "Money game, score: Ann 2, Bob 2"
    tie = snap(
        names=("Ann", "Bob"), on_roll=None, score=(2, 2), result=GameEnd(VIEWER, 1, "x", "pass", match_over=True)
    )
    assert result_lines(tie)[1] == "Session over: a tie, 2-2"
    with pytest.raises(ValueError):
        GameEnd(2, 1, "x", "pass")


def test_a_match_state_draws_its_game_ends_with_names() -> None:
    s = new_match(BG, [[A], [B]], MatchOptions(length=3))
    s = apply(s, OpeningRoll(A, (3, 1)))
    s = apply(s, Move(A, ((8, 5, False), (6, 5, False))))
    before = apply(s, Double(B))
    after = apply(before, Pass(A))
    assert after.game == 2
    # The game that ended, drawn from its last position (what the service keeps for it), as the winner sees it.
    ended = board_snapshot(before, B, names=NAMES, ended=after.results[-1])
    assert ended.result == GameEnd(VIEWER, 1, "single game", "pass", game=1)
    assert ended.names == ("Ben", "Annie") and ended.on_roll is None and ended.cube_offered_by is None
    # The new game shows no result, and not the last play of the game before, even once it has begun.
    s2 = apply(after, OpeningRoll(B, (2, 6)))
    fresh = board_snapshot(s2, A, names=NAMES)
    assert fresh.result is None and fresh.last_play == () and fresh.dice == (6, 2)
    # A match that is over shows the result of its last game without being asked.
    s3 = apply(s2, Resign(B, 3))  # accepted at once: it is all the game could be worth
    over = board_snapshot(s3, A, names=NAMES)
    assert over.result == GameEnd(VIEWER, 3, "backgammon", "resign", game=2, match_over=True, match_winner=VIEWER)
    assert result_lines(over) == ("Annie wins 3 points: Ben resigned a backgammon", "Match over: Annie wins 3-1")


def test_rule_sets_name_their_results() -> None:
    long = get_variant("longgammon")
    s = new_match(long, [[A], [B]], MatchOptions(length=3))
    s = apply(apply(s, OpeningRoll(A, (3, 1))), Resign(A, 2))
    if s.results == ():
        s = apply(s, AcceptResignation(B))
    assert board_snapshot(s, A, names=NAMES).result is None  # the match goes on: the caller asks for an end
    end = board_snapshot(s, B, names=NAMES, ended=s.results[-1]).result
    assert end is not None and end.result == "mars"


def test_names_come_from_the_mapping_and_teams_from_their_members() -> None:
    doubles = get_variant("doubles")
    s = new_match(doubles, [[A, "333"], [B, "444"]], MatchOptions(length=3))
    named = board_snapshot(s, "333", names=NAMES)
    assert named.names == ("Annie", "Ben") and named.team_names == ("Annie & Cy", "Ben & Di")
    assert A not in board_text(named) and B not in board_text(named)
    bare = board_snapshot(s, "333")
    assert bare.names == (A, B)  # without names, ids (the console's ids are names)


# --- a play being entered ------------------------------------------------------------------------


def _moving() -> tuple[MatchState, TurnDraft, BoardSnapshot]:
    s = new_match(BG, [[A], [B]], MatchOptions(length=3))
    s = apply(s, OpeningRoll(A, (3, 1)))
    draft = s.draft().add(8, 5)
    return s, draft, board_snapshot(s, A, names=NAMES, draft=draft)


def test_a_draft_is_drawn_as_it_is_entered() -> None:
    s, draft, moving = _moving()
    start = board_snapshot(s, A, names=NAMES)
    assert moving.draft and moving.dice_used == (3,) and moving.dice_left() == (1,)
    assert moving.position.board[4] == 1 and moving.position.board[7] == 2
    assert moving.position_id == start.position_id  # the ID of the position the play starts from
    full = (0, 0, THEME.width, 10_000)
    assert _differs(full, start, moving)
    assert "Annie is moving 8/5 (to play: 1)" in board_text(moving)
    # The opponent sees the same play being entered, from their side.
    theirs = board_snapshot(s, B, names=NAMES, draft=draft)
    assert theirs.last_play_by == OPPONENT and theirs.draft and theirs.on_roll == OPPONENT
    # A used die is drawn faint: the dice area of the mover's half changes once the 3 is played.
    L = layout_for(start, THEME)
    (x, y), size = L.dice_centers(VIEWER, 2)[0], L.die_size
    assert _differs((x - size, y - size, x + size, y + size), start, moving)


def test_a_doublet_being_played_shows_the_moves_left() -> None:
    s = new_match(BG, [[A], [B]], MatchOptions(length=3, opening="reroll"))
    s = apply(s, OpeningRoll(A, (3, 1)))
    s = apply(s, Roll(A, (4, 4)))
    draft = s.draft().add(24, 20)
    shown = board_snapshot(s, A, names=NAMES, draft=draft)
    assert shown.dice_left() == (4, 4, 4)
    assert "(to play: 4 4 4)" in board_text(shown)


def test_the_ascii_board_shows_the_checkers_moved_so_far() -> None:
    s, draft, _ = _moving()
    text = ascii_board(BG, s.position, dice=(3, 1), names=("Annie", "Ben"), draft=draft)
    lines = text.splitlines()
    bottom = lines[8:13]
    five = lines[-3].index(" 5") + 1  # the column of point 5 in the numbers under the board
    assert [row[five] for row in bottom] == [" ", " ", " ", " ", "x"]
    eight = lines[-3].index(" 8") + 1
    assert [row[eight] for row in bottom].count("X") == 2
    assert lines[-1] == " moving: 8/5 (to play: 1)"
    with pytest.raises(ValueError):
        ascii_board(BG, draft.position, draft=draft)


@pytest.mark.parametrize("width", [390, 640])
def test_the_banner_leaves_every_stack_count_whole(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stack taller than the room left by the banner shows its count on its last checker wholly clear of the
    banner: no count label (nor the checker carrying it) is sliced by the banner's edge."""
    from render import board

    labels: list[tuple[int, int]] = []
    real = board._count_label
    monkeypatch.setattr(
        board, "_count_label", lambda im, t, L, c, centre, n: labels.append(centre) or real(im, t, L, c, centre, n)
    )
    theme = Theme.build("classic", width=width)
    ended = snap(
        "24:2 19:-7 17:-6 13:8 12:-2 8:-1 6:7 1:-1",
        names=("Ann", "Bob"),
        on_roll=None,
        score=(0, 2),
        match_length=5,
        result=GameEnd(OPPONENT, 2, "gammon", "borne off", game=1),
    )
    render_image(ended, theme)
    L = layout_for(ended, theme)
    _x0, y0, _x1, y1 = board._banner(ended, L).rect
    assert len(labels) == 4
    for _x, y in labels:
        assert y + L.d // 2 <= y0 or y - L.d // 2 >= y1, (y, y0, y1)
