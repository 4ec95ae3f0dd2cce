"""The one-line text alternative of a board, and the labels the picture shares with it."""

from __future__ import annotations

from engine.notation import format_play
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot

__all__ = ["board_text", "match_label", "side_label", "cube_text", "result_lines", "draft_text"]


def side_label(s: BoardSnapshot, side: int) -> str:
    """A side's name; in team play ``"Team · acting member"``."""
    if s.team_names is not None:
        return f"{s.team_names[side]} · {s.names[side]}"
    return s.names[side]


def match_label(s: BoardSnapshot) -> str:
    """``"Match to 5"`` / ``"Match to 5 · Crawford"`` or ``"Money game"``."""
    text = f"Match to {s.match_length}" if s.match_length else "Money game"
    if s.uses_cube and s.cube_unavailable:
        text += f" · {s.cube_unavailable}"
    return text


def cube_text(s: BoardSnapshot) -> str:
    """The cube's state in words, or '' when the game has no cube."""
    if not s.uses_cube:
        return ""
    if s.cube_unavailable:
        return f"cube unavailable ({s.cube_unavailable})"
    if s.cube_offered_by is not None:
        return f"{s.names[s.cube_offered_by]} doubles to {2 * s.cube_value}"
    if s.cube_owner is None:
        return "cube centred" if s.cube_value == 1 else f"cube {s.cube_value} centred"
    return f"cube {s.cube_value} owned by {s.names[s.cube_owner]}"


def _side_name(s: BoardSnapshot, side: int) -> str:
    """A side as a result names it: the team in team play, else the player."""
    return s.team_names[side] if s.team_names is not None else s.names[side]


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def result_lines(s: BoardSnapshot) -> tuple[str, str]:
    """The result banner's two lines (empty without a result): who won the game, how and for how many points;
    then the score it leaves, or who won the match.

    ``("Bob wins a gammon: 2 points", "Score: Ann 1, Bob 3 (match to 5)")``,
    ``("Bob wins 2 points: Ann passed", "Match over: Bob wins 5-1")``; a team "win"s.
    """
    r = s.result
    if r is None:
        return "", ""
    wins = "win" if s.team_names is not None else "wins"
    winner, loser = _side_name(s, r.winner), _side_name(s, 1 - r.winner)
    points = _points(r.points)
    if r.reason == "borne off":
        first = f"{winner} {wins} a {r.result}: {points}"
    elif r.reason == "rule":
        first = f"{winner} {wins} {points}" + (f": {r.how}" if r.how else "")
    elif r.reason == "draw":
        first = "A draw" + (f": {r.how}" if r.how else "") + ", nobody scores"
    elif r.reason == "pass":
        first = f"{winner} {wins} {points}: {loser} passed"
    elif r.reason == "resign":
        first = f"{winner} {wins} {points}: {loser} resigned" + (f" a {r.result}" if r.result else "")
    elif r.reason == "timeout":
        first = f"{winner} {wins} {points}: {loser} ran out of time"
    else:
        first = f"{winner} {wins}: {loser} forfeited the match"
    you, them = _side_name(s, VIEWER), _side_name(s, OPPONENT)
    leader = r.match_winner if r.match_winner is not None else (r.winner if s.match_length else None)
    score = f"{s.score[VIEWER]}-{s.score[OPPONENT]}" if leader != OPPONENT else f"{s.score[1]}-{s.score[0]}"
    if r.match_over:
        over = "Match over" if s.match_length else "Session over"
        second = f"{over}: {_side_name(s, leader)} {wins} {score}" if leader is not None else f"{over}: a tie, {score}"
    elif s.match_length:
        second = f"Score: {you} {s.score[VIEWER]}, {them} {s.score[OPPONENT]} (match to {s.match_length})"
    else:
        second = f"Money game, score: {you} {s.score[VIEWER]}, {them} {s.score[OPPONENT]}"
    return first, second


def draft_text(s: BoardSnapshot) -> str:
    """A play being entered, in words: ``"Ann is moving 13/9 (to play: 4)"`` ('' when there is none)."""
    if not s.draft or s.on_roll is None:
        return ""
    left = " ".join(map(str, s.dice_left()))
    return f"{side_label(s, s.on_roll)} is moving {format_play(s.last_play)}" + (f" (to play: {left})" if left else "")


def board_text(s: BoardSnapshot) -> str:
    """One line describing the board for screen readers and logs.

    Rule set, Position ID (when the rule set's IDs are GNU Backgammon's) or the position text, who is on
    roll and the dice, pips, score, cube and last play, e.g.
    ``Backgammon · Position ID 4HPwATDgc/ABMA · Ann to play 3-1 · pips Ann 167, Bob 167 · ...``.
    """
    you, them = side_label(s, VIEWER), side_label(s, OPPONENT)
    parts = [s.display_name]
    if s.position_id:
        parts.append(f"Position ID {s.position_id}")
    else:
        parts.append(f"board {s.position} (seen by {you})")
    if s.result is not None:
        first, second = result_lines(s)
        parts.append(f"game {s.result.game} over: {first}")
        if s.result.match_over:
            parts.append(second)
    if s.opening_dice is not None:
        parts.append(f"opening roll {you} {s.opening_dice[VIEWER]}, {them} {s.opening_dice[OPPONENT]}")
    if s.on_roll is not None:
        who = side_label(s, s.on_roll)
        if s.dice is not None:
            parts.append(f"{who} to play {s.dice[0]}-{s.dice[1]}")
        else:
            parts.append(f"{who} on roll")
    parts.append(f"pips {you} {s.pips[VIEWER]}, {them} {s.pips[OPPONENT]}")
    waiting = s.position.reserve
    if any(waiting):
        parts.append(f"waiting to enter {you} {waiting[VIEWER]}, {them} {waiting[OPPONENT]}")
    if s.match_length:
        parts.append(f"score {you} {s.score[VIEWER]}, {them} {s.score[OPPONENT]} (match to {s.match_length})")
    else:
        parts.append("money game" + (f", score {s.score[VIEWER]}-{s.score[OPPONENT]}" if any(s.score) else ""))
    cube = cube_text(s)
    if cube:
        parts.append(cube)
    if s.draft:
        parts.append(draft_text(s))
    elif s.last_play_by is not None:
        played = format_play(s.last_play) or "no move"
        parts.append(f"last play {side_label(s, s.last_play_by)} {played}")
    return " · ".join(parts)
