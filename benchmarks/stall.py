"""The event loop and one player under adversarial load, memory and load time against log length, timers on long games.

    python benchmarks/stall.py [--full] [--db URL | --postgres [URL]] [--sections memory,load,judge,stall,timers]

Figures, each printed beside its target (2 cores) as met or MISSED; nothing is asserted:

* ``stall``: the service holds ``--live`` games (``--long`` of them with at least ``--long-actions`` actions, timed
  correspondence money sessions; the rest mostly short). For ``--duration`` seconds, after a warm-up, other users load
  it at a steady rate, each request arriving on its own (Poisson arrivals, not a closed loop of simultaneous clients;
  the rates are printed): ordinary players acting in random live games, each action followed by a board for the next
  player; 6,000-character plays and plays of adversarial text at the length cap; 6,000-character and capped
  adversarial proposals in Doubles games; a player challenging until refused, then withdrawing; ``/bg games`` of a
  player seated in ``--hoard`` long games (as the bot does it: the list of rows, then the views of its first page of
  20, bot/discord/context.py); loads of long games not in the cache (the game dropped first, as the scheduler does for
  every timer); matches against a bot player (the bot's moves); board renders; reminders falling due and fired by the
  running scheduler; and the heavy requests, each made as the cogs make it (bot/discord/cogs/*.py,
  bot/discord/threads.py and table.py), by one of 20 users (the service takes one heavy request at a time per user) or
  by the bot itself: exports of 10,000-action and long games (``export``); replays of a game of a long game, a
  10,000-action game or a long session (``view``, then ``replay`` of a game number the user picks); match cards
  (``match_card(game, SYSTEM)`` in any board theme, as the bot posts one at a match's end) of short matches played to
  their end and of money sessions of ``--session-games`` (200) games (``--sessions`` of them, some 15,000 actions
  each); analyses: the post-match report of short matches whose players asked for analyses (``analysis_report``) and
  cards with the analysis (``match_card(..., analysis=True)``) of long games and of the 200-game sessions; ``/bg-dice
  verify`` (``checked_record``: the dice checked and the record made as the JSON text it attaches, as the command
  does) of finished short matches and of long games, 10,000-action games and the long sessions (running: their record
  is replayed whole and reported not verifiable yet; every match the benchmark makes through the service has
  commit-reveal dice, as the bot's do); dice statistics (``dice_stats``) of the player seated in ``--hoard`` long
  games. Meanwhile one measured player plays a long game alone (one request at a time, ``--think`` seconds between
  actions). A real player thinks seconds to hours between actions (it is a correspondence session): by then the game
  has left the service's cache (the scheduler drops a game for each timer it fires, and the load turns the cache
  over), so before each action the game is dropped from the cache with probability ``--cold`` (default 1: every action
  starts cold, loaded from the database), as for the loads of long games not cached. Each action's latency runs from
  the call to the board of the next position drawn, as the bot does after every action (``board(game, SYSTEM,
  viewer=...)``), and is recorded; a request answered "try again" counts with its wait. For the slowest actions the
  wall time spent in each store method is printed. ``--crowd`` and ``--rate-scale`` set the rates, ``--heavy-scale``
  those of the heavy kinds but exports. Requests refused or failed are counted per kind; the bot's logged warnings and
  errors are counted instead of printed. For each heavy kind the wall time from request to answer is printed (p50,
  p99; a request still waiting ``--grace`` seconds after the load stopped is given up, cancelled and counted at its
  wait so far), and for every kind how soon its refusals were answered (a ``Refused`` is an answer: it gives the
  reason).

  Then, on a fresh service with nothing else to do: ``verify`` of one money session of ``--verify-actions``
  (20,000) actions, built as the long games are, once, the loop watched meanwhile.

  The loop is watched two ways: every callback the loop runs is timed by the CPU time of the loop's thread
  (``time.thread_time``; a wrapper around ``asyncio.Handle._run``, as tests/bot/discord/helpers.py LoopMeter
  does), which other processes on the machine cannot inflate, and a task sleeping 1 ms records how late it
  wakes (wall clock: it includes waiting for the GIL held by worker threads and for the machine's other
  processes). For its five latest wake-ups it prints what ran on the loop meanwhile: how many callbacks, their wall
  time in all and the longest one's, and the collections in other threads (a wake-up waits for every callback ready
  before it, so a late one can be queueing behind many short callbacks rather than one stall). The garbage
  collector's pauses are timed too (``gc.callbacks``), in whichever thread they run (a collection holds the GIL: the
  loop waits for it wherever it runs); what start-up loaded is frozen out of its passes first, as the bot does
  (bot/runtime.py).
* ``memory``: ``tracemalloc`` around a fresh service loading ``--memory-games`` games of each log length of
  ``--memory-sizes`` into its cache (each viewed, as a live game is); per game = traced growth / games, once with
  every game held decoded, once with every game compact (the cache holds its most recently used games decoded, the
  rest compact: bot/service/cache.py). Per live game = the mean over ``--live`` live games of that length, as many
  decoded as the service's hot tier holds.
* ``load``: the CPU time (``time.process_time``: the loop and the database driver's threads) of a fresh
  service loading one game (state, then state and view), against its log length (``--load-sizes``).
* ``judge``: the worst CPU time (``time.thread_time``) the engine takes to judge adversarial plays
  (``Variant.check_play``; 6,000 characters, the engine's own bound and the service's cap) in positions of
  long games, for every roll; and the service refusing a 6,000-character play.
* ``timers``: ``--timers`` timed games with at least ``--timer-actions`` actions each; the fake clock moves
  past their first reminders, then past their timeouts; the scheduler's tick that fires them is timed (wall
  and process CPU). A timeout is a game change (the game ends, the next one starts, timers are replaced).
  ``--profile`` prints where the loop's thread spent each tick (cProfile, which slows it down).

The first lines print ``machine_speed``: the CPU time of a fixed piece of plain Python work. Machines differ, and a
shared one from day to day (the same kind of machine ran this project's engine at half its usual speed one day):
compare two runs by it before comparing their figures.

How the long games are made: every game is created through the service (challenge, accept). Its history is
then self-played by the engine (``engine.selfplay.RandomPlayer``: random legal plays, doubles, takes, passes,
resignations; a forced play is made at once, as the service's ``autoplay`` does, so every record ends where a
request could have left it) and written through the Store API in one compare-and-swap, exactly as the service
writes a change: the action log (``engine.record.action_to_data``), the snapshot ``{"v": 2, "state":
state_to_data(state), "counters": log_counters(actions)}``, the player to act, the cleared draft, and for timed
games the clock advanced action by action (``bot.clock.advance``) and the timers the service computes
(``_timers_for``), all at one instant. Histories are taken from ``--templates`` self-played sessions (player
ids replaced); the first game written from each template is read back, its log replayed and checked equal to
its stored state and counters. The dice of later rolls come from the service's seeded dice, as in the other benchmarks.
The timed games, the 10,000-action ones and the long sessions are created with commit-reveal dice (the service's dice
set aside meanwhile), as every match of the bot is, so that ``verify`` checks them rather than refusing them at once;
the sessions of ``--session-games`` games (and the one of ``--verify-actions``) are self-played from one more template
until that many games are over. The short matches (``--short-matches`` of ``--short-length`` points) are played to
their end through the service itself (random legal plays, every double taken), with commit-reveal dice: their
records verify.

Heavy work (exports and replays of long records, bot players, cards, analyses, record checks) goes to the service's
worker processes (bot/service/pool.py), as many as config.toml's ``[limits] worker_processes`` or ``--workers`` (0:
threads), started before the stall and timer sections; the CPU they use is printed beside this process's. A job a
worker has begun runs to its end: workers still busy ``--grace`` seconds after their service began closing are
stopped (SIGTERM), and the benchmark says so.

The database is a fresh SQLite file (built with ``synchronous=OFF``, then reopened with the bot's default
``FULL``), or a fresh schema on PostgreSQL (``--postgres``, default $GAMMONBOT_TEST_POSTGRES_URL), or ``--db``.
The service is set up from config.toml (``[limits]``, ``[render]``), as the bot is. ``--full`` sets the sizes of
the targets (10,000 live games, 1,000 of them with 1,000 actions; 1,000 timers); the defaults are smaller.

Targets (issue: stalls and honest figures; heavy work off the loop, shared and capped): under the adversarial load
with its heavy requests, the longest event-loop callback <= 25 ms of CPU and the 1 ms ticker's latest wake-up
<= 50 ms; one player's action p99, the board of the next position included, <= 100 ms with 10,000 live games of
which 1,000 have at least 1,000 actions; p99 of exports and of replays <= 5 s, of match cards (short matches, the
200-game sessions) <= 10 s; requests over a size cap (any request refused, per kind) answered with the reason in
<= 1 s (p99); verify of a 20,000-action session: the loop's longest callback meanwhile <= 10 ms of CPU; loading a
10,000-action game <= 5 ms of CPU; 1,000 due timers on long games fire in <= 1 s; memory per live game <= 20 KB
whatever its log length; judging a play of any length <= 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import cProfile
import dataclasses
import functools
import gc
import inspect
import logging
import os
import pstats
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
import uuid
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.clock import Clock, advance, start_clock  # noqa: E402
from bot.config import load_settings  # noqa: E402
from bot.discord.context import PAGE_SIZE  # noqa: E402  (the games on one page of /bg games)
from bot.runtime import tune_for_serving  # noqa: E402
from bot.scheduler import Scheduler  # noqa: E402
from bot.service import SYSTEM, GameService, Outcome, Refused, Request, SeededDice, service_for  # noqa: E402
from bot.service.helpers import SNAPSHOT_VERSION, _time_control, _to_act  # noqa: E402
from bot.storage import Scope, Store, TimerSpec, Unavailable  # noqa: E402
from engine.dice import RandomDice  # noqa: E402
from engine.match import Action, MatchSetup, MatchState, Move, Phase, apply, replay  # noqa: E402
from engine.record import (  # noqa: E402
    action_from_data,
    action_to_data,
    advance_counters,
    log_counters,
    setup_from_data,
    state_from_data,
    state_to_data,
)
from engine.selfplay import RandomPlayer  # noqa: E402
from engine.validate import IllegalPlay  # noqa: E402

GUILD = "bench"
TIME_CONTROL = "correspondence"
#: The issue's reproduction: a 6,000-character play (Discord's limit for a string option).
LONG_PLAY = "8/7*(4) " * 700
#: Units of adversarial text (each repeated to the wanted length).
ADVERSARIAL_UNITS = {
    "repro 8/7*(4)": "8/7*(4) ",
    "hops 24/23": "24/23 ",
    "hits 8/7*": "8/7* ",
    "chain 24/../off": "/".join(str(p) for p in range(24, 0, -1)) + "/off ",
    "bar chain": "bar/24*/23*/22*/21*/20* ",
    "repeat 6/off(4)": "6/off(4) ",
    "digits": "8",
    "slash digits": "8/",
    "parens (4)": "(4)",
    "unicode digits": "\u0668/\u0667 ",
    "mixed garbage": "8/7*(4)//**((bar/off 13/x 7/13 30/20 ",
}


def fill(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def dur(seconds: float) -> str:
    """Milliseconds below a second, else seconds."""
    return ms(seconds) if seconds < 1 else f"{seconds:.1f} s"


def pct(values: list[float], q: float) -> float:
    """The q-th quantile (0..1) of ``values`` (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered))) - 1))]


