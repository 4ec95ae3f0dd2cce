"""Heavy work, fair and shared: exports, replays, record checks, dice statistics, match cards and analyses.

Each such request is a :class:`Job`: its kind, its game, the game's version and whatever else decides the answer
(the language it is worded in, the game of a replay, the theme of a card). :meth:`HeavyWork.run` does it once:

* **Shared.** The same job asked for again while it runs joins it; asked for after, while it is remembered (the
  newest :data:`KEEP` answers), is answered at once. A finished match's card asked for by both players, or the
  post-match report after its card, costs one job.
* **One at a time per user and per game.** A user's second heavy request waits until their first is done, and so
  does a second job on the same game in the same lane: one user cannot fill the workers with a hundred exports, nor
  a hundred users keep every worker on one long session (the same request shares its answer anyway). A game's short
  job (an export) does not wait for its long one (its analysis): they run in different workers.
* **Cancelled when nobody waits.** A job whose every caller gave up (its Discord interaction was cancelled, say)
  is cancelled; waiting for a worker, it is dropped before any worker begins it (:class:`.pool.WorkPool`). A job a
  worker has begun runs to its end, and its answer is kept for the next who asks.
* **In its lane.** Short jobs and long ones (analyses, cards with one) run in different workers
  (:data:`.pool.LANES`), so a minute-long analysis never holds up an export.
* **Bounded.** A lane takes at most :data:`QUEUE_PER_WORKER` jobs per worker at once (running, waiting for a worker,
  or waiting for the player's or the game's job before it); a player's request past that is answered at once with
  the reason ("busy: try again in a minute"), not after minutes in a queue that only grows. The service's own jobs
  (a finished match's card) always wait their turn.

The answers are the same objects the job made (a drawn card, a ``.mat`` text): callers must not change them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine import i18n
from engine.i18n import _

from ..locks import KeyedLocks
from .types import Refused

__all__ = [
    "Job",
    "HeavyWork",
    "KEEP",
    "QUEUE_PER_WORKER",
    "LONG_KINDS",
    "ANALYSIS_GAMES",
    "CARD_GAMES",
    "games_of",
    "analysed_from",
    "counted_from",
]

T = TypeVar("T")

#: How many answers are kept for a later identical request, and how many bytes of pictures and files at most (an
#: answer larger than a quarter of that is not kept: a replay's animation can be megabytes).
KEEP = 32
KEEP_BYTES = 64 * 1024 * 1024


def _busy() -> str:
    """Why a player's heavy request is refused when its lane is full (in the active language)."""
    return _("the bot is busy with other players' exports, replays and match cards; try again in a minute")


#: Jobs a lane takes per worker (running, or waiting for a worker); a player's job past that is refused at once.
QUEUE_PER_WORKER = 2

#: Kinds of job that take minutes rather than seconds: they run in the long lane.
LONG_KINDS = frozenset({"analysis", "card+analysis"})
#: The most games of a match an analysis judges (its last ones): judging a game takes seconds to a minute (every
#: decision ranked by the analyst), so a 200-game money session analysed whole would take an hour.
ANALYSIS_GAMES = 10
#: The most games of a match whose dice and cube actions a match card counts (its last ones; every game is in its
#: score): judging every roll's shots (21 rolls' legal plays each) is most of a card's work, 7 s of CPU for the
#: last 50 games of a 180-game session on a slow machine; with 20, 2 s, and replaying the record, the rest, 3.5 s.
CARD_GAMES = 20


def games_of(state: Any) -> int:
    """How many games a match has had, the one in play included."""
    return max(len(state.results), int(state.game))


def analysed_from(state: Any) -> int:
    """The first game an analysis of this match judges (:data:`ANALYSIS_GAMES`)."""
    return max(1, games_of(state) - ANALYSIS_GAMES + 1)


def counted_from(state: Any) -> int:
    """The first game whose dice and cube a card of this match counts (:data:`CARD_GAMES`)."""
    return max(1, games_of(state) - CARD_GAMES + 1)


@dataclass(frozen=True)
class Job:
    """What decides a heavy answer: its ``kind``, its ``game`` and that game's ``version`` (None for a job about no
    one game, as a player's dice statistics), the ``extra`` arguments, and the language it is worded in."""

    kind: str
    game: int | None
    version: int | None
    extra: tuple[Hashable, ...] = ()
    language: str = field(default_factory=i18n.language)

    @property
    def lane(self) -> str:
        return "long" if self.kind in LONG_KINDS else "short"


@dataclass
class _Running:
    task: asyncio.Task[Any]
    waiting: int = 0


