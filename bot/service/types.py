"""The service's vocabulary: who asks, what happened, what a game looks like, the dice, and the defaults."""

from __future__ import annotations

import hashlib
import logging
import random
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from engine.i18n import N_, _
from engine.match import Phase

from ..storage import GameRow, GameStatus, Scope

log = logging.getLogger("gammonbot.service")


#: Player settings and their defaults.
PLAYER_DEFAULTS: dict[str, Any] = {
    "autoplay": True,  # play a forced play (the only legal one) automatically
    "auto_bearoff": False,  # in a race with everything home, bear off greedily
    "home": "right",  # which side the home board is drawn on
    "theme": "default",
    "dm_reminders": False,  # also send turn pings and reminders as direct messages
    "analysis": False,  # analyse my finished matches (errors by equity lost, biggest mistakes)
    "quiet_hours": "",  # "22-7": no direct messages from 22:00 to 07:00 UTC
}


#: Server settings and their defaults.
GUILD_DEFAULTS: dict[str, Any] = {
    "default_variant": "backgammon",
    "allowed_variants": None,  # None = every registered rule set
    "default_length": 5,
    "default_options": {},
    "default_time_control": None,  # a preset name; None: no clock
    "challenge_expiry_days": 7,  # open challenges expire after this many days
    "vacation_days_per_year": 21,  # how many vacation days a player may take in any 365 days
    "archive_after_days": 60,  # matches without a clock are archived after this long without a move
    "team_thread_fallback": "dm",  # Doubles without private threads: "dm" both members, or "refuse"
    # The language of what the bot posts for everyone (game threads, timers): one of engine.i18n.LANGUAGES, or
    # "auto": the server's Discord preferred locale when it is a shipped language, else English.
    "language": "auto",
}


#: The name an erased player's matches keep (stored in English; shown translated: :meth:`GameView.name`).
FORGOTTEN = N_("a former player")


RESIGN_NAMES = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}


class Refused(Exception):
    """A request that is not allowed; ``str()`` is the message for the player (names the rule or the fix)."""


@dataclass(frozen=True)
class PlayerRef:
    """A player as a transport knows them: a stable id and a display name."""

    id: str
    name: str


@dataclass(frozen=True)
class Request(PlayerRef):
    """Who asks (the actor, a :class:`PlayerRef`), from where, and through which transport: every call carries one.

    ``guild_id`` is the server the request comes from, or None for a direct message. Games are found only
    through it: a server sees its own games; a direct message sees only the asker's own games. ``admin``
    says the asker may manage that server (Discord: the Manage Server permission); it gives no power anywhere
    else. Transports build one per interaction; the service builds one for the players its timers and bot
    players act for, scoped to the game's own server.
    """

    guild_id: str | None
    transport: str = "service"
    admin: bool = False

    @property
    def actor(self) -> PlayerRef:
        return PlayerRef(self.id, self.name)

    def as_player(self, other: PlayerRef) -> Request:
        """The same request's context for another player (e.g. a bot acting in this server)."""
        return Request(other.id, other.name, self.guild_id, self.transport, self.admin)


class _System:
    """The service's own lookups (timers, bot players, bookkeeping after a request was already judged)."""

    def __repr__(self) -> str:
        return "SYSTEM"


#: The scope of the service's internal lookups: every game. Never handed to a transport.
SYSTEM = _System()


Who = Request | _System


def asker(who: Who) -> str | None:
    """Who asks, for heavy work taken one at a time per user (:mod:`.heavy`): a player's id, or None for the service
    itself (a post-match card, a timer)."""
    return who.id if isinstance(who, Request) else None


def scope_of(who: Who) -> Scope:
    """The storage scope of a request: its server's games, or in a direct message the asker's own games."""
    if isinstance(who, _System):
        return Scope.system()
    if not isinstance(who, Request):
        raise TypeError(f"a service call needs a Request (who asks, from where), not {type(who).__name__}")
    if who.guild_id is not None:
        return Scope.server(who.guild_id, who.id)
    return Scope.dm(who.id)


def visible(row: GameRow, who: Who) -> bool:
    """May ``who`` see this game? Its own server's games; in a direct message only the asker's own games."""
    if isinstance(who, _System):
        return True
    if not isinstance(who, Request):
        raise TypeError(f"a service call needs a Request (who asks, from where), not {type(who).__name__}")
    if who.guild_id is not None:
        return row.guild_id == who.guild_id
    return who.id in row.players