class Verdicts:
    """Every figure with a target, printed beside it and again at the end."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, bool]] = []

    def check(self, what: str, value: float, limit: float, unit: str, shown: str | None = None) -> str:
        ok = value <= limit
        text = f"{shown or f'{value:.1f} {unit}'} (target <= {limit:g} {unit}: {'met' if ok else 'MISSED'})"
        self.rows.append((what, text, ok))
        return text


VERDICTS = Verdicts()


class LogCount(logging.Handler):
    """Counts the bot's warnings and errors (by logger and first line) instead of printing their tracebacks."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        key = f"{record.name} {record.levelname}: {record.getMessage().splitlines()[0][:120]}"
        if record.exc_info and record.exc_info[1] is not None:
            key += f" ({type(record.exc_info[1]).__name__})"
        self.seen[key] = self.seen.get(key, 0) + 1

    def report(self, indent: str = "  ") -> None:
        if self.seen:
            print(f"{indent}the bot's log, warnings and errors:")
            for key, n in sorted(self.seen.items(), key=lambda kv: -kv[1]):
                print(f"{indent}  {n:5d} x {key}")
        self.seen.clear()


LOG = LogCount()


class BenchClock:
    """The time the service, the store and the scheduler see: real time plus an offset the timer section moves."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


# --- building games ----------------------------------------------------------------------------------------------


@dataclass
class Game:
    """A benchmark game: its id, the requests of its two players, its log length and whether it is timed."""

    id: int
    players: tuple[Request, Request]
    actions: int = 0
    timed: bool = False


@dataclass
class Want:
    """A game whose history is to be written: ``length`` actions (at least) from template ``template``."""

    game: Game
    template: int
    length: int


@dataclass
class Cut:
    """A template's record cut at a request boundary: what the service stores for that prefix."""

    length: int
    state_data: dict[str, Any]
    counters: dict[str, int]
    clock: Clock


class Templates:
    """Self-played money sessions whose prefixes become the games' histories (player ids replaced)."""

    X, Y = "template-x", "template-y"

    def __init__(self, setup: MatchSetup, count: int, tc: Any, now: float, seed: int = 1) -> None:
        self.setup = dataclasses.replace(setup, sides=((self.X,), (self.Y,)), names=None)
        self.count = count
        self.tc = tc
        self.now = now
        self.seed = seed
        self.actions: list[list[dict[str, Any]]] = [[] for _ in range(count)]
        self.cuts: list[dict[int, Cut]] = [{} for _ in range(count)]

    def build(self, wants: list[Want]) -> None:
        """Self-play each template far enough for every prefix wanted, keeping the cuts at request boundaries."""
        need: dict[int, set[int]] = {}
        for w in wants:
            need.setdefault(w.template, set()).add(w.length)
        for t, lengths in need.items():
            self._play(t, sorted(lengths))

    def play_games(self, t: int, games: int, lengths: list[int] | None = None) -> int:
        """Self-play template ``t`` until ``games`` games of the session are over (and as far as every length of
        ``lengths``), keeping the cuts; returns the length of the first cut with ``games`` games over (a money
        session: the next game has begun)."""
        return self._play(t, sorted(lengths or []), games)

    def _play(self, t: int, lengths: list[int], games: int = 0) -> int:
        state = replay(self.setup, [])
        clock = start_clock(self.tc, state, self.now)
        rng = random.Random(f"template-{self.seed}-{t}")
        dice = RandomDice(rng.randrange(2**32))
        player = RandomPlayer(rng)
        acts: list[Action] = []
        counters = log_counters([])
        cuts = self.cuts[t]
        wanted = list(lengths)
        at_games = 0  # the length at which ``games`` games were over
        while wanted or (games and not at_games):
            if not self._forced(state):
                if games and not at_games and len(state.results) >= games:
                    at_games = len(acts)
                    cuts[at_games] = Cut(len(acts), state_to_data(state), dict(counters), clock)
                    continue
                if wanted and len(acts) >= wanted[0]:
                    cut = Cut(len(acts), state_to_data(state), dict(counters), clock)
                    while wanted and wanted[0] <= len(acts):
                        cuts[wanted.pop(0)] = cut
                    continue
            if self._forced(state):  # the service plays a forced play at once (player setting autoplay)
                assert state.roller is not None
                action: Action = Move(state.acting_member(state.roller), state.legal_plays()[0].moves)
            else:
                action = player.choose(state, dice)
            state = apply(state, action)
            acts.append(action)
            counters = advance_counters(counters, [action])
            clock = advance(self.tc, clock, state, self.now, {})
        self.actions[t] = [action_to_data(a) for a in acts]
        return at_games

    @staticmethod
    def _forced(state: MatchState) -> bool:
        return state.phase is Phase.MOVE and len(state.legal_plays()) == 1

    def log_for(self, want: Want) -> tuple[Cut, list[dict[str, Any]]]:
        """The cut and the action log (with this game's player ids) for a wanted game."""
        cut = self.cuts[want.template][want.length]
        ids = {self.X: want.game.players[0].id, self.Y: want.game.players[1].id}
        log = [{**a, "by": ids[a["by"]]} if "by" in a else a for a in self.actions[want.template][: cut.length]]
        return cut, log


async def create_games(
    svc: GameService, pairs: list[tuple[Request, Request]], *, timed: bool, concurrency: int = 32
) -> list[Game]:
    """Money sessions through the service (challenge, accept), ``concurrency`` at a time; the games of a player
    seated in many are made one at a time (the open-challenge cap)."""
    gate = asyncio.Semaphore(concurrency)
    locks: dict[str, asyncio.Lock] = {}

    async def one(a: Request, b: Request) -> Game:
        async with gate, locks.setdefault(a.id, asyncio.Lock()):
            out = await svc.challenge(a, b, length=0, time_control=TIME_CONTROL if timed else None)
            out = await svc.accept(out.game.id, b)
        return Game(out.game.id, (a, b), 0, timed)

    return list(await asyncio.gather(*(one(a, b) for a, b in pairs)))


async def write_histories(svc: GameService, templates: Templates, wants: list[Want], verify: bool = True) -> None:
    """Write each wanted game's history as the service's compare-and-swap would (see the module docstring)."""
    store = svc.store
    guild = await svc.server_settings(GUILD)
    checked: set[int] = set()
    gate = asyncio.Semaphore(4)

    async def one(w: Want) -> None:
        async with gate:
            cut, log = templates.log_for(w)
            row = await store.load_game(w.game.id, scope=Scope.system())
            setup = setup_from_data(row.setup["match"])
            state = state_from_data(setup, cut.state_data)
            tc = _time_control(row.setup.get("time_control"))
            extra: dict[str, Any] = {}
            if tc is not None:
                extra["clock"] = cut.clock.to_data()
                extra["timers"] = svc._timers_for(state, tc, cut.clock, templates.now, {}, guild, cut.counters["timed"])
            snapshot = {"v": SNAPSHOT_VERSION, "state": cut.state_data, "counters": cut.counters}
            await store.update_game(
                w.game.id,
                row.version,
                new_actions=log,
                log_length=0,
                snapshot=snapshot,
                status="active",
                turn_player=_to_act(state),
                draft=None,
                **extra,
            )
            w.game.actions = cut.length
            if verify and w.template not in checked:
                checked.add(w.template)
                stored = [action_from_data(a.action) for a in await store.load_actions(w.game.id, scope=Scope.system())]
                assert len(stored) == cut.length and replay(setup, stored) == state, "a written game does not replay"
                assert log_counters(stored) == cut.counters

    await asyncio.gather(*(one(w) for w in wants))


async def long_games(
    svc: GameService, n: int, n_actions: int, tag: str, *, timed: bool = False, templates: int = 16
) -> list[Game]:
    """``n`` money sessions created through the service, each given a history of at least ``n_actions`` actions
    written as the service writes a change (see the module docstring); for other benchmarks too."""
    games = await create_games(svc, [people(tag, k) for k in range(n)], timed=timed)
    row = await svc.store.load_game(games[0].id, scope=Scope.system())
    made = Templates(setup_from_data(row.setup["match"]), templates, _time_control(TIME_CONTROL), svc.clock())
    wants = [Want(g, i % templates, n_actions) for i, g in enumerate(games)]
    made.build(wants)
    await write_histories(svc, made, wants)
    return games


@dataclass
class World:
    """The games the sections use."""

    live: list[Game] = field(default_factory=list)  # held by the service during the stall section
    long: list[Game] = field(default_factory=list)  # >= --long-actions, timed
    medium: list[Game] = field(default_factory=list)  # >= --timer-actions, timed (timer filler)
    huge: list[Game] = field(default_factory=list)  # the largest --load-sizes, for exports and loads
    short: list[Game] = field(default_factory=list)
    measured: Game | None = None
    hoarder: Request | None = None
    adversary_games: list[tuple[int, Request]] = field(default_factory=list)  # (game, the player to move)
    doubles: list[tuple[int, list[Request]]] = field(default_factory=list)
    memory: dict[int, list[Game]] = field(default_factory=dict)
    load: dict[int, list[Game]] = field(default_factory=dict)
    sessions: list[Game] = field(default_factory=list)  # money sessions of --session-games games (cards, analyses)
    verify_session: Game | None = None  # a session of about --verify-actions actions (verify, measured alone)
    finished: list[Game] = field(default_factory=list)  # short matches played to their end (cards, verify)
    analysed: list[Game] = field(default_factory=list)  # the same, their players asked for analyses (reports)