class HeavyWork:
    """Runs :class:`Job` s shared, one at a time per user and per game, remembered, cancelled when nobody waits."""

    def __init__(self, keep: int = KEEP, workers: Mapping[str, int] | None = None) -> None:
        self.keep = keep
        #: How many jobs each lane takes at once (its workers times QUEUE_PER_WORKER).
        self.capacity = {lane: QUEUE_PER_WORKER * max(1, (workers or {}).get(lane, 1)) for lane in ("short", "long")}
        self._load: dict[str, int] = {"short": 0, "long": 0}
        self._running: dict[Job, _Running] = {}
        self._done: OrderedDict[Job, Any] = OrderedDict()
        self._weights: dict[Job, int] = {}
        self._users: KeyedLocks[str] = KeyedLocks(10_000)
        self._games: KeyedLocks[tuple[int, str]] = KeyedLocks(10_000)
        #: Jobs made, answers shared with a running job, answers given from memory, jobs cancelled, requests refused
        #: (a lane full): for tests and benchmarks.
        self.made = self.joined = self.remembered = self.cancelled = self.refused = 0

    async def run(self, job: Job, who: str | None, make: Callable[[], Awaitable[T]]) -> T:
        """The answer to ``job`` for user ``who`` (None: the service itself, as for a post-match card), made by
        ``make`` unless it is running or remembered; refused at once when its lane is full
        (:data:`QUEUE_PER_WORKER`)."""
        found = self._answer(job)
        if found is not None:
            return found[0]  # type: ignore[no-any-return]
        running = self._running.get(job)
        if running is not None:
            self.joined += 1
            return await self._wait(job, running)  # type: ignore[no-any-return]
        lane = job.lane
        if who is not None and self._load[lane] >= self.capacity[lane]:
            self.refused += 1
            raise Refused(_busy())
        self._load[lane] += 1  # a place in the lane, from now on (given back when the job is done or not needed)
        handed = False
        try:
            user = self._users(who) if who is not None else _nothing()
            game = self._games((job.game, lane)) if job.game is not None else _nothing()
            async with user, game:
                found = self._answer(job)  # made by someone else while this one waited its turn
                if found is not None:
                    return found[0]  # type: ignore[no-any-return]
                running = self._running.get(job)
                if running is None:
                    task = asyncio.ensure_future(self._make(job, make))
                    # Done, failed or cancelled (even before it began): the job's place is given back.
                    task.add_done_callback(functools.partial(self._finished, job))
                    running = self._running[job] = _Running(task)
                    handed = True
                    self.made += 1
                else:
                    self.joined += 1
                return await self._wait(job, running)  # type: ignore[no-any-return]
        finally:
            if not handed:
                self._load[lane] -= 1

    def forget(self, game: int) -> None:
        """Drop the remembered answers about a game (its players' names were erased, say)."""
        for job in [j for j in self._done if j.game == game]:
            del self._done[job]
            self._weights.pop(job, None)

    def forget_all(self) -> None:
        self._done.clear()
        self._weights.clear()

    # --- internals ------------------------------------------------------------------------------------------------
    def _answer(self, job: Job) -> tuple[Any] | None:
        if job not in self._done:
            return None
        self._done.move_to_end(job)
        self.remembered += 1
        return (self._done[job],)

    def _finished(self, job: Job, task: asyncio.Task[Any]) -> None:
        if self._running.get(job) is not None and self._running[job].task is task:
            del self._running[job]
        self._load[job.lane] -= 1

    async def _make(self, job: Job, make: Callable[[], Awaitable[Any]]) -> Any:
        answer = await make()
        self._running.pop(job, None)
        weight = _weight(answer)
        if weight <= KEEP_BYTES // 4:
            self._done[job] = answer
            self._weights[job] = weight
            self._done.move_to_end(job)
        while len(self._done) > self.keep or sum(self._weights.values()) > KEEP_BYTES:
            old, _answer = self._done.popitem(last=False)
            self._weights.pop(old, None)
        return answer

    async def _wait(self, job: Job, running: _Running) -> Any:
        """Wait for a running job; the last caller to give up cancels it."""
        running.waiting += 1
        try:
            return await asyncio.shield(running.task)
        finally:
            running.waiting -= 1
            if running.waiting == 0 and not running.task.done():
                running.task.cancel()
                self.cancelled += 1
                if self._running.get(job) is running:
                    del self._running[job]


def _weight(answer: Any) -> int:
    """About how many bytes an answer holds in pictures, files and text."""
    if isinstance(answer, str | bytes | bytearray):
        return len(answer)
    if isinstance(answer, tuple | list):
        return sum(_weight(part) for part in answer)
    if dataclasses.is_dataclass(answer) and not isinstance(answer, type):
        return sum(_weight(getattr(answer, f.name)) for f in dataclasses.fields(answer))
    return 0


class _nothing:
    """An ``async with`` that holds nothing (a job of the service itself, or about no one game)."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None
