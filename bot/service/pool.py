"""Worker processes for the service's heavy, pure work: exports and replays of long records, bot players' choices,
hints and analyses, match cards and replay pictures.

**Why processes.** A worker thread shares the event loop's GIL and its garbage collector. Exporting a 10,000-action
record replays it (0.7 s of CPU) and makes millions of short-lived objects; each collection of the middle and oldest
generations that this triggers runs with the GIL held, in whichever thread tipped it, and a full one looks at every
object the process holds: the event loop waited 40 to 70 ms at a time (benchmarks/stall.py). A worker process has its
own GIL and its own collector, so the service's process only reads the record (one string, as the database joins it:
nothing its collector looks at; the worker decodes it) and receives the answer (text, a state, an action).

**How a job goes.** :meth:`WorkPool.run` takes a function (the service's jobs are in :mod:`.jobs`) and its
arguments: ``objects`` (values made of the engine's classes: a setup, a state, a bot player) and ``data`` (plain
values: the record as stored). They are pickled in a thread into one ``bytes`` and let go, so a job waiting for a
worker holds nothing the collector looks at. The worker rebuilds them, runs the function in the caller's languages
(engine.i18n) and sends the pickled answer back. Both paths call the same function with the same values, so a job
gives the same answer in a thread and in a worker. A job goes to a worker only when the caller says it is large
(:func:`pooled`: a record of at least :data:`POOL_FROM_ACTIONS` actions; a bot player's thinking); anything else,
and everything while the pool is starting, when it is turned off (``[limits] worker_processes = 0``) or after
:meth:`WorkPool.close`, runs in a thread as before.

**Lanes.** Every job names its lane (:data:`LANES`): ``urgent`` (a bot player to move, a hint: someone waits at
the table), ``short`` (exports, replays, record checks, dice statistics, cards without analysis: seconds at most)
and ``long`` (analyses, and cards with one: a minute for a long match). With three workers or more each lane has
workers of its own (one urgent, one long, the rest short), so a minute-long analysis never holds up an export, and
no export a bot's move; with two, the urgent lane keeps one and the others share the second; with one, all share
it. Within a lane, jobs wait for a worker in the order they came (the service lets each user and each game have
one heavy job under way at a time, :mod:`.heavy`, so one user's requests cannot fill a lane); a job whose callers
all gave up while it waited is dropped before a worker ever sees it. A job a worker has begun runs to its end.

**Why forkserver (spawn where there is none).** The service's process runs threads: SQLite's writer thread, the
database driver's, asyncio's worker threads. A child made by ``fork`` copies every lock as it was at that instant,
held by threads that do not exist in the child (a logging handler's, the allocator's, SQLite's), and may deadlock on
the first one it takes. The forkserver is a fresh single-threaded interpreter started once, with this module (and so
the engine and the rule sets) imported; workers are forked from it, which makes them quick to start and safe.
``spawn`` (a fresh interpreter per worker) is used where there is no forkserver (Windows).

**No worker outlives the service.** Killed with SIGKILL, the service's process runs nothing that stops its workers,
and the fork server outlives it too. So every worker looks each second whether the service's process is still there
and, when it is gone, stops the fork server and itself; on Linux the kernel then kills every other worker of that
fork server at once (``PR_SET_PDEATHSIG``). A restarted bot starts a fork server and workers of its own.

**Plugins.** A worker builds its own plugin registry (engine.plugins: the built-in plugins and the installed entry
points), with ``GAMMONBOT_PLUGINS`` as the service's process had it when the pool started. Every job carries a
fingerprint of the service's registry (each rule set and bot player: its name, its class or factory and the plugin
that registered it); a worker whose registry differs (a plugin handed to the registry by hand, a registry replaced in
a test, a package installed since the pool started) refuses the job, and the service does it in a thread instead. A
job never runs under other rules than the service's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import dataclasses
import gc
import hashlib
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine import i18n
from engine import match as m
from engine.plugins import ENV_PLUGINS, Registry, registry, reset_registry

from ..storage import Scope
from .jobs import (
    analyse_record,
    check_record,
    choose_action,
    draw_card,
    draw_replay,
    export_record,
    hint_for,
    record_of,
    replay_agrees,
    replay_counted,
    replay_record,
    rolls_of,
    tally_logs,
)

if TYPE_CHECKING:
    from ..storage import Store

__all__ = [
    "POOL_FROM_ACTIONS",
    "LANES",
    "WorkPool",
    "NotServed",
    "pooled",
    "registry_fingerprint",
    "export_record",
    "replay_record",
    "replay_agrees",
    "replay_counted",
    "rolls_of",
    "tally_logs",
    "check_record",
    "record_of",
    "choose_action",
    "hint_for",
    "analyse_record",
    "draw_card",
    "draw_replay",
]

log = logging.getLogger("gammonbot.service")
T = TypeVar("T")

#: Records of at least this many actions are exported, replayed or analysed in a worker process (when the service
#: has any); a shorter one in a thread. Replaying costs about 65 µs an action, so 200 actions are some 13 ms of work,
#: and a worker's round trip (the rows pickled, a pipe each way) about 1 ms.
POOL_FROM_ACTIONS = 200


#: The lanes of jobs (see the module docstring), in the order their workers are given out.
LANES = ("urgent", "long", "short")


def lane_sizes(processes: int) -> dict[str, tuple[str, int]]:
    """Each lane's executor (lanes with the same name share one) and its number of workers, for ``processes``
    workers in all: three or more, one each for the urgent and the long lane and the rest for the short one; two,
    the urgent lane one and the others the second; one, all of them the one."""
    if processes >= 3:
        return {"urgent": ("urgent", 1), "long": ("long", 1), "short": ("short", processes - 2)}
    if processes == 2:
        return {"urgent": ("urgent", 1), "long": ("heavy", 1), "short": ("heavy", 1)}
    return {lane: ("all", 1) for lane in LANES}


#: How much lower a worker's CPU priority is than the service's (``nice``; POSIX only). When the machine's cores are
#: all busy, the operating system runs the event loop's process first: a worker's export can wait some milliseconds,
#: every game on the loop cannot. A worker still has every core nobody else wants.
WORKER_NICENESS = 10
#: The same for the workers of the urgent lane when it has its own (bot players to move, hints): above the heavy
#: lanes', below the event loop's.
URGENT_NICENESS = 5
#: Records read at once for heavy jobs: the rest wait, so that long reads never take every database connection
#: from the players' requests.
RECORD_READS = 2
#: Linux's prctl option asking for a signal when the parent process dies.
PR_SET_PDEATHSIG = 1
#: Seconds between a worker's looks at whether the service's process is still there.
WATCH_SECONDS = 1.0
#: An answer larger than this (bytes, pickled) is unpickled in a thread, not on the event loop.
UNPICKLE_ON_THE_LOOP = 256 * 1024


def pooled(n_actions: int) -> bool:
    """Whether a job on a record of ``n_actions`` actions is large enough for a worker process."""
    return n_actions >= POOL_FROM_ACTIONS


class NotServed(RuntimeError):
    """A worker cannot do this job as the service would (other plugins, objects it cannot rebuild): do it in a
    thread instead."""


# --- the worker's side --------------------------------------------------------------------------------------------

_worker_fingerprint: str | None = None


def registry_fingerprint(reg: Registry) -> str:
    """What a job needs to be done the same way elsewhere: every rule set and bot player, by name, with its class or
    factory and the plugin that registered it."""
    parts = [
        f"variant {name} {cls.__module__}.{cls.__qualname__} {reg.owners.get(name)}"
        for name, cls in sorted(reg.variants.items())
    ]
    for name, spec in sorted(reg.players.items()):
        factory = getattr(spec.factory, "__qualname__", type(spec.factory).__qualname__)
        module = getattr(spec.factory, "__module__", "")
        parts.append(f"player {name} {module}.{factory} {reg.player_owners.get(name)} {spec.unavailable}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _die_with_the_service(service: int) -> None:
    """No worker outlives the service's process (killed with SIGKILL, say: nothing of it runs to stop them), nor goes
    on with a minute-long analysis nobody will read. A worker's parent is the fork server, which outlives the service
    too; so each worker looks every second whether the service (``service``, its pid) is still there, and when it is
    not, stops the fork server and itself. On Linux the kernel also kills a worker the moment its parent (the fork
    server) is gone, so the first worker to notice stops them all."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # no prctl: the watch below does it alone
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    server = os.getppid()  # the fork server (a spawned worker's parent is the service itself)

    def watch() -> None:
        while _running(service):
            time.sleep(WATCH_SECONDS)
        if server not in (1, service) and os.getppid() == server:  # still ours: never anyone else's process
            with contextlib.suppress(OSError):
                os.kill(server, signal.SIGTERM)
        os._exit(0)

    threading.Thread(target=watch, name="gammonbot-service-watch", daemon=True).start()


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (on Linux a zombie, dead and not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def _start_worker(plugins: str | None, niceness: int = WORKER_NICENESS, service: int | None = None) -> None:
    """A new worker: dying with the service's process (``service``, its pid), the service's GAMMONBOT_PLUGINS, its
    own registry, ^C left to the service, and a lower CPU priority than the service's (``niceness``:
    :data:`WORKER_NICENESS`, or :data:`URGENT_NICENESS`)."""
    global _worker_fingerprint
    if service is not None:
        _die_with_the_service(service)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(niceness)
    if plugins is None:
        os.environ.pop(ENV_PLUGINS, None)
    else:
        os.environ[ENV_PLUGINS] = plugins
    reset_registry()
    _worker_fingerprint = registry_fingerprint(registry())
    gc.freeze()  # what start-up loaded stays out of the worker's own collections


def _ready() -> int:
    return os.getpid()


def _pack(objects: tuple[Any, ...], data: tuple[Any, ...]) -> bytes:
    """A job's values as one pickle; a state travels without its listed legal plays (the worker lists them again if
    it needs them: less to pickle and send)."""
    objects = tuple(without_plays(o) if isinstance(o, m.MatchState) else o for o in objects)
    return pickle.dumps((objects, data), pickle.HIGHEST_PROTOCOL)


def _work(fn: Callable[..., Any], blob: bytes, fingerprint: str, languages: tuple[str, str, str]) -> bytes:
    """Run one job in a worker: its values rebuilt, in the caller's languages; the answer pickled (so that an answer
    that cannot travel is refused here, as NotServed, instead of breaking the pool)."""
    if fingerprint != _worker_fingerprint:
        raise NotServed("the worker's plugins differ from the service's")
    try:
        objects, data = pickle.loads(blob)
    except Exception as exc:  # a class the worker cannot import (a plugin given by hand, a test's own)
        raise NotServed(f"the job's values cannot be rebuilt here: {type(exc).__name__}: {exc}") from None
    user, shared, active = languages
    try:
        with i18n.request(user, shared):
            if active != user:
                with i18n.shared():
                    result = fn(*objects, *data)
            else:
                result = fn(*objects, *data)
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc, pickle.HIGHEST_PROTOCOL))
        except Exception:
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None
        raise
    try:
        return pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise NotServed(f"the answer cannot be sent back: {type(exc).__name__}: {exc}") from None