@contextlib.contextmanager
def committed(svc: GameService) -> Iterator[None]:
    """Matches started (and their rolls thrown) meanwhile get commit-reveal dice (engine.fairdice), as every match of
    the bot does; the benchmark's service throws seeded dice without a commitment otherwise, and ``/bg-dice verify``
    refuses a record without one at once."""
    dice, svc.dice = svc.dice, None
    try:
        yield
    finally:
        svc.dice = dice


async def play_out(
    svc: GameService, a: Request, b: Request, length: int, *, analysis: bool, rng: random.Random
) -> Game:
    """A ``length``-point match between ``a`` and ``b`` played to its end through the service (random legal plays,
    every double taken: :func:`act`); ``analysis``: both players asked for analyses of their matches."""
    if analysis:
        for p in (a, b):
            await svc.player_settings(p, analysis=True)
    out = await svc.challenge(a, b, length=length)
    out = await svc.accept(out.game.id, b)
    game = Game(out.game.id, (a, b))
    for _ in range(20_000):
        if await act(svc, game.id, rng) is None:
            break
    row = await svc.store.load_game(game.id, scope=Scope.system())
    game.actions = len(await svc.store.load_actions(game.id, scope=Scope.system()))
    assert row.status in ("finished", "archived"), f"game {game.id} did not end ({row.status})"
    return game


def people(tag: str, k: int) -> tuple[Request, Request]:
    return Request(f"{tag}a{k}", f"{tag.upper()} A{k}", GUILD), Request(f"{tag}b{k}", f"{tag.upper()} B{k}", GUILD)


async def roll_to_move(svc: GameService, game_id: int) -> None:
    """Roll through the service until the player on roll must choose a play."""
    for _ in range(40):
        view = await svc.view(game_id, SYSTEM)
        if view.phase == "move":
            return
        who = view.to_act or view.acting[0]  # type: ignore[index]
        await svc.roll(game_id, Request(who, view.name(who), GUILD))
    raise RuntimeError(f"game {game_id} never reached a play")


