"""The game service: the application API under every transport (Discord, console, tests).

It owns permissions, turn order, persistence and automatic plays, and answers every call with an
:class:`Outcome`: the events that happened (each with a sentence a transport can post as is) and a
:class:`GameView` of the game afterwards. It knows no discord types.

Every change to a game goes through :meth:`GameService._change`: load the game (the state stored with its
last change: no replay), decide the action against that state, apply it, and write the result, with the new
state, as one compare-and-swap on the game's version. If another click or process changed the game first,
the write fails, the game is reloaded and the request is judged again against the new state, so a double
click is refused with the reason ("you have already rolled") instead of applying twice.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from engine.i18n import _

from ..config import Settings
from ..storage import GameStatus, Store, Unavailable
from .bots import BotsMixin
from .boundary import refuse_malformed
from .challenges import ChallengesMixin
from .clocks import ClocksMixin
from .core import ServiceCore as ServiceCore
from .events import _describe_terms as _describe_terms
from .events import _events as _events
from .events import _literal as _literal
from .events import _phase_words as _phase_words
from .events import _ratings_event as _ratings_event
from .events import _result_line as _result_line
from .events import _verb as _verb
from .events import _with_names as _with_names
from .helpers import _coerce as _coerce
from .helpers import _deciding as _deciding
from .helpers import _deciding_with as _deciding_with
from .helpers import _Loaded as _Loaded
from .helpers import _match_options as _match_options
from .helpers import _names as _names
from .helpers import _options_data as _options_data
from .helpers import _race_bearoff as _race_bearoff
from .helpers import _summary as _summary
from .helpers import _tc_data as _tc_data
from .helpers import _time_control as _time_control
from .helpers import _timed_length as _timed_length
from .helpers import _to_act as _to_act
from .helpers import json_dumps as json_dumps
from .missing import NotInstalled, not_installed
from .records import RecordsMixin
from .results import ResultsMixin, may_wait_for
from .settings import SettingsMixin
from .teams import TeamsMixin
from .tournaments import TournamentsMixin
from .turns import TurnsMixin
from .types import DAY as DAY
from .types import FORGOTTEN as FORGOTTEN
from .types import GUILD_DEFAULTS as GUILD_DEFAULTS
from .types import (
    PLAYER_DEFAULTS,
    SYSTEM,
    DiceProvider,
    Event,
    EventKind,
    GameView,
    Outcome,
    PlayerRef,
    Refused,
    Request,
    SeededDice,
    SystemDice,
    visible,
)
from .types import RESIGN_NAMES as RESIGN_NAMES
from .types import Who as Who
from .types import _System as _System
from .types import log as log
from .types import scope_of as scope_of

T = TypeVar("T")

__all__ = [
    "Refused",
    "PlayerRef",
    "Request",
    "SYSTEM",
    "visible",
    "Event",
    "EventKind",
    "GameStatus",
    "GameView",
    "Outcome",
    "GameService",
    "DiceProvider",
    "SystemDice",
    "SeededDice",
    "PLAYER_DEFAULTS",
    "service_for",
    "may_wait_for",
    "NotInstalled",
    "not_installed",
]


def _server(args: tuple[Any, ...]) -> str:
    """The server a service call is about, from its request (``-`` when none names one)."""
    for arg in args:
        guild = getattr(arg, "guild_id", None)
        if isinstance(arg, Request) and guild is not None:
            return str(guild)
    return "-"


#: Whether a service call is under way in this task: only the outermost call turns Unavailable into a refusal.
_calling: ContextVar[bool] = ContextVar("gammonbot_service_call", default=False)


class _Overload:
    """Warnings about players turned away for want of capacity, at most one per :attr:`EVERY` seconds per cause:
    the first at once, then one saying how many more there were (under overload there may be thousands a minute,
    and one line each would flood the log the operator needs to read)."""

    EVERY = 60.0

    def __init__(self) -> None:
        self.last: dict[str, float] = {}
        self.since: dict[str, int] = {}

    def warn(self, cause: str, text: str, *args: Any) -> None:
        now = time.monotonic()
        last = self.last.get(cause)
        if last is not None and now - last < self.EVERY:
            self.since[cause] = self.since.get(cause, 0) + 1
            return
        more = self.since.pop(cause, 0)
        self.last[cause] = now
        if more:
            text += " (and %d more such refusals in the last %d s)"
            args = (*args, more, round(now - (last or now)))
        log.warning(text, *args)


def _overload(service: Any) -> _Overload:
    """The service's own :class:`_Overload` (each service warns for itself)."""
    found = service.__dict__.get("_overload")
    if not isinstance(found, _Overload):
        found = service.__dict__["_overload"] = _Overload()
    return found


