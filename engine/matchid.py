"""GNU Backgammon Match IDs (rules.md §6.3): the match and cube state in 12 characters.

The key is 66 bits (67 with GNU Backgammon's extended IDs), packed least significant bit first into
9 bytes and written in Base64 without padding:

====== ======================================================================
bits   field
====== ======================================================================
0–3    log2 of the cube value
4–5    cube owner: 0 = player 0, 1 = player 1, 3 = centred
6      the player on roll (who rolled, "dice owner")
7      this game is the Crawford game
8–10   game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped cube
11     the player who must act now
12     a double is pending
13–14  resignation offered (by the player not due to act): 0 none, 1/2/3 single/gammon/backgammon
15–17  die 1 (0 = not rolled; GNU Backgammon writes the higher die here)
18–20  die 2
21–35  match length (0 = money)
36–50  score of player 0
51–65  score of player 1
66     extended IDs only: 1 when the Jacoby rule is *not* in effect
====== ======================================================================

Player 0 is side 0 of the match (the left column of a ``.mat`` file).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

from .i18n import _

if TYPE_CHECKING:  # pragma: no cover
    from .match import MatchState

__all__ = ["GameState", "MatchIdError", "MatchInfo", "encode_match_id", "decode_match_id", "match_info", "match_id"]


class MatchIdError(ValueError):
    """Text that is not a Match ID, or fields no Match ID can hold; the message says which."""


class GameState(IntEnum):
    """The game-state field of a Match ID."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


_MAX15 = (1 << 15) - 1


@dataclass(frozen=True)
class MatchInfo:
    """The fields of a Match ID, in GNU Backgammon's terms."""

    cube_value: int = 1
    cube_owner: int | None = None  # None = centred
    dice_owner: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resign_level: int = 0
    dice: tuple[int, int] | None = None
    length: int = 0
    score: tuple[int, int] = (0, 0)
    #: With extended IDs: whether the Jacoby rule is in effect; None writes (or read) a plain 66-bit ID.
    jacoby: bool | None = None


def encode_match_id(info: MatchInfo) -> str:
    """The 12-character Match ID of ``info``; :class:`MatchIdError` if a field does not fit."""
    log2 = info.cube_value.bit_length() - 1
    if info.cube_value < 1 or 1 << log2 != info.cube_value or log2 > 15:
        raise MatchIdError(f"the cube value must be a power of two up to 32768, got {info.cube_value}")
    if info.cube_owner not in (None, 0, 1) or info.dice_owner not in (0, 1) or info.turn not in (0, 1):
        raise MatchIdError("players are numbered 0 and 1")
    if not 0 <= info.resign_level <= 3:
        raise MatchIdError(f"a resignation level is 0 to 3, got {info.resign_level}")
    d1, d2 = info.dice if info.dice is not None else (0, 0)
    if info.dice is not None and not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise MatchIdError(f"dice show 1 to 6, got {d1}-{d2}")
    for label, v in (("match length", info.length), ("score", info.score[0]), ("score", info.score[1])):
        if not 0 <= v <= _MAX15:
            raise MatchIdError(f"the {label} must be 0 to {_MAX15}, got {v}")
    bits = log2
    bits |= (3 if info.cube_owner is None else info.cube_owner) << 4
    bits |= info.dice_owner << 6
    bits |= int(info.crawford) << 7
    bits |= int(info.game_state) << 8
    bits |= info.turn << 11
    bits |= int(info.double_offered) << 12
    bits |= info.resign_level << 13
    bits |= d1 << 15
    bits |= d2 << 18
    bits |= info.length << 21
    bits |= info.score[0] << 36
    bits |= info.score[1] << 51
    if info.jacoby is not None:
        bits |= int(not info.jacoby) << 66
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(text: str, extended: bool = False) -> MatchInfo:
    """The fields of a Match ID; with ``extended`` the Jacoby bit is read too.

    Raise :class:`MatchIdError` when the text is not 12 Base64 characters or holds impossible fields.
    """
    mid = text.strip()
    if len(mid) != 12:
        raise MatchIdError(_("a Match ID has 12 characters, {text} has {count}").format(text=repr(mid), count=len(mid)))
    try:
        raw = base64.b64decode(mid, validate=True)
    except (binascii.Error, ValueError):
        raise MatchIdError(
            _("{text} is not a Match ID: it must use only A-Z, a-z, 0-9, + and /").format(text=repr(mid))
        ) from None
    bits = int.from_bytes(raw, "little")

    def field(at: int, width: int) -> int:
        return (bits >> at) & ((1 << width) - 1)

    owner = field(4, 2)
    if owner == 2:
        raise MatchIdError(_("{text}: cube owner 2 does not exist (0, 1, or 3 for centred)").format(text=repr(mid)))
    state = field(8, 3)
    if state > 4:
        raise MatchIdError(_("{text}: game state {state} does not exist (0 to 4)").format(text=repr(mid), state=state))
    d1, d2 = field(15, 3), field(18, 3)
    if (d1 == 0) != (d2 == 0) or d1 > 6 or d2 > 6:
        raise MatchIdError(
            _("{text}: the dice fields {first} and {second} are not a roll").format(text=repr(mid), first=d1, second=d2)
        )
    length = field(21, 15)
    score = (field(36, 15), field(51, 15))
    return MatchInfo(
        cube_value=1 << field(0, 4),
        cube_owner=None if owner == 3 else owner,
        dice_owner=field(6, 1),
        crawford=bool(field(7, 1)),
        game_state=GameState(state),
        turn=field(11, 1),
        double_offered=bool(field(12, 1)),
        resign_level=field(13, 2),
        dice=(d1, d2) if d1 else None,
        length=length,
        score=score,
        jacoby=(not field(66, 1)) if extended else None,
    )


def match_info(state: MatchState, extended: bool = False) -> MatchInfo:
    """The Match ID fields of a match state (side 0 is GNU Backgammon's player 0)."""
    from .match import EndReason, Phase

    phase = state.phase
    if phase is Phase.OVER:
        last = state.results[-1] if state.results else None
        game_state = GameState.OVER
        if last is not None and last.reason is EndReason.PASS:
            game_state = GameState.DROPPED
        elif last is not None and last.reason is EndReason.RESIGN:
            game_state = GameState.RESIGNED
    elif phase is Phase.OPENING:
        game_state = GameState.NONE
    else:
        game_state = GameState.PLAYING
    roller = state.roller if state.roller is not None else 0
    turn = state.turn if state.turn is not None else roller
    dice = None
    # The roll shows while it is being played, and while a resignation offered after it awaits an answer.
    rolled = phase is Phase.MOVE or (phase is Phase.RESIGNED and state.resume is Phase.MOVE)
    if rolled and state.dice is not None:
        dice = (max(state.dice), min(state.dice))
    return MatchInfo(
        cube_value=state.cube.value,
        cube_owner=state.cube.owner,
        dice_owner=roller,
        crawford=state.crawford_game,
        game_state=game_state,
        turn=turn,
        double_offered=phase is Phase.DOUBLED,
        resign_level=state.resign_level if phase is Phase.RESIGNED else 0,
        dice=dice,
        length=state.options.length,
        score=state.score,
        jacoby=state.options.jacoby if extended else None,
    )


def match_id(state: MatchState, extended: bool = False) -> str:
    """The Match ID of a match state."""
    return encode_match_id(match_info(state, extended))