async def build(svc: GameService, args: argparse.Namespace, clock: BenchClock) -> World:
    world = World()
    rng = random.Random(11)
    t0 = time.perf_counter()
    n_timed = max(args.long, args.timers)
    hoarder = Request("hoarder", "Hoarder", GUILD)
    world.hoarder = hoarder
    # Timed long and medium games; the hoarder sits in the first --hoard of them.
    pairs = []
    for k in range(n_timed + 1):
        a, b = people("l", k)
        pairs.append((hoarder if 1 <= k <= args.hoard else a, b))
    pairs[0] = (Request("you", "You", GUILD), Request("friend", "Friend", GUILD))
    with committed(svc):
        timed = await create_games(svc, pairs, timed=True)
    world.measured = timed[0]
    world.long = timed[1 : args.long + 1]
    world.medium = timed[args.long + 1 :]
    huge_n = max(args.load_sizes)
    with committed(svc):
        world.huge = await create_games(svc, [people("h", k) for k in range(args.huge)], timed=False)
        world.sessions = await create_games(svc, [people("g", k) for k in range(args.sessions)], timed=False)
        if args.verify_actions:
            world.verify_session = (await create_games(svc, [people("v", 0)], timed=False))[0]
    n_short = max(0, args.live - len(timed) - len(world.huge))
    world.short = await create_games(svc, [people("s", k) for k in range(n_short)], timed=False)
    for n in args.memory_sizes:
        count = args.memory_games if n < 10_000 else max(1, args.memory_games // 10)
        world.memory[n] = await create_games(svc, [people(f"m{n}_", k) for k in range(count)], timed=False)
    reuse_huge = len(world.huge) >= args.load_games
    for n in args.load_sizes:
        if n == huge_n and reuse_huge:
            world.load[n] = world.huge[: args.load_games]
        else:
            world.load[n] = await create_games(svc, [people(f"t{n}_", k) for k in range(args.load_games)], timed=False)
    # Games the adversaries use, brought to a play through the service itself.
    adv = await create_games(
        svc, [(Request(f"adv{k}", f"Adversary {k}", GUILD), people("x", k)[1]) for k in range(8)], timed=False
    )
    for g in adv:
        await roll_to_move(svc, g.id)
        view = await svc.view(g.id, SYSTEM)
        mover = next(p for p in g.players if p.id == view.to_act)
        world.adversary_games.append((g.id, mover))
    for k in range(4):
        team = [Request(f"d{k}{c}", f"D{k}{c}", GUILD) for c in "abcd"]
        out = await svc.challenge(
            team[0], team[2], variant="doubles", length=0, teammate=team[1], opponent_teammate=team[3]
        )
        for invited in (team[2], team[1], team[3]):  # every invited player accepts (the challenger's teammate too)
            if out.game.status == "challenge":
                out = await svc.accept(out.game.id, invited)
        await roll_to_move(svc, out.game.id)
        world.doubles.append((out.game.id, team))
    n_games = len(timed) + len(world.huge) + len(world.short) + sum(map(len, world.memory.values()))
    n_games += sum(len(v) for n, v in world.load.items() if not (n == huge_n and reuse_huge)) + len(adv) + 4
    n_games += len(world.sessions) + (world.verify_session is not None)
    print(f"  created {n_games:,} games through the service in {time.perf_counter() - t0:.0f} s")
    # Short matches played to their end through the service, with commit-reveal dice (their records verify); the
    # players of half of them asked for analyses of their matches (player setting ``analysis``).
    t_short = time.perf_counter()
    with committed(svc):
        played = await asyncio.gather(
            *(
                play_out(svc, *people("f", k), args.short_length, analysis=k % 2 == 1, rng=random.Random(k))
                for k in range(args.short_matches)
            )
        )
    world.finished = [g for k, g in enumerate(played) if k % 2 == 0]
    world.analysed = [g for k, g in enumerate(played) if k % 2 == 1]
    if played:
        verified = 0
        for g in played:
            with contextlib.suppress(Exception):  # said below; never stops the benchmark
                verified += bool((await svc.verify(g.id, SYSTEM)).ok)
        print(
            f"  played {len(played)} {args.short_length}-point matches to their end through the service in "
            f"{time.perf_counter() - t_short:.0f} s ({min(g.actions for g in played)} to "
            f"{max(g.actions for g in played)} actions); their dice verify: {verified} of {len(played)}"
        )

    # Histories, self-played and written through the Store as the service writes a change.
    t1 = time.perf_counter()
    setup = setup_from_data(
        (await svc.store.load_game(world.long[0].id if world.long else timed[0].id, scope=Scope.system())).setup[
            "match"
        ]
    )
    tc = _time_control(TIME_CONTROL)
    templates = Templates(setup, args.templates, tc, clock())
    wants: list[Want] = []

    def want(games: list[Game], length: Callable[[int], int]) -> None:
        for i, g in enumerate(games):
            n = length(i)
            if n > 0:
                wants.append(Want(g, i % args.templates, n))

    jitter = max(1, args.long_actions // 10)
    want([world.measured], lambda i: args.long_actions)
    want(world.long, lambda i: args.long_actions + rng.randrange(jitter))
    want(world.medium, lambda i: args.timer_actions + rng.randrange(max(1, args.timer_actions // 10)))
    want(world.huge, lambda i: huge_n)
    want(world.short, lambda i: rng.randrange(0, 61))
    for n, games in world.memory.items():
        want(games, lambda i, n=n: n)
    for n, games in world.load.items():
        if not (n == huge_n and reuse_huge):
            want(games, lambda i, n=n: n)
    templates.build(wants)
    t2 = time.perf_counter()
    await write_histories(svc, templates, wants)
    total = sum(w.game.actions for w in wants)
    print(
        f"  self-played {args.templates} template sessions in {t2 - t1:.0f} s; wrote {len(wants):,} histories "
        f"({total:,} actions) through the Store in {time.perf_counter() - t2:.0f} s"
    )
    # The long money sessions: one more template, self-played until --session-games games are over (and as far as
    # --verify-actions), written the same way.
    if world.sessions or world.verify_session is not None:
        t3 = time.perf_counter()
        big = Templates(setup, 1, tc, clock(), seed=2)
        lengths = [args.verify_actions] if world.verify_session is not None else []
        at = big.play_games(0, args.session_games if world.sessions else 0, lengths)
        big_wants = [Want(g, 0, at) for g in world.sessions]
        if world.verify_session is not None:
            big_wants.append(Want(world.verify_session, 0, args.verify_actions))
        await write_histories(svc, big, big_wants)
        shown = ", ".join(f"#{w.game.id} {w.game.actions:,} actions" for w in big_wants)
        print(
            f"  long money sessions ({args.session_games} games over; the one to verify): {shown}, in "
            f"{time.perf_counter() - t3:.0f} s"
        )
    world.live = [world.measured, *world.long, *world.medium, *world.huge, *world.sessions, *world.short]
    lengths = sorted(g.actions for g in world.long)
    if lengths:
        print(f"  {len(world.long)} long games: {lengths[0]:,} to {lengths[-1]:,} actions")
    return world


# --- memory and load time ----------------------------------------------------------------------------------------


async def memory_section(store: Store, world: World, make: Callable[..., GameService], live: int) -> None:
    print(
        "memory per live game (tracemalloc: a fresh service loading and viewing the games into its cache, which holds "
        "its most recently used games decoded and the rest compact)"
    )
    warm = make(cache_size=100)
    for games in world.memory.values():
        await warm.view(games[0].id, SYSTEM)
    hot = min(make(cache_size=live)._cache.hot_size, live)
    del warm
    for n, games in sorted(world.memory.items()):
        per: dict[str, float] = {}
        for tier, hot_size in (("decoded", len(games) + 10), ("compact", 1)):
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            svc = make(cache_size=len(games) + 10, hot_cache_size=hot_size)
            for g in games:
                await svc.view(g.id, SYSTEM)
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            per[tier] = (after - before) / len(games) / 1024
            del svc
        mixed = (hot * per["decoded"] + (live - hot) * per["compact"]) / live
        mean = statistics.mean(g.actions for g in games)
        text = VERDICTS.check(f"memory per live game, {n:,} actions", mixed, 20, "KB")
        print(
            f"  {n:>6,} logged actions ({len(games)} games, mean {mean:,.0f}): a decoded game {per['decoded']:.1f} KB, "
            f"a compact one {per['compact']:.1f} KB; {live:,} live games, {hot:,} of them decoded: {text}"
        )


async def load_section(store: Store, world: World, make: Callable[..., GameService], repeats: int) -> None:
    print("loading a game by a fresh service (CPU: time.process_time, all threads; median of games x repeats)")
    for n, games in sorted(world.load.items()):
        state_cpu, view_cpu, walls = [], [], []
        for _ in range(repeats):
            svc = make(cache_size=100)
            for g in games:
                w0, c0 = time.perf_counter(), time.process_time()
                await svc.state(g.id, SYSTEM)
                c1 = time.process_time()
                walls.append(time.perf_counter() - w0)
                svc._forget(g.id)
                c2 = time.process_time()
                await svc.view(g.id, SYSTEM)
                view_cpu.append(time.process_time() - c2)
                state_cpu.append(c1 - c0)
        med = statistics.median(state_cpu)
        text = VERDICTS.check(f"load a {n:,}-action game (CPU)", med * 1000, 5, "ms")
        print(
            f"  {n:>6,} actions: state {text}; worst {ms(max(state_cpu))}; "
            f"state + view (legal plays listed) median {ms(statistics.median(view_cpu))}; wall median "
            f"{ms(statistics.median(walls))}"
        )


# --- judging -----------------------------------------------------------------------------------------------------


async def judge_section(svc: GameService, world: World) -> None:
    print("judging adversarial plays (CPU of the judging thread, time.thread_time)")
    states: list[MatchState] = []
    for g in [*world.long[:6], *world.huge[:2]]:
        states.append(await svc.state(g.id, SYSTEM))
    variant = states[0].variant if states else None
    if variant is None:
        print("  no games to take positions from")
        return
    positions = [(variant.start_position(), True)] + [
        (s.position, False) for s in states if s.position is not None and s.phase in (Phase.ROLL, Phase.MOVE)
    ]
    cap = svc.limits.max_play_length
    from engine.validate import MAX_PLAY_CHARS

    lengths = sorted({6000, MAX_PLAY_CHARS, MAX_PLAY_CHARS - 1, cap})
    worst: dict[int, tuple[float, str]] = {n: (0.0, "") for n in lengths}
    times: dict[int, list[float]] = {n: [] for n in lengths}
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    for pos, first in positions:
        for roll in rolls:
            plays = variant.legal_plays(pos, roll, first)
            for kind, unit in ADVERSARIAL_UNITS.items():
                for n in lengths:
                    text = fill(unit, n)
                    t0 = time.thread_time()
                    with contextlib.suppress(IllegalPlay):
                        variant.check_play(pos, roll, text, first, plays)
                    spent = time.thread_time() - t0
                    times[n].append(spent)
                    if spent > worst[n][0]:
                        worst[n] = (spent, f"{kind} with {roll[0]}-{roll[1]}")
    everything = max(worst.values())
    for n in lengths:
        what = {6000: "Discord's limit", MAX_PLAY_CHARS: "the engine's bound", cap: "the service's cap"}.get(n, "")
        print(
            f"  {n:>5} characters{f' ({what})' if what else ''}: worst {ms(worst[n][0])} ({worst[n][1]}), "
            f"median {ms(statistics.median(times[n]))}, {len(times[n])} judgments"
        )
    print(f"  worst of all: {VERDICTS.check('judging a play of any length', everything[0] * 1000, 5, 'ms')}")
    gid, mover = world.adversary_games[0]
    spent = []
    for _ in range(50):
        t0 = time.thread_time()
        with contextlib.suppress(Refused):
            await svc.move(gid, mover, LONG_PLAY)
        spent.append(time.thread_time() - t0)
    print(f"  the service refusing a 6,000-character play (svc.move): worst {ms(max(spent))}")


# --- the loop under load -----------------------------------------------------------------------------------------


def _chain(handle: asyncio.Handle) -> list[tuple[str, str, int]] | None:
    """Where the task a callback resumes stands: its coroutines from the outermost in, as (file, name, line)."""
    task = getattr(getattr(handle, "_callback", None), "__self__", None)
    if not isinstance(task, asyncio.Task):
        return None
    coro: Any = task.get_coro()
    chain = []
    while coro is not None and len(chain) < 40:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is None:
            break
        chain.append((frame.f_code.co_filename, frame.f_code.co_qualname, frame.f_lineno))
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return chain


def _describe(chain: list[tuple[str, str, int]] | None) -> str:
    """The project's frames of a chain (the innermost few), or the innermost frame if none is the project's."""
    if not chain:
        return ""
    ours = [(f, n, line) for f, n, line in chain if f.startswith(str(ROOT)) and "/.venv/" not in f]
    shown = (ours or chain[-1:])[-5:]
    return " > ".join(f"{n}:{line}" for _f, n, line in shown)


class LoopWatch:
    """The longest callback (CPU of the loop's thread), a 1 ms ticker's lateness, and garbage-collector pauses.

    A costly callback is named by the task it resumed: where the task stood before (resumed at) and after (went on
    to wait at), so the work between those two points, all on the loop, is what took the time."""

    def __init__(self, census: bool = False) -> None:
        #: --gc-census: every second, count the objects the collector tracks by type, keeping the largest count (its
        #: own callback is left out of the figures; the ticker and the loop wait for it: a diagnosis, not a figure).
        self.census = census
        self.largest_census: tuple[int, list[tuple[str, int]]] = (0, [])
        self._counting = False
        self.worst: list[tuple[float, float, str]] = []  # (cpu, wall, what), the 8 costliest by CPU
        self.worst_wall = (0.0, "")
        self.callbacks = 0
        self.over: list[float] = []  # CPU of every callback over 10 ms
        self.lateness: list[float] = []
        self.gc_pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.gc_cpu = {0: 0.0, 1: 0.0, 2: 0.0}  # the longest pause of each generation by CPU of its thread
        self.gc_elsewhere = {0: 0, 1: 0, 2: 0}  # collections that ran in another thread (the GIL stops the loop too)
        self._gc_cpu = 0.0
        self.gc_total = 0.0  # seconds of garbage collection on the loop's thread so far
        self._gc_start = 0.0
        self._undo: list[Callable[[], None]] = []
        self._task: asyncio.Task[None] | None = None
        self._census_task: asyncio.Task[None] | None = None
        self._thread = threading.current_thread()
        #: The ticker's latest wake-ups, each with what ran on the loop while it waited: (lateness, callbacks, their
        #: wall time in all, the longest one's, collections in other threads meanwhile).
        self.late_ticks: list[tuple[float, int, float, float, float]] = []
        self._callbacks_wall = 0.0
        self._longest_since = 0.0
        self._gc_elsewhere_total = 0.0
        #: The longest collections: (pause, CPU, generation, unreachable objects freed, thread).
        self.gc_longest: list[tuple[float, float, int, int, str]] = []

    async def _tick(self) -> None:
        while True:
            t0 = time.perf_counter()
            n0, w0, g0 = self.callbacks, self._callbacks_wall, self._gc_elsewhere_total
            self._longest_since = 0.0
            await asyncio.sleep(0.001)
            late = time.perf_counter() - t0 - 0.001
            self.lateness.append(late)
            if len(self.late_ticks) < 5 or late > self.late_ticks[-1][0]:
                ran = self._callbacks_wall - w0
                gc_elsewhere = self._gc_elsewhere_total - g0
                self.late_ticks.append((late, self.callbacks - n0, ran, self._longest_since, gc_elsewhere))
                self.late_ticks.sort(key=lambda x: -x[0])
                del self.late_ticks[5:]

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        """Every collection, in whichever thread (a collection holds the GIL: it stops the loop wherever it runs)."""
        on_loop = threading.current_thread() is self._thread
        if phase == "start":
            self._gc_start, self._gc_cpu = time.perf_counter(), time.thread_time()
            return
        pause = time.perf_counter() - self._gc_start
        generation = info["generation"]
        self.gc_pauses[generation].append(pause)
        cpu = time.thread_time() - self._gc_cpu
        self.gc_cpu[generation] = max(self.gc_cpu[generation], cpu)
        if len(self.gc_longest) < 5 or pause > self.gc_longest[-1][0]:
            where = "the loop's thread" if on_loop else threading.current_thread().name
            self.gc_longest.append((pause, cpu, generation, int(info.get("collected", 0)), where))
            self.gc_longest.sort(key=lambda x: -x[0])
            del self.gc_longest[5:]
        if on_loop:
            self.gc_total += pause
        else:
            self.gc_elsewhere[generation] += 1
            self._gc_elsewhere_total += pause

    async def _count(self) -> None:
        """Never from a collector's callback: gc.get_objects() there can hand out a tuple still being built."""
        while True:
            await asyncio.sleep(1.0)
            self._counting = True
            objects = gc.get_objects()
            if len(objects) > self.largest_census[0]:
                by_type: dict[str, int] = {}
                for o in objects:
                    name = f"{type(o).__module__}.{type(o).__qualname__}"
                    by_type[name] = by_type.get(name, 0) + 1
                self.largest_census = (len(objects), sorted(by_type.items(), key=lambda kv: -kv[1])[:15])
            del objects

    def start(self) -> None:
        self._thread = threading.current_thread()
        original = asyncio.events.Handle._run
        watch = self

        def timed_run(handle: asyncio.Handle) -> None:
            if threading.current_thread() is not watch._thread:
                original(handle)
                return
            before = _chain(handle)
            c0, w0, g0 = time.thread_time(), time.perf_counter(), watch.gc_total
            try:
                original(handle)
            finally:
                cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
                collecting = watch.gc_total - g0
                watch.callbacks += 1
                watch._callbacks_wall += wall
                watch._longest_since = max(watch._longest_since, wall)
                counted, watch._counting = watch._counting, False  # the census's own callback (--gc-census)
                if counted:
                    cpu = wall = 0.0
                if cpu > 0.010:
                    watch.over.append(cpu)
                if len(watch.worst) < 8 or cpu > watch.worst[-1][0] or wall > watch.worst_wall[0]:
                    after = _describe(_chain(handle)) if before is not None else ""
                    what = f"resumed at {_describe(before)}; went on to wait at {after}" if before else repr(handle)
                    if collecting > 0.001:
                        what = f"[{ms(collecting)} of it garbage collection] {what}"
                    if len(watch.worst) < 8 or cpu > watch.worst[-1][0]:
                        watch.worst.append((cpu, wall, what[:400]))
                        watch.worst.sort(key=lambda x: -x[0])
                        del watch.worst[8:]
                    if wall > watch.worst_wall[0]:
                        watch.worst_wall = (wall, what[:400])

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
        gc.callbacks.append(self._gc)
        self._undo = [
            lambda: setattr(asyncio.events.Handle, "_run", original),
            lambda: gc.callbacks.remove(self._gc),
        ]
        self._task = asyncio.get_running_loop().create_task(self._tick())
        if self.census:
            self._census_task = asyncio.get_running_loop().create_task(self._count())

    async def stop(self) -> None:
        assert self._task is not None
        for task in (self._task, self._census_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for undo in self._undo:
            undo()


#: The heavy kinds of the load (see stall_section).
EXPORT = "exports of long games"
REPLAY = "replays (/bg replay)"
CARD_SHORT = "match cards, short matches"
REPORT = "analysis reports, short matches"
CARD_ANALYSED = "cards with analysis, long games"
VERIFY = "verify (+ record)"
DICE = "dice statistics, player in many"

#: While set (in the measured player's task), the store calls it makes add their wall time here, by method.
SPANS: contextvars.ContextVar[dict[str, float] | None] = contextvars.ContextVar("SPANS", default=None)


def instrument(store: Store) -> Callable[[], None]:
    """Time the store's public coroutine methods when called with :data:`SPANS` set; returns the undo."""
    names = [n for n, f in inspect.getmembers(type(store)) if not n.startswith("_") and inspect.iscoroutinefunction(f)]

    def wrap(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            spans = SPANS.get()
            if spans is None:
                return await original(*args, **kwargs)
            t0 = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                spans[name] = spans.get(name, 0.0) + time.perf_counter() - t0

        return timed

    for name in names:
        setattr(store, name, wrap(name, getattr(store, name)))
    return lambda: [store.__dict__.pop(name, None) for name in names] and None


@dataclass
class Kind:
    """One kind of request of the load: how often it arrives, and what came of it."""

    name: str
    rate: float
    #: A heavy kind (worker-side figures printed per kind); ``target``: its p99 target in seconds, if any.
    heavy: bool = False
    target: float | None = None
    done: int = 0
    refused: int = 0
    errors: int = 0
    skipped: int = 0
    first_error: str = ""
    first_refusal: str = ""
    latencies: list[float] = field(default_factory=list)  # every request answered (done, refused or failed)
    answered: list[float] = field(default_factory=list)  # those done
    refusals: list[float] = field(default_factory=list)  # those refused (``Refused``: answered with the reason)
    unfinished: list[float] = field(default_factory=list)  # still waiting when given up (the wait so far)

    def reset(self) -> None:
        self.done = self.refused = self.errors = self.skipped = 0
        for values in (self.latencies, self.answered, self.refusals, self.unfinished):
            values.clear()


async def arrivals(
    kind: Kind,
    stop: asyncio.Event,
    make: Callable[[], Coroutine[Any, Any, Any] | None],
    cap: int = 50,
    grace: float = 30.0,
) -> None:
    """Requests of ``kind`` arriving at random (Poisson, ``kind.rate`` per second), each in its own task: nobody
    waits for an earlier request to finish, as users do not. ``make`` returns None when it has nothing to do. Once
    ``stop`` is set, the requests still running get ``grace`` seconds; those still waiting then are counted
    unfinished (with their wait so far) and cancelled, as a user who gave up."""
    if kind.rate <= 0:
        return
    rng = random.Random(kind.name)
    pending: set[asyncio.Task[None]] = set()
    started: dict[asyncio.Task[None], float] = {}

    async def run(coro: Coroutine[Any, Any, Any]) -> None:
        t0 = time.perf_counter()
        try:
            await coro
        except Refused as exc:  # answered, with the reason
            kind.refused += 1
            kind.refusals.append(time.perf_counter() - t0)
            kind.first_refusal = kind.first_refusal or str(exc)[:160]
        except Exception as exc:  # reported, never stops the load
            kind.errors += 1
            kind.first_error = kind.first_error or f"{type(exc).__name__}: {exc}"[:200]
        else:
            kind.done += 1
            kind.answered.append(time.perf_counter() - t0)
        kind.latencies.append(time.perf_counter() - t0)

    def finished(task: asyncio.Task[None]) -> None:
        pending.discard(task)
        started.pop(task, None)

    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rng.expovariate(kind.rate))
        if stop.is_set():
            break
        if len(pending) >= cap:
            kind.skipped += 1
            continue
        coro = make()
        if coro is None:
            kind.skipped += 1
            continue
        task = asyncio.create_task(run(coro))
        pending.add(task)
        started[task] = time.perf_counter()
        task.add_done_callback(finished)
    if pending:
        await asyncio.wait(pending, timeout=grace)
    now = time.perf_counter()
    left = list(pending)
    for task in left:
        kind.unfinished.append(now - started[task])
        task.cancel()
    if left:
        await asyncio.gather(*left, return_exceptions=True)


async def act(svc: GameService, game_id: int, rng: random.Random) -> tuple[Outcome, str] | None:
    """Whoever must act in the game acts (a random legal play, takes, accepts); None when the game is not active."""
    view = await svc.view(game_id, SYSTEM)
    if view.status != "active":
        return None
    who = view.to_act or view.acting[0]  # type: ignore[index]
    actor = Request(who, view.name(who), view.guild_id)
    if view.phase in ("opening", "roll"):
        out = await svc.roll(game_id, actor)
    elif view.phase == "move":
        out = await svc.move(game_id, actor, rng.choice(view.plays) if view.plays else "")
    elif view.phase == "doubled":
        out = await svc.take(game_id, actor)
    else:
        out = await svc.answer_resignation(game_id, actor, True)
    return out, who


async def stall_section(svc: GameService, store: Store, world: World, args: argparse.Namespace) -> None:
    rng = random.Random(3)
    t0 = time.perf_counter()
    gc.collect()
    tracked = len(gc.get_objects())
    for g in world.live:  # every live game held in memory, as in the bot
        await svc.view(g.id, SYSTEM)
    gc.collect()
    now_tracked = len(gc.get_objects())
    c0 = time.thread_time()
    gc.collect()
    full_collection = time.thread_time() - c0
    n_long = sum(1 for g in world.live if g.actions >= args.long_actions)
    print(
        f"  {len(world.live):,} live games held by the service ({n_long:,} with >= {args.long_actions:,} actions, "
        f"{len(world.huge)} with {max(args.load_sizes):,}), loaded in {time.perf_counter() - t0:.0f} s; the garbage "
        f"collector tracks {now_tracked:,} objects, {now_tracked - tracked:,} of them the live games' (a full "
        f"collection now: {ms(full_collection)} of CPU)"
    )
    assert world.measured is not None and world.hoarder is not None
    measured = world.measured
    crowd_games = [g.id for g in world.live if g is not measured]
    long_ids = [g.id for g in [*world.long, *world.medium] if g is not measured]
    busy: set[int] = set()
    s = args.rate_scale
    h = s * args.heavy_scale
    kinds = {
        name: Kind(name, rate * s)
        for name, rate in [
            ("ordinary actions (+ a board)", args.crowd),
            ("6,000-character plays", 2),
            ("adversarial plays at the cap", 2),
            ("6,000-char / capped proposals", 2),
            ("challenges until refused", 5),
            ("/bg games, player in many games", 1),
            ("loads of long games not cached", 5),
            ("actions in bot matches", 2),
            ("board renders", 5),
            ("reminders falling due", 10),
        ]
    }
    # The heavy kinds: their worker-side figures (wall time from request to answer) are printed per kind, with the
    # p99 targets where there is one (seconds). The exports' rate is --rate-scale's alone, as before; the rest also
    # take --heavy-scale.
    n_games = args.session_games
    heavy = [
        (EXPORT, 1 * s, 5.0),
        (REPLAY, 0.5 * h, 5.0),
        (CARD_SHORT, 0.3 * h, 10.0),
        (f"match cards, {n_games}-game sessions", 0.1 * h, 10.0),
        (REPORT, 0.1 * h, None),
        (CARD_ANALYSED, 0.05 * h, None),
        (VERIFY, 0.5 * h, None),
        (DICE, 0.1 * h, None),
    ]
    for name, rate, target in heavy:
        kinds[name] = Kind(name, rate, heavy=True, target=target)

    def crowd() -> Coroutine[Any, Any, Any] | None:
        for _ in range(10):
            gid = rng.choice(crowd_games)
            if gid not in busy:
                break
        else:
            return None

        async def go() -> None:
            busy.add(gid)
            try:
                done = await act(svc, gid, rng)
                if done is not None and done[0].game.status == "active":
                    out, who = done
                    await svc.board(gid, SYSTEM, viewer=out.game.to_act or who)
            finally:
                busy.discard(gid)

        return go()

    adv_cycle = iter(range(10**9))

    async def adversarial_play(text: str) -> None:
        gid, mover = rng.choice(world.adversary_games)
        await svc.move(gid, mover, text)

    def capped_text() -> str:
        unit = list(ADVERSARIAL_UNITS.values())[next(adv_cycle) % len(ADVERSARIAL_UNITS)]
        return fill(unit, svc.limits.max_play_length)

    async def proposal() -> None:
        gid, team = rng.choice(world.doubles)
        state = await svc.state(gid, SYSTEM)
        assert state.turn is not None
        acting = state.acting_member(state.turn)
        proposer = next(p for p in team if p.id in state.setup.sides[state.turn] and p.id != acting)
        text = LONG_PLAY if next(adv_cycle) % 2 else capped_text()
        await svc.propose(gid, proposer, text)

    spam: list[int] = []
    spammer, victim = Request("spammer", "Spammer", GUILD), Request("victim", "Victim", GUILD)
    spam_full = [False]

    async def challenge() -> None:
        if spam_full[0]:
            if not spam:
                spam_full[0] = False
                return
            await svc.decline(spam.pop(), spammer)
            return
        try:
            out = await svc.challenge(spammer, victim, length=1)
            spam.append(out.game.id)
        except Refused:
            spam_full[0] = True
            raise

    async def cold_load() -> None:
        pool = [g.id for g in world.huge] + long_ids
        gid = rng.choice(pool)
        svc._forget(gid)
        await svc.view(gid, SYSTEM)

    # Heavy requests come from many users (the service takes one heavy request at a time per user), each as the
    # cogs make them: exports, replays, verify and dice statistics by the asker (bot/discord/cogs/games.py, replay.py,
    # dice.py); match cards and analysis reports by the bot itself at a match's end (bot/discord/threads.py,
    # table.py).
    askers = [Request(f"asker{k}", f"Asker {k}", GUILD) for k in range(20)]
    huge_ids = [g.id for g in world.huge]
    session_ids = [g.id for g in world.sessions]
    finished_ids = [g.id for g in world.finished]
    analysed_ids = [g.id for g in world.analysed]
    card_themes: list[str | None] = [None, *svc.theme_names]

    def pick(*pools: list[int]) -> int:
        """A game of one of ``pools`` (each as likely; empty ones left out)."""
        return rng.choice(rng.choice([p for p in pools if p]))

    async def export() -> None:
        pool = [g.id for g in world.huge] if rng.random() < 0.5 else long_ids
        await svc.export(rng.choice(pool), rng.choice(askers))

    async def replay_game() -> None:
        # As /bg replay: the game found, then one of its games (a number the asker picks, or the current one).
        gid, who = pick(long_ids, huge_ids, session_ids), rng.choice(askers)
        view = await svc.view(gid, who)
        await svc.replay(gid, who, rng.randint(1, max(1, view.game)))

    async def card_short() -> None:
        # As the bot posts it at a match's end (bot/discord/threads.py post_match_card), in any board theme.
        await svc.match_card(rng.choice(finished_ids), SYSTEM, theme=rng.choice(card_themes))

    async def card_session() -> None:
        await svc.match_card(rng.choice(session_ids), SYSTEM, theme=rng.choice(card_themes))

    async def report() -> None:
        # As bot/discord/table.py after a match's card: the analysis its players asked for.
        await svc.analysis_report(rng.choice(analysed_ids), SYSTEM)

    async def card_analysed() -> None:
        await svc.match_card(pick([g.id for g in world.long], session_ids), SYSTEM, analysis=True)

    async def verify() -> None:
        # As /bg-dice verify: the dice checked and, when they check out, the record as the JSON text it attaches (one
        # job: GameService.checked_record). A short match played to its end verifies; a running session (its seed not
        # revealed yet) is replayed whole and reported so.
        gid, who = pick(finished_ids + analysed_ids, long_ids, huge_ids, session_ids), rng.choice(askers)
        await svc.checked_record(gid, who)

    async def dice_stats() -> None:
        assert world.hoarder is not None
        await svc.dice_stats(rng.choice(askers), world.hoarder.id)

    bot_users = [Request(f"botfan{k}", f"Bot fan {k}", GUILD) for k in range(4)]
    bot_games: dict[str, int | None] = {u.id: None for u in bot_users}
    bot_busy: set[str] = set()

    def bot_action() -> Coroutine[Any, Any, Any] | None:
        free = [u for u in bot_users if u.id not in bot_busy]
        if not free:
            return None
        user = rng.choice(free)

        async def go() -> None:
            bot_busy.add(user.id)
            try:
                gid = bot_games[user.id]
                if gid is not None:
                    view = await svc.view(gid, SYSTEM)
                    if view.status != "active":
                        gid = None
                if gid is None:
                    out = await svc.challenge(user, None, bot=args.bot, length=3)
                    bot_games[user.id] = out.game.id
                    return
                await act(svc, gid, rng)
            finally:
                bot_busy.discard(user.id)

        return go()

    async def games_page() -> None:
        assert world.hoarder is not None
        # As bot/discord/context.py games_page: the list's size, then one page read (the database orders it).
        await svc.game_count(world.hoarder)
        for row in await svc.game_list(world.hoarder, limit=PAGE_SIZE):
            await svc.view(row.id, world.hoarder)

    themes = svc.theme_names

    async def board() -> None:
        gid = rng.choice(crowd_games)
        await svc.board(gid, SYSTEM, viewer=None, theme=rng.choice(themes))

    async def reminder() -> None:
        gid = rng.choice(long_ids)
        loaded = await svc._load(gid, SYSTEM)
        await store.add_timers(
            gid, [TimerSpec("reminder", svc.clock(), {"side": 0, "share": 0.5, "actions": loaded.timed})]
        )

    makers: dict[str, Callable[[], Coroutine[Any, Any, Any] | None]] = {
        "ordinary actions (+ a board)": crowd,
        "6,000-character plays": lambda: adversarial_play(LONG_PLAY),
        "adversarial plays at the cap": lambda: adversarial_play(capped_text()),
        "6,000-char / capped proposals": proposal,
        "challenges until refused": challenge,
        "/bg games, player in many games": games_page,
        "loads of long games not cached": cold_load,
        "actions in bot matches": bot_action,
        "board renders": board,
        "reminders falling due": reminder,
        EXPORT: export,
        REPLAY: replay_game,
        CARD_SHORT: card_short,
        f"match cards, {n_games}-game sessions": card_session,
        REPORT: report,
        CARD_ANALYSED: card_analysed,
        VERIFY: verify,
        DICE: dice_stats,
    }
    total_rate = sum(k.rate for k in kinds.values())
    print(f"  the load: {total_rate:.0f} requests/s in all, each arriving on its own (Poisson):")
    for k in kinds.values():
        print(f"    {k.rate:6.2f}/s  {k.name}")
    hoarded = await store.count_games_of(world.hoarder.id, scope=Scope.system())
    print(f"  bot matches against {args.bot!r}; the player in many games sits in {hoarded}")

    stop = asyncio.Event()
    sched_stop = asyncio.Event()
    sched = Scheduler(store, svc, clock=svc.clock)
    sched_task = asyncio.create_task(sched.run(sched_stop, interval=1.0))
    loaders = [asyncio.create_task(arrivals(kinds[name], stop, makers[name], grace=args.grace)) for name in kinds]

    latencies: list[float] = []  # each action with the board of the next position (the target's figure)
    action_only: list[float] = []  # the action alone (call to return)
    boards: list[float] = []  # the board alone
    cold = [0, 0]  # (actions that found the game dropped from the cache, all actions)
    breakdown: list[tuple[float, str, dict[str, float]]] = []  # (latency, action, store time by method)
    failures: list[str] = []
    measuring = [False]
    me_rng = random.Random(99)
    cold_rng = random.Random(98)
    undo_instrument = instrument(store)

    async def measured_player() -> None:
        """One player acting alone, one request at a time. A real player thinks seconds to hours between actions
        (this is a correspondence session): by then the game has left the service's cache (the scheduler drops a
        game for each of its timers, and the load turns the cache over), so before each action the game is dropped
        with probability --cold (default 1: always), as for the 'loads of long games not cached' kind; --think is
        only the pause between the benchmark's actions. Each action's latency includes the board of the next
        position, drawn as the bot does after every action (``board(game, SYSTEM, viewer=the next to act)``)."""
        while not stop.is_set():
            await asyncio.sleep(args.think)
            view = await svc.view(measured.id, SYSTEM)  # what the player saw (the buttons and the board posted)
            who = view.to_act or view.acting[0]  # type: ignore[index]
            actor = Request(who, view.name(who), GUILD)
            dropped = cold_rng.random() < args.cold
            if dropped:
                svc._forget(measured.id)
            spans: dict[str, float] = {}
            token = SPANS.set(spans)
            t0 = time.perf_counter()
            failed = ""
            try:
                if view.phase in ("opening", "roll"):
                    out = await svc.roll(measured.id, actor)
                elif view.phase == "move":
                    out = await svc.move(measured.id, actor, me_rng.choice(view.plays) if view.plays else "")
                elif view.phase == "doubled":
                    out = await svc.take(measured.id, actor)
                else:
                    out = await svc.answer_resignation(measured.id, actor, True)
            except (Refused, Unavailable) as exc:  # the player is told to try again: counted, the wait included
                failed = f"{type(exc).__name__}: {exc}"
            t1 = time.perf_counter()
            drew = not failed
            if drew:
                try:
                    await svc.board(measured.id, SYSTEM, viewer=out.game.to_act or who)
                except (Refused, Unavailable) as exc:
                    failed = f"the board: {type(exc).__name__}: {exc}"
            t2 = time.perf_counter()
            SPANS.reset(token)
            if measuring[0]:
                latencies.append(t2 - t0)
                action_only.append(t1 - t0)
                if drew:
                    boards.append(t2 - t1)
                cold[0] += dropped
                cold[1] += 1
                phase = str(view.phase) + (", cold" if dropped else "") + (f", {failed}" if failed else "")
                breakdown.append((t2 - t0, phase, spans))
                if failed:
                    failures.append(failed)

    player = asyncio.create_task(measured_player())
    await asyncio.sleep(args.warmup)
    for k in kinds.values():
        k.reset()
    watch = LoopWatch(census=args.gc_census)
    load0 = os.getloadavg()[0]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    pool_cpu0 = workers_cpu(svc.work.pids)
    watch.start()
    measuring[0] = True
    await asyncio.sleep(args.duration)
    measuring[0] = False
    await watch.stop()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    pool_cpu = workers_cpu(svc.work.pids) - pool_cpu0
    stop.set()
    await asyncio.gather(*loaders)
    player.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await player
    sched_stop.set()
    await sched_task
    undo_instrument()

    print(
        f"  measured {wall:.0f} s after a {args.warmup:.0f} s warm-up: this process used {cpu / wall * 100:.0f}% of a "
        f"core, its {len(svc.work.pids)} worker processes {pool_cpu / wall * 100:.0f}% ({svc.work.answered} jobs); "
        f"load average {load0:.1f} -> {os.getloadavg()[0]:.1f} (the machine's other work included)"
    )
    for k in kinds.values():
        lat = k.latencies
        extra = f", first error: {k.first_error}" if k.first_error else ""
        if k.unfinished:
            extra += f"; {len(k.unfinished)} unfinished"
        print(
            f"    {k.name:32s} {k.done:5d} done {k.refused:5d} refused {k.errors:3d} errors {k.skipped:4d} skipped; "
            f"latency p50 {dur(pct(lat, 0.5))} max {dur(max(lat) if lat else float('nan'))}{extra}"
        )
    heavy_report(kinds, svc, args.grace)
    cpu_worst, wall_of_worst, what = watch.worst[0] if watch.worst else (0.0, 0.0, "")
    print(
        f"  event loop: {watch.callbacks:,} callbacks, {len(watch.over)} over 10 ms of CPU; the costliest by CPU of "
        "the loop's thread (garbage collection inside a callback counts in it):"
    )
    for c, w, r in watch.worst:
        print(f"    {ms(c):>9} CPU ({ms(w)} wall)  {r}")
    print(f"    longest by wall clock: {ms(watch.worst_wall[0])}  {watch.worst_wall[1]}")
    print(
        f"  longest callback (CPU): "
        f"{VERDICTS.check('longest event-loop stall, CPU of one callback', cpu_worst * 1000, 25, 'ms')}"
    )
    late = watch.lateness
    print(
        f"  1 ms ticker, {len(late):,} wake-ups: lateness p50 {ms(pct(late, 0.5))}, p99 {ms(pct(late, 0.99))}, "
        f"longest {VERDICTS.check('the 1 ms ticker latest wake-up, wall clock', max(late) * 1000, 50, 'ms')}; "
        f"{sum(1 for x in late if x > 0.025)} wake-ups over 25 ms"
    )
    print(
        "    its latest wake-ups, and what ran on the loop meanwhile (a wake-up waits for every callback ready "
        "before it: queueing behind several short ones is not one stall):"
    )
    for lateness, n, ran, longest, gc_elsewhere in watch.late_ticks:
        print(
            f"      {ms(lateness):>9} late: {n} callbacks ran meanwhile, {ms(ran)} in all (the longest {ms(longest)}); "
            f"collections in other threads {ms(gc_elsewhere)}; the rest (waiting for the GIL or a core, the "
            f"selector) {ms(max(0.0, lateness - ran))}"
        )
    gcs = ", ".join(
        f"gen {g}: {len(p)} pauses ({watch.gc_elsewhere[g]} in other threads), longest {ms(max(p)) if p else '-'} "
        f"({ms(watch.gc_cpu[g])} CPU)"
        for g, p in watch.gc_pauses.items()
    )
    print(f"  garbage collector (any thread): {gcs}")
    longest = "; ".join(
        f"{ms(pause)} ({ms(cpu)} CPU) gen {gen}, {freed:,} unreachable freed, in {where}"
        for pause, cpu, gen, freed, where in watch.gc_longest
    )
    print(f"    the longest collections: {longest}")
    if watch.census:
        n, top = watch.largest_census
        types = ", ".join(f"{name} {count:,}" for name, count in top)
        print(f"    --gc-census, the most objects tracked at once (outside the frozen ones): {n:,}: {types}")
    LOG.report()
    if latencies:
        p50, p99 = pct(latencies, 0.5), pct(latencies, 0.99)
        text = VERDICTS.check(
            f"one player's action p99, board included ({len(world.live):,} live games, {n_long:,} long)",
            p99 * 1000,
            100,
            "ms",
        )
        print(
            f"  one player's action latency, the board of the next position included ({len(latencies)} actions on a "
            f"{measured.actions:,}-action game, one at a time, {args.think * 1000:.0f} ms apart; {cold[0]} of "
            f"{cold[1]} found the game dropped from the cache, --cold {args.cold:g}): p50 {ms(p50)}, p99 {text}, "
            f"max {ms(max(latencies))}; the action alone p50 {ms(pct(action_only, 0.5))}, p99 "
            f"{ms(pct(action_only, 0.99))}; the board alone p50 {ms(pct(boards, 0.5))}, p99 {ms(pct(boards, 0.99))}"
        )
        if failures:
            print(f"  {len(failures)} of the measured player's actions failed (latency counted): {failures[0]}")
        print("  the measured player's slowest actions: wall time in store calls (by method), the rest on the loop")
        for lat, phase, spans in sorted(breakdown, key=lambda b: -b[0])[: max(3, len(breakdown) // 100)]:
            parts = ", ".join(f"{n} {ms(t)}" for n, t in sorted(spans.items(), key=lambda x: -x[1]))
            print(f"    {ms(lat):>9} ({phase}): {parts}; the rest {ms(lat - sum(spans.values()))}")


def heavy_report(kinds: dict[str, Kind], svc: GameService, grace: float) -> None:
    """Worker-side figures of the heavy kinds (wall time from request to answer, as the asker waits), with their
    targets, and how soon every kind's refusals were answered (a ``Refused`` is an answer: it gives the reason)."""
    print(
        "  heavy requests, wall time from request to answer (p99 over those answered and those still waiting when "
        f"given up {grace:.0f} s after the load stopped, counted at their wait so far):"
    )
    for k in kinds.values():
        if not k.heavy:
            continue
        waits = k.answered + k.unfinished
        if not waits:
            print(f"    {k.name:38s} no request answered ({k.refused} refused, {k.errors} errors, {k.skipped} skipped)")
            continue
        p99 = pct(waits, 0.99)
        if k.target is not None:
            p99_text = VERDICTS.check(f"{k.name}: p99 under the mix", p99, k.target, "s", dur(p99))
        else:
            p99_text = dur(p99)
        left = f"; {len(k.unfinished)} unfinished (waited up to {dur(max(k.unfinished))})" if k.unfinished else ""
        print(
            f"    {k.name:38s} {len(k.answered):4d} answered: p50 {dur(pct(waits, 0.5))}, p99 {p99_text}, max "
            f"{dur(max(waits))}{left}"
        )
    refused = [k for k in kinds.values() if k.refusals]
    if refused:
        print("  requests refused (answered with the reason), per kind:")
    for k in refused:
        p99 = pct(k.refusals, 0.99)
        text = VERDICTS.check(f"refused {k.name}: answered p99", p99 * 1000, 1000, "ms")
        print(
            f"    {k.name:38s} {len(k.refusals):4d} refused: p99 {text}, max {ms(max(k.refusals))}: {k.first_refusal}"
        )
    shared = getattr(svc, "heavy", None)
    if shared is not None:
        counts = ", ".join(
            f"{what} {getattr(shared, what)}"
            for what in ("made", "joined", "remembered", "cancelled")
            if hasattr(shared, what)
        )
        if counts:
            print(f"  the service's heavy jobs (since it started): {counts}")


async def verify_alone(svc: GameService, world: World) -> None:
    """``/bg-dice verify`` of a session of about --verify-actions actions, once, on a quiet service, the loop watched
    meanwhile: the record must be checked off the event loop."""
    game = world.verify_session
    assert game is not None
    who = Request("verifier", "Verifier", GUILD)
    watch = LoopWatch()
    watch.start()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        report = await svc.verify(game.id, who)
        outcome = str(getattr(report, "message", report))
    except Refused as exc:
        outcome = f"refused: {exc}"
    except Exception as exc:  # reported, never stops the benchmark
        outcome = f"failed: {type(exc).__name__}: {exc}"
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    await watch.stop()
    worst_cpu, worst_wall, what = watch.worst[0] if watch.worst else (0.0, 0.0, "")
    text = VERDICTS.check(
        f"verify of a {game.actions:,}-action session: the loop's longest callback meanwhile",
        worst_cpu * 1000,
        10,
        "ms",
    )
    print(
        f"verify of a {game.actions:,}-action session, alone (svc.verify, the loop watched): answered in {wall:.2f} s "
        f"({cpu:.2f} s of this process's CPU): {outcome[:160]}"
    )
    print(f"  the loop's longest callback meanwhile (CPU): {text}; {ms(worst_wall)} wall: {what[:300]}")
    late = watch.lateness
    if late:
        print(f"  the 1 ms ticker: {len(late):,} wake-ups, the latest {ms(max(late))} late")
    LOG.report()


async def close_service(svc: GameService, patience: float) -> None:
    """Close the service. A job a worker process has begun runs to its end (an analysis can take minutes): workers
    still busy ``patience`` seconds after closing began are stopped (SIGTERM), so the benchmark goes on."""
    pids = list(svc.work.pids)
    closing = asyncio.create_task(svc.close())
    done, _pending = await asyncio.wait({closing}, timeout=patience)
    if not done:
        print(
            f"  the service's worker processes were still busy {patience:.0f} s after it began closing: stopping "
            f"them ({len(pids)} processes)"
        )
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        with contextlib.suppress(Exception):
            await closing
    LOG.report()


# --- timers ------------------------------------------------------------------------------------------------------


async def timers_section(
    svc: GameService, store: Store, world: World, clock: BenchClock, n: int, profile: bool = False
) -> None:
    games = {g.id: g for g in [*world.long, *world.medium][:n]}
    if not games:
        return
    # Only these games' timers fall due: every other timed game's timers are dropped first.
    others = [g.id for g in [world.measured, *world.long, *world.medium] if g is not None and g.id not in games]
    pending = [t for t in await store.pending_timers() if t.game_id in games]
    for gid in others:
        await store.update_game(gid, (await store.load_game(gid, scope=Scope.system())).version, timers=[])
    svc._cache.clear()
    reminders = sorted(t.due_at for t in pending if t.kind == "reminder" and t.payload.get("share") == 0.5)
    later = sorted(t.due_at for t in pending if t.kind == "reminder" and t.payload.get("share") != 0.5)
    timeouts = sorted(t.due_at for t in pending if t.kind == "timeout")
    mean = statistics.mean(g.actions for g in games.values())
    print(
        f"timers on {len(games):,} timed games of {min(g.actions for g in games.values()):,} to "
        f"{max(g.actions for g in games.values()):,} actions (mean {mean:,.0f}); "
        f"{len(pending):,} of their timers pending"
    )
    sched = Scheduler(store, svc, clock=clock)

    async def fire(at: float, what: str, target: bool) -> None:
        clock.offset += at + 1 - clock()
        profiler = cProfile.Profile() if profile else None
        collecting = [0.0, 0.0, 0]  # (the running collection's start, seconds in all, collections)

        def on_gc(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                collecting[0] = time.perf_counter()
            else:
                collecting[1] += time.perf_counter() - collecting[0]
                collecting[2] += 1

        w0, c0 = time.perf_counter(), time.process_time()
        gc.callbacks.append(on_gc)
        if profiler is not None:
            profiler.enable()
        try:
            fired = await sched.tick()
        finally:
            if profiler is not None:
                profiler.disable()
            gc.callbacks.remove(on_gc)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        kinds: dict[str, int] = {}
        for out in fired:
            for e in out.events:
                kinds[e.kind] = kinds.get(e.kind, 0) + 1
        shown = f"{wall * 1000:.0f} ms wall"
        text = (
            VERDICTS.check(f"{len(fired):,} due timers ({what}) fire", wall * 1000, 1000, "ms", shown)
            if target
            else shown
        )
        print(
            f"  {what}: {len(fired):,} fired in {text}, {cpu * 1000:.0f} ms CPU ({collecting[2]} garbage collections, "
            f"{collecting[1] * 1000:.0f} ms); events {kinds}"
        )
        LOG.report("    ")
        if profiler is not None:  # --profile: where the event loop's thread spent the tick (the profiler slows it)
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(30)

    if reminders:
        await fire(reminders[-1], "first reminders", True)
    if later:
        await fire(later[-1], "second reminders", False)
    if timeouts:
        await fire(timeouts[-1], "timeouts: each a game change", True)


# --- main --------------------------------------------------------------------------------------------------------


async def serving(svc: GameService) -> GameService:
    """A service with its worker processes up (bot/service/pool.py), as a bot's are once its first heavy job came."""
    t0 = time.perf_counter()
    if await svc.work.start():
        took = time.perf_counter() - t0
        print(f"  {svc.work.processes} worker processes started in {took:.1f} s ([limits] worker_processes)")
    else:
        print("  no worker processes ([limits] worker_processes = 0): heavy work in threads")
    return svc


def workers_cpu(pids: list[int]) -> float:
    """CPU seconds used so far by these processes (Linux /proc; 0 elsewhere)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def run(url: str, args: argparse.Namespace) -> None:
    bot_log = logging.getLogger("gammonbot")
    bot_log.addHandler(LOG)
    bot_log.propagate = False
    clock = BenchClock()
    settings = load_settings(ROOT / "config.toml", environ={})
    if args.workers is not None:  # instead of config.toml's [limits] worker_processes
        limits = dataclasses.replace(settings.limits, worker_processes=args.workers)
        settings = dataclasses.replace(settings, limits=limits)
    sqlite = url.startswith("sqlite")

    def maker(store: Store) -> Callable[..., GameService]:
        def make(**options: Any) -> GameService:
            return service_for(store, settings, dice=SeededDice(7), clock=clock, **options)

        return make

    print("build")
    # Building is not measured: no fsync, and patient timeouts on a loaded machine.
    patient = {"acquire_timeout": 60.0, "statement_timeout": 60.0}
    store = await Store.open(url, clock=clock, **patient, **({"sqlite_synchronous": "OFF"} if sqlite else {}))
    svc = maker(store)(cache_size=1000)
    world = await build(svc, args, clock)
    del svc  # nothing the building service cached stays in memory (nor in the garbage collector's passes)
    await store.close()
    store = await Store.open(url, clock=clock)  # the bot's default durability from here on
    make = maker(store)
    # As the bot does once its start-up is done (bot.discord.app, bot/runtime.py): what is loaded now leaves the
    # collector's passes, and the GIL goes back to the event loop sooner.
    tune_for_serving()
    sections = args.sections
    if "memory" in sections:
        await memory_section(store, world, make, args.live)
    if "load" in sections:
        await load_section(store, world, make, args.load_repeats)
    if "judge" in sections:
        await judge_section(make(cache_size=100), world)
    if "stall" in sections:
        print("the event loop and one player under adversarial load")
        svc = await serving(make(cache_size=len(world.live) + 1000))
        await stall_section(svc, store, world, args)
        await close_service(svc, args.grace)
        if world.verify_session is not None:
            svc = await serving(make(cache_size=100))
            await verify_alone(svc, world)
            await close_service(svc, args.grace)
    if "timers" in sections:
        svc = await serving(make(cache_size=len(world.live) + 1000))
        await timers_section(svc, store, world, clock, args.timers, args.profile)
        await svc.close()
    await store.close()
    LOG.report()
    print("targets:")
    for what, text, ok in VERDICTS.rows:
        print(f"  {'met   ' if ok else 'MISSED'} {what}: {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the targets' sizes (takes a quarter of an hour or more)")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--postgres", nargs="?", const=os.environ.get("GAMMONBOT_TEST_POSTGRES_URL", ""), default=None)
    parser.add_argument("--sections", default="memory,load,judge,stall,timers")
    parser.add_argument("--live", type=int, help="live games held by the service (default 2,000; --full 10,000)")
    parser.add_argument("--long", type=int, help="live games with >= --long-actions actions (200; --full 1,000)")
    parser.add_argument("--long-actions", type=int, default=1000)
    parser.add_argument("--huge", type=int, default=4, help="games of the largest --load-sizes (exports, loads)")
    parser.add_argument("--hoard", type=int, help="long games of the player in many games (300; --full 1,000)")
    parser.add_argument("--timers", type=int, default=1000, help="due timers to fire, one per timed game")
    parser.add_argument("--timer-actions", type=int, default=500, help="at least this many actions in a timer's game")
    parser.add_argument("--memory-sizes", default="10,100,1000", help="(--full adds 10000)")
    parser.add_argument("--memory-games", type=int, help="games per memory size (200; --full 1,000)")
    parser.add_argument("--load-sizes", default="100,1000,10000")
    parser.add_argument("--load-games", type=int, default=4)
    parser.add_argument("--load-repeats", type=int, default=5)
    parser.add_argument("--templates", type=int, default=16, help="distinct self-played histories")
    parser.add_argument("--duration", type=float, help="seconds of measured load (60; --full 120)")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--think", type=float, default=0.05, help="seconds between the measured player's actions")
    parser.add_argument(
        "--cold", type=float, default=1.0, help="chance the measured game is dropped from the cache before an action"
    )
    parser.add_argument("--sessions", type=int, default=1, help="money sessions of --session-games games")
    parser.add_argument("--session-games", type=int, default=200, help="games over in each of those sessions")
    parser.add_argument("--verify-actions", type=int, default=20_000, help="the session verified alone (0: none)")
    parser.add_argument("--short-matches", type=int, default=8, help="short matches played to their end")
    parser.add_argument("--short-length", type=int, default=3, help="their length (points)")
    parser.add_argument("--heavy-scale", type=float, default=1.0, help="multiply the rates of the heavy kinds")
    parser.add_argument(
        "--grace", type=float, default=30.0, help="seconds the requests still running when the load stops get"
    )
    parser.add_argument("--crowd", type=float, default=20.0, help="ordinary actions per second by other players")
    parser.add_argument("--rate-scale", type=float, default=1.0, help="multiply every rate of the load")
    parser.add_argument("--bot", default="expert", help="the bot player of the bot matches")
    parser.add_argument("--profile", action="store_true", help="profile the timers' ticks (cProfile, loop thread)")
    parser.add_argument("--gc-census", action="store_true", help="count what the collector looks at, by type")
    parser.add_argument("--workers", type=int, help="worker processes (default: config.toml [limits] worker_processes)")
    args = parser.parse_args()
    full = args.full
    args.live = args.live or (10_000 if full else 2_000)
    args.long = args.long if args.long is not None else (1_000 if full else 200)
    args.hoard = min(args.hoard if args.hoard is not None else (1_000 if full else 300), max(args.long, args.timers))
    args.memory_games = args.memory_games or (1_000 if full else 200)
    args.memory_sizes = [int(x) for x in args.memory_sizes.split(",")] + ([10_000] if full else [])
    args.memory_sizes = sorted(set(args.memory_sizes))
    args.load_sizes = sorted(int(x) for x in args.load_sizes.split(","))
    args.duration = args.duration or (120.0 if full else 60.0)
    args.sections = set(args.sections.split(","))
    print(
        f"stall.py{' --full' if full else ''}: {args.live:,} live games ({args.long:,} with >= {args.long_actions:,} "
        f"actions), {args.timers:,} timers on games of >= {args.timer_actions:,}, memory at "
        f"{', '.join(f'{n:,}' for n in args.memory_sizes)} actions; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"  this machine's speed: {machine_speed()}")
    if args.postgres is not None:
        if not args.postgres:
            sys.exit("give a PostgreSQL URL or set GAMMONBOT_TEST_POSTGRES_URL")
        postgres(args.postgres, args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args.db or f"sqlite:///{tmp}/stall.sqlite3", args))


def machine_speed() -> str:
    """The CPU time of a fixed piece of plain Python work that none of this project's code takes part in (integer
    arithmetic, a dict, strings), the best of five: machines (and one machine from day to day, when it is shared)
    differ, and every figure here scales with this one. Compare runs by it before comparing their figures."""
    best = float("inf")
    for _ in range(5):
        c0 = time.process_time()
        table: dict[str, int] = {}
        for i in range(300_000):
            key = f"k{i % 5000}"
            table[key] = table.get(key, 0) + (i * i) % 7
        best = min(best, time.process_time() - c0)
    return f"a fixed piece of plain Python work (machine_speed) took {best * 1000:.0f} ms of CPU"


def postgres(base: str, args: argparse.Namespace) -> None:
    """A fresh schema on the server for the run, dropped afterwards."""
    import asyncpg

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(base.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    schema = f"stall_{uuid.uuid4().hex[:10]}"
    asyncio.run(admin(f"CREATE SCHEMA {schema}"))
    try:
        sep = "&" if "?" in base else "?"
        asyncio.run(run(f"{base}{sep}schema={schema}", args))
    finally:
        asyncio.run(admin(f"DROP SCHEMA {schema} CASCADE"))


if __name__ == "__main__":
    main()
