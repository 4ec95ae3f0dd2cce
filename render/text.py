"""The one-line text alternative of a board, and the labels the picture shares with it."""

from __future__ import annotations

from engine.notation import format_play
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot

__all__ = ["board_text", "match_label", "side_label", "cube_text"]


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
    if s.opening_dice is not None:
        parts.append(f"opening roll {you} {s.opening_dice[VIEWER]}, {them} {s.opening_dice[OPPONENT]}")
    if s.on_roll is not None:
        who = side_label(s, s.on_roll)
        if s.dice is not None:
            parts.append(f"{who} to play {s.dice[0]}-{s.dice[1]}")
        else:
            parts.append(f"{who} on roll")
    parts.append(f"pips {you} {s.pips[VIEWER]}, {them} {s.pips[OPPONENT]}")
    if s.match_length:
        parts.append(f"score {you} {s.score[VIEWER]}, {them} {s.score[OPPONENT]} (match to {s.match_length})")
    else:
        parts.append("money game" + (f", score {s.score[VIEWER]}-{s.score[OPPONENT]}" if any(s.score) else ""))
    cube = cube_text(s)
    if cube:
        parts.append(cube)
    if s.last_play_by is not None:
        played = format_play(s.last_play) or "no move"
        parts.append(f"last play {side_label(s, s.last_play_by)} {played}")
    return " · ".join(parts)