def _languages() -> tuple[str, str, str]:
    return i18n.user_language(), i18n.shared_language(), i18n.language()


def _context() -> multiprocessing.context.BaseContext:
    """forkserver where there is one, else spawn (see the module docstring: never fork, the service has threads)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        # Imported once by the fork server, so every worker starts with the engine, the rule sets and the renderer.
        ctx.set_forkserver_preload([__name__])
        return ctx
    return multiprocessing.get_context("spawn")


# --- the service's side -------------------------------------------------------------------------------------------


#: Each group of lanes' executor (lanes of one group share it).
Executors = dict[str, concurrent.futures.ProcessPoolExecutor]


class WorkPool:
    """Up to ``processes`` worker processes in their lanes (:func:`lane_sizes`), started in the background at the
    first large job (0: every job in a thread). :meth:`close` stops them."""

    def __init__(self, processes: int) -> None:
        self.processes = max(0, processes)
        self.lanes = lane_sizes(self.processes)
        #: Each group of lanes' executor, once the workers are up.
        self._executors: Executors | None = None
        #: The workers starting (in a thread of its own: not tied to one event loop), then started.
        self._starting: concurrent.futures.Future[Executors] | None = None
        self._closed = False
        self._fingerprint: tuple[Registry, str] | None = None
        self._turns: tuple[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] | None = None
        self._reads: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        #: Jobs the workers answered (the rest ran in threads).
        self.answered = 0
        #: Jobs whose callers all gave up while they waited for a worker (dropped before one began them).
        self.dropped = 0
        #: Stops the workers of a pool dropped without close() (a service a test forgot): see _stop_soon.
        self._finalizer: weakref.finalize[..., WorkPool] | None = None

    @property
    def workers(self) -> dict[str, int]:
        """How many workers each lane has (0 everywhere without workers: jobs in threads)."""
        return {lane: size if self.processes else 0 for lane, (_group, size) in self.lanes.items()}

    @property
    def running(self) -> bool:
        """Whether the worker processes are up (jobs go to them)."""
        return self._executors is not None

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        executors = self._executors or {}
        return sorted(p.pid for e in executors.values() for p in (e._processes or {}).values() if p.pid)

    async def start(self) -> bool:
        """Start the workers now (normally the first large job does) and wait until they are up; False when the pool
        is off or closed."""
        if self.processes == 0 or self._closed:
            return False
        self._begin()
        assert self._starting is not None
        try:
            await asyncio.wrap_future(self._starting)
        except Exception:  # logged
            return False
        return self._executors is not None

    async def run(
        self,
        fn: Callable[..., T],
        objects: tuple[Any, ...] = (),
        data: tuple[Any, ...] = (),
        *,
        large: bool,
        urgent: bool = False,
        lane: str | None = None,
    ) -> T:
        """``fn(*objects, *data)``: in a worker of its ``lane`` (``urgent`` for ``urgent=True``, else ``short`` unless
        named) when the job is ``large`` and the workers are up, else in a thread (see the module docstring). Jobs
        wait for a worker of their lane here, in order; cancelled while waiting, a job is dropped.

        A job for a worker is pickled first (in a thread) and its values let go: while it waits, the records it carries
        are one ``bytes`` each, which the garbage collector never looks at (a caller that wants that too passes the
        record without keeping it)."""
        lane = lane or ("urgent" if urgent else "short")
        if lane not in self.lanes:
            raise ValueError(f"no lane {lane!r}; lanes: {', '.join(LANES)}")
        executors = self._executors if large and not self._closed else None
        if executors is None:
            if large and self.processes and not self._closed:
                self._begin()
            return await asyncio.to_thread(fn, *objects, *data)
        try:
            blob = await asyncio.to_thread(_pack, objects, data)
        except Exception as exc:  # a plugin's value that does not pickle: its job stays in this process
            log.debug("%s stays in a thread: its values do not pickle (%s)", fn.__name__, exc)
            return await asyncio.to_thread(fn, *objects, *data)
        del objects, data
        group = self.lanes[lane][0]
        try:
            turn = self._turn(group)
            await turn.acquire()
        except asyncio.CancelledError:
            self.dropped += 1
            raise
        try:
            executor = (self._executors or {}).get(group)
            try:
                if executor is None:
                    raise NotServed("the pool closed or stopped meanwhile")
                answer = await asyncio.get_running_loop().run_in_executor(
                    executor, _work, fn, blob, self._registry_fingerprint(), _languages()
                )
                big = len(answer) > UNPICKLE_ON_THE_LOOP  # a card, a replay, a long export: not on the loop
                result: T = await asyncio.to_thread(pickle.loads, answer) if big else pickle.loads(answer)
                self.answered += 1
                return result
            except NotServed as exc:
                log.info("%s done in a thread: %s", fn.__name__, exc)
            except BrokenProcessPool:
                log.error("a worker process stopped; the pool starts again at the next large job, this job in a thread")
                assert executor is not None
                self._discard()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not self._closed or (task is not None and task.cancelling()):
                    raise
                log.debug("%s done in a thread: the pool closed while it waited", fn.__name__)
            except RuntimeError as exc:
                if not self._closed:  # "cannot schedule new futures after shutdown": closing meanwhile
                    raise
                log.debug("%s done in a thread: the pool closed meanwhile (%s)", fn.__name__, exc)
        finally:
            turn.release()
        objects, data = pickle.loads(blob)
        return await asyncio.to_thread(fn, *objects, *data)

    async def on_record(
        self,
        store: Store,
        game_id: int,
        fn: Callable[..., T],
        objects: tuple[Any, ...],
        *more: Any,
        first: int | None = None,
        large: bool = False,
        lane: str = "short",
    ) -> T:
        """``fn(*objects, log, *more)`` on a game's record as stored (:data:`Log`: one string; its ``first``
        actions), in a worker of ``lane`` when the record is long (:func:`pooled`) or the job ``large``. This
        process never decodes the record (a worker does), and does not keep it while the job waits (see
        :meth:`run`)."""
        async with self._reading():
            log = await store.action_log(game_id, scope=Scope.system(), first=first)
        job = self.run(fn, objects, (log, *more), large=large or pooled(log.count("\n") + 1 if log else 0), lane=lane)
        del log
        return await job

    async def close(self) -> None:
        """Stop the workers and wait until they have exited (a job still waiting for one is done in a thread; later
        jobs run in threads)."""
        self._closed = True
        starting, self._starting = self._starting, None
        executors, self._executors = self._executors, None
        if self._finalizer is not None:
            self._finalizer.detach()
        if starting is not None:
            with contextlib.suppress(Exception):  # it never started (logged)
                executors = await asyncio.wrap_future(starting)
        self._executors = None
        for executor in (executors or {}).values():
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)

    # --- internals ----------------------------------------------------------------------------------------------
    def _reading(self) -> asyncio.Semaphore:
        """Turns for reading records (:data:`RECORD_READS` at once, on this event loop)."""
        loop = asyncio.get_running_loop()
        if self._reads is None or self._reads[0] is not loop:
            self._reads = (loop, asyncio.Semaphore(RECORD_READS))
        return self._reads[1]

    def _turn(self, group: str) -> asyncio.Semaphore:
        """A group of lanes' turns: as many jobs at once as it has workers (the rest wait here, in order)."""
        loop = asyncio.get_running_loop()
        if self._turns is None or self._turns[0] is not loop:  # a semaphore serves one event loop
            sizes = {name: size for name, size in self.lanes.values()}
            self._turns = (loop, {name: asyncio.Semaphore(size) for name, size in sizes.items()})
        return self._turns[1][group]

    def _registry_fingerprint(self) -> str:
        reg = registry()
        if self._fingerprint is None or self._fingerprint[0] is not reg:
            self._fingerprint = (reg, registry_fingerprint(reg))
        return self._fingerprint[1]

    def _begin(self) -> None:
        """Start the workers in a thread (the fork server imports the engine first: seconds), once."""
        if self._starting is not None:
            return
        starting: concurrent.futures.Future[Executors] = concurrent.futures.Future()
        starting.set_running_or_notify_cancel()  # nobody waiting for it can cancel it
        self._starting = starting
        threading.Thread(target=self._start_into, args=(starting,), name="gammonbot-pool-start", daemon=True).start()

    def _make(self) -> Executors:
        sizes = {name: size for name, size in self.lanes.values()}
        made: dict[str, concurrent.futures.ProcessPoolExecutor] = {}
        try:
            for name, size in sizes.items():
                executor = concurrent.futures.ProcessPoolExecutor(
                    max_workers=size,
                    mp_context=_context(),
                    initializer=_start_worker,
                    initargs=(
                        os.environ.get(ENV_PLUGINS),
                        URGENT_NICENESS if name == "urgent" else WORKER_NICENESS,
                        os.getpid(),
                    ),
                )
                made[name] = executor
                # Each submission starts a worker while none is idle: all of them now, none later on the event loop.
                for future in [executor.submit(_ready) for _ in range(size)]:
                    future.result()
        except BaseException:
            for executor in made.values():
                executor.shutdown(wait=False, cancel_futures=True)
            raise
        return made

    def _start_into(self, starting: concurrent.futures.Future[Executors]) -> None:
        try:
            executors = self._make()
        except Exception as exc:
            log.error(
                "the worker processes did not start (%s: %s); heavy work stays in threads", type(exc).__name__, exc
            )
            starting.set_exception(exc)
            return
        if not self._closed:  # else close() stops it
            self._executors = executors
            self._finalizer = weakref.finalize(self, _stop_all, list(executors.values()))
            self._finalizer.atexit = False  # at exit concurrent.futures stops every pool itself
            log.info(
                "%d worker processes started for heavy work (lanes: %s)",
                self.processes,
                ", ".join(f"{lane} {size}" for lane, (_group, size) in self.lanes.items()),
            )
        starting.set_result(executors)

    def _discard(self) -> None:
        """A worker died: stop every executor; the pool starts again at the next large job."""
        executors, self._executors = self._executors, None
        self._starting = None
        if self._finalizer is not None:
            self._finalizer.detach()
        _stop_all(list((executors or {}).values()))


def _stop_all(executors: list[concurrent.futures.ProcessPoolExecutor]) -> None:
    for executor in executors:
        _stop_soon(executor)


def _stop_soon(executor: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop a pool's workers from a thread of its own: this may run inside a garbage collection, in a thread that
    holds one of the executor's locks."""
    threading.Thread(
        target=executor.shutdown, kwargs={"wait": True, "cancel_futures": True}, name="gammonbot-pool-stop", daemon=True
    ).start()


def without_plays(state: m.MatchState) -> m.MatchState:
    """A state without its listed legal plays (made again where needed)."""
    return dataclasses.replace(state, _plays=None) if state._plays is not None else state