class EventKind(StrEnum):
    """What an :class:`Event` says happened (the strings are what a transport or a log line sees)."""

    ACCEPTED = "accepted"
    ACTING = "acting"
    ADOPTED = "adopted"
    APPROVED = "approved"
    ARCHIVED = "archived"
    AUTO_OPENING = "auto-opening"
    BEAVER = "beaver"
    BOT_FAILED = "bot-failed"
    CHALLENGE = "challenge"
    DECLINED = "declined"
    DICE_REVEALED = "dice-revealed"
    DOUBLE = "double"
    DRAFT = "draft"
    END_SESSION = "end-session"
    EXPIRED = "expired"
    FLAG = "flag"
    FORFEIT = "forfeit"
    GAME_OVER = "game-over"
    HELD = "held"
    MATCH_OVER = "match-over"
    MOVE = "move"
    NAME_DOUBLE = "name-double"
    OPENING = "opening"
    PASS = "pass"
    PROPOSAL = "proposal"
    RACCOON = "raccoon"
    RATINGS = "ratings"
    REJECTED = "rejected"
    REMINDER = "reminder"
    RESIGN = "resign"
    RESIGN_ACCEPTED = "resign-accepted"
    RESIGN_REJECTED = "resign-rejected"
    ROLL = "roll"
    START = "start"
    TAKE = "take"
    TIMEOUT = "timeout"
    TOURNAMENT = "tournament"
    TURN = "turn"


@dataclass(frozen=True)
class Event:
    """Something that happened. ``kind`` says what, ``text`` is a sentence for the players."""

    kind: EventKind
    game_id: int
    text: str
    by: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GameView:
    """A game as transports show it, seen by nobody in particular (no hidden information here)."""

    id: int
    guild_id: str
    status: GameStatus
    variant: str
    display_name: str
    sides: tuple[tuple[str, ...], tuple[str, ...]]
    names: dict[str, str]
    length: int
    score: tuple[int, int]
    game: int
    phase: Phase | None
    to_act: str | None  # player id who must act now (None: either acting member may roll the opening)
    acting: tuple[str, str] | None
    dice: tuple[int, int] | None
    cube: int
    cube_owner: int | None
    plays: tuple[str, ...]  # legal plays in notation (phase move)
    draft: str  # submoves made so far this turn
    draft_remaining: tuple[int, ...]
    winner: int | None
    position_id: str | None
    version: int
    thread_id: str | None = None
    channel_id: str | None = None
    challenger: str | None = None
    invited: tuple[str, ...] = ()
    #: Whether this match is played with the doubling cube (no cube in Tavli, Acey-deucey, or with ``no-cube``).
    uses_cube: bool = True
    #: A challenge: who must still accept it (a team challenge: each player it names but the challenger, until each
    #: has; one against one: the invited, any one of whom accepts; () for an open challenge).
    awaiting: tuple[str, ...] = ()
    #: When the running clock's flag falls (None: no clock runs); vacations may push it back.
    deadline: float | None = None
    #: Why the game cannot be shown or played now, in words ("rule set nackgammon is not installed"): a game of a
    #: rule set whose plugin is disabled or uninstalled, listed from its stored row (see missing.py). None: it can.
    unavailable: str | None = None

    @property
    def never_started(self) -> bool:
        """Whether the match never began: a challenge still open, or one declined or left to expire (it has no
        dice, positions or plays to show)."""
        return self.status in (GameStatus.CHALLENGE, GameStatus.DECLINED, GameStatus.EXPIRED)

    def side_of(self, player_id: str) -> int | None:
        for k, members in enumerate(self.sides):
            if player_id in members:
                return k
        return None

    def name(self, player_id: str | None) -> str:
        """A player as called now, in the active language (an erased player's neutral name, a bot's strength)."""
        if player_id is None:
            return _("nobody")
        name = self.names.get(player_id, player_id)
        if name == FORGOTTEN:
            return _(FORGOTTEN)
        if player_id.startswith("bot:") and player_id in self.names:
            from .helpers import bot_label  # (helpers imports this module)

            return bot_label(player_id) or name
        return name


@dataclass(frozen=True)
class Outcome:
    """What a request did: the events in order, and the game afterwards."""

    events: tuple[Event, ...]
    game: GameView
    #: How many actions this request added to the match record (automatic plays included).
    applied: int = 0


class DiceProvider(Protocol):
    """Where a match's dice come from: ``roll(game_id, n)`` is the n-th roll (from 0) of that game's record."""

    def roll(self, game_id: int, n: int) -> tuple[int, int]: ...


class SystemDice:
    """Dice from the operating system's random source (the default for real play)."""

    def __init__(self) -> None:
        self._rng = secrets.SystemRandom()

    def roll(self, game_id: int, n: int) -> tuple[int, int]:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


class SeededDice:
    """Reproducible dice for tests and demos: the same seed, game and roll number give the same dice."""

    def __init__(self, seed: int | str) -> None:
        self.seed = str(seed)

    def roll(self, game_id: int, n: int) -> tuple[int, int]:
        digest = hashlib.sha256(f"{self.seed}:{game_id}:{n}".encode()).digest()
        rng = random.Random(digest)
        return rng.randint(1, 6), rng.randint(1, 6)


DAY = 86400.0
