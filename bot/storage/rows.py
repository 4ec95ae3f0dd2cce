"""What the store hands out and takes in: rows, timers, the scope of a lookup, and its errors."""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.i18n import N_, _

__all__ = [
    "ActionRow",
    "Conflict",
    "GameRow",
    "NotFound",
    "Scope",
    "TimerRow",
    "TimerSpec",
    "Unavailable",
    "game_id_of",
    "id_in_range",
]

#: The range of an ``INTEGER`` id column on every back end (PostgreSQL's is signed 32-bit).
ID_MIN, ID_MAX = -(2**31), 2**31 - 1


class Conflict(RuntimeError):
    """The game changed since it was read (another click or process acted first)."""


class NotFound(LookupError):
    """No game with that id (or none that the asker may see: the two are not told apart)."""


class Unavailable(RuntimeError):
    """The database did not answer in time: no connection within the acquire timeout, a statement cut off by the
    statement timeout, or the connection lost. The call changed nothing, unless the link was lost or stalled
    after a write had reached the server: then that write (one transaction) was applied whole or not at all, and
    a retry of a game update sees which (it applies, or meets :class:`Conflict`). ``str()`` is the message for
    the player; the driver's error is its ``__cause__``."""

    MESSAGE = N_("the game database is not answering right now; try again in a moment")

    def __init__(self, message: str | None = None) -> None:
        super().__init__(_(self.MESSAGE) if message is None else message)


@dataclass(frozen=True)
class Scope:
    """Which games a lookup may see: one server's, a player's own (a direct message), or every game (the system).

    Every game lookup takes one, and the store applies it in the query itself, so that a command cannot forget it.
    ``guild_id`` given: only games of that server (``player_id`` then names the asker, and does not narrow it).
    Only ``player_id`` given: only games in which that player has a seat. Neither: every game.
    """

    guild_id: str | None
    player_id: str | None

    @classmethod
    def server(cls, guild_id: str, player_id: str | None = None) -> Scope:
        """The games of one server (asked there by ``player_id``, when known)."""
        if not guild_id:
            raise ValueError("a server scope needs the server's id (a direct message is Scope.dm)")
        return cls(str(guild_id), None if player_id is None else str(player_id))

    @classmethod
    def dm(cls, player_id: str) -> Scope:
        """A direct message from ``player_id``: only the games in which that player has a seat."""
        if not player_id:
            raise ValueError("a direct-message scope needs the asker's id")
        return cls(None, str(player_id))

    @classmethod
    def system(cls) -> Scope:
        """Every game: for the bot's own work (the scheduler, timers, the unit of work), never for a request."""
        return cls(None, None)

    @property
    def is_system(self) -> bool:
        return self.guild_id is None and self.player_id is None


def game_id_of(game_id: Any) -> int:
    """``game_id`` as the id column holds it; NotFound (as for a missing game) if no row can have that id."""
    try:
        number = operator.index(game_id)
    except TypeError:
        raise NotFound(f"there is no game #{game_id}") from None
    if isinstance(game_id, bool) or not ID_MIN <= number <= ID_MAX:
        raise NotFound(f"there is no game #{game_id}")
    return number


def id_in_range(value: Any) -> bool:
    """Whether ``value`` can be the id of a row (an integer an ``INTEGER`` column holds)."""
    try:
        number = operator.index(value)
    except TypeError:
        return False
    return not isinstance(value, bool) and ID_MIN <= number <= ID_MAX


class GameStatus(StrEnum):
    """Where a game stands, as its row stores it (the strings are the stored values)."""

    CHALLENGE = "challenge"  #: proposed, waiting to be accepted
    ACTIVE = "active"  #: being played
    FINISHED = "finished"  #: the match ended
    DECLINED = "declined"  #: the challenge was declined or withdrawn
    EXPIRED = "expired"  #: the challenge was left open too long
    ARCHIVED = "archived"  #: put away unfinished (no move for too long, or its tournament moved on)


@dataclass
class GameRow:
    """One stored game (or challenge) with its decoded JSON columns."""

    id: int
    guild_id: str
    status: GameStatus
    variant: str
    setup: dict[str, Any]
    version: int
    snapshot: dict[str, Any] | None = None
    draft: list[Any] | None = None
    clock: dict[str, Any] | None = None
    turn_player: str | None = None
    channel_id: str | None = None
    thread_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    players: dict[str, int | None] = field(default_factory=dict)
    #: Each player's rolls so far (engine.fairdice.tally_rolls); None for a game played before they were kept.
    dice: dict[str, list[int]] | None = None


def _decoded_when_read(name: str) -> Any:
    """A JSON column of a :class:`ListedRow`: kept as its text until first read, then decoded once."""

    def read(row: GameRow) -> Any:
        value = row.__dict__[name]
        if isinstance(value, str):  # (decoded, these columns are never a string: a dict, a list or None)
            value = row.__dict__[name] = json.loads(value)
        return value

    def write(row: GameRow, value: Any) -> None:
        row.__dict__[name] = value

    return property(read, write)


class ListedRow(GameRow):
    """A game as a list of games reads it (Store.games_of: no snapshot), its JSON columns (setup, draft, clock) decoded
    only when read. A player in a thousand games lists a thousand rows at each keystroke of a ``game`` option; most of
    them are only counted, sorted by their plain columns and shown by number, and decoding every setup was most of
    the cost."""

    setup = _decoded_when_read("setup")  # type: ignore[assignment]
    draft = _decoded_when_read("draft")  # type: ignore[assignment]
    clock = _decoded_when_read("clock")  # type: ignore[assignment]


@dataclass
class ActionRow:
    """One entry of a game's action log."""

    seq: int
    action: dict[str, Any]
    at: float


@dataclass(frozen=True)
class TimerSpec:
    """A timer to store: what fires, when, and what it needs to know."""

    kind: str
    due_at: float
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class TimerRow:
    """A stored timer, pending or fired."""

    id: int
    game_id: int | None
    kind: str
    due_at: float
    game_version: int | None
    payload: dict[str, Any]
    claimed_by: str | None
    fired_at: float | None


def dump(value: Any) -> str:
    """The JSON text of a stored value (compact, keys sorted)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def load(text: str | None) -> Any:
    return None if text is None else json.loads(text)