def _asked(args: tuple[Any, ...]) -> bool:
    """Whether a service call is a player's request (it names a Request), not the service's or a timer's."""
    return any(isinstance(arg, Request) for arg in args)


def _answering_try_again(cls: type[T]) -> type[T]:
    """Every public call of the service answers a database that does not answer in time (storage's
    :class:`~bot.storage.Unavailable`) as a refusal saying so ("try again in a moment"), which every transport
    shows the player; nothing was changed. Only the outermost call does (a call the service makes of itself
    lets it through), and the scheduler's :meth:`fire_timer` never does, so a timer that met a silent database
    stays due and fires again instead of being taken as done.

    **Overload is answered in order.** A request waits for the database as long as ``[storage] acquire_timeout``
    (30 s: the transports answer first, a Discord interaction then has 15 minutes), in the order it came; only
    when ``[limits] max_waiting_requests`` players' requests are under way already is one refused at once, with
    the reason ("busy") and a warning in the log (one a minute per cause, with the count since: :class:`_Overload`)."""
    members: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        members.update(vars(base))
    for name, member in members.items():
        if name.startswith("_") or not inspect.iscoroutinefunction(member):
            continue

        def wrap(method: Callable[..., Awaitable[Any]], convert: bool) -> Callable[..., Awaitable[Any]]:
            @functools.wraps(method)
            async def call(self: Any, *args: Any, **kwargs: Any) -> Any:
                if _calling.get():
                    return await method(self, *args, **kwargs)
                if convert:
                    refuse_malformed(method, args, kwargs)  # text with a surrogate, NaN, a number past 64 bits
                bounded = convert and _asked(args)
                if bounded and self.in_flight >= self.limits.max_waiting_requests:
                    _overload(self).warn(
                        "busy",
                        "server %s: %s refused, %d requests are under way already",
                        _server(args),
                        method.__name__,
                        self.in_flight,
                    )
                    raise Refused(_("the bot is very busy right now; try again in a moment"))
                token = _calling.set(True)
                self.in_flight += bounded
                try:
                    return await method(self, *args, **kwargs)
                except Unavailable as exc:
                    if not convert:
                        raise
                    # Players were turned away for a reason that is not theirs: the operator must see it.
                    _overload(self).warn(
                        "database",
                        "server %s: %s refused, the database is not answering (%s)",
                        _server(args),
                        method.__name__,
                        exc,
                    )
                    raise Refused(str(exc)) from exc
                finally:
                    self.in_flight -= bounded
                    _calling.reset(token)

            return call

        setattr(cls, name, wrap(member, convert=name != "fire_timer"))
    return cls


@_answering_try_again
class GameService(
    SettingsMixin,
    ChallengesMixin,
    TurnsMixin,
    ClocksMixin,
    BotsMixin,
    TeamsMixin,
    TournamentsMixin,
    RecordsMixin,
    ResultsMixin,
    ServiceCore,
):
    """Challenges, turns, the cube, resignations, views, exports, settings and tournaments for one database."""


def service_for(store: Store, settings: Settings, **options: Any) -> GameService:
    """The service as config.toml sets it up: ``[defaults]`` (what every server starts from), ``[ratings] system``,
    ``[limits]`` and ``[render]`` (board themes and PNG settings). ``options`` go to :class:`GameService` as they are
    (dice, clock, cache size, or a ``render`` configuration that replaces the file's)."""
    options.setdefault("render", settings.render_config())
    return GameService(
        store,
        rating_system=settings.ratings.system,
        defaults=settings.defaults.guild_defaults(),
        limits=settings.limits,
        **options,
    )
