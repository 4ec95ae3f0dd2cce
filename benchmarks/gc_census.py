"""What each kind of request leaves to the garbage collector: a census by counts, not times.

    python benchmarks/gc_census.py [-n 200] [--hoard 60] [--long-actions 600] [--types] [--freeze]

A warmed service (config.toml's ``[limits]`` and ``[render]``, its worker processes started: heavy work runs there,
so what is counted is the event loop's side of it; a board is drawn in a worker thread of this process, counted
too) on a fresh SQLite file, its games made as benchmarks/stall.py makes them (its helpers, imported). Each request
kind a player can send is run ``-n`` times in one process, the collector disabled after a full collection, and for
each kind per request:

* ``tracked``: the net objects the collector tracks that it made (``gc.get_count()[0]`` before and after each
  request: tracked allocations minus deallocations). What a request leaves behind fills the youngest generation:
  every ``GC_THRESHOLDS[0]`` (bot/runtime.py) of them sets off a collection, and those still alive then go on to
  the older generations;
* ``cyclic``: the objects in reference cycles it left (``gc.collect()`` after the ``-n`` requests, divided by
  ``-n``): only the collector frees them, and they are what survives young collections into the long ones;
* with ``--types``, the types most common in that cyclic garbage (``gc.DEBUG_SAVEALL``).

``--freeze``: the objects a full collection examines once the service has loaded and viewed ``--hoard`` long games
(as the bot after its start-up reconciliation), with and without ``gc.freeze()`` then, and what the youngest
collections examine meanwhile (``gc.callbacks``).

Figures of 2026-12-03 (-n 50, --hoard 20, --long-actions 300; 4 worker processes; a loaded 2-core machine, but
these are counts, not times), per request: tracked objects left, then cyclic garbage:

  replay (in a worker) 848, 0; match card (in a worker) 802, 0; /bg games page (count, list, 20 views) 396, 231;
  game_list (player in 20) 373, 689; challenge + accept 355, 255; view, not cached (300+ actions) 173, 162;
  dice_stats 157, 10; export (in a worker) 143, 0; roll 138, 0; take 124, 0; move 101, 0; board 81, 0;
  double 74, 0; hint 49, 0; export, remembered answer 12, 0; view (cached) 4, 0.

Every cyclic object seen (``--types``/``--where``) was SQLAlchemy's: BindParameter, its dict, frozenset, set and
``_anonymous_label``, made where a statement is built per query. A probe of the store's queries on their own
showed one source: ``column.in_(a Python list)`` leaves 10 cyclic objects per statement (``.in_(bindparam(...,
expanding=True))`` built once leaves none); statements with plain ``==`` conditions leave none. The bulk of
game_list's 689 comes from elsewhere in the statements it builds, not yet pinned down. No change was made from
these figures yet (issue 31 item 4 stays open): the young collections they feed are cheap next to what survives
into the middle generation (cached games and their play sets), which ``--freeze`` measures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import stall  # noqa: E402  (also puts the repository on sys.path)
from stall import GUILD, BenchClock, Game, Templates, Want, committed, create_games, people  # noqa: E402

from bot.config import load_settings  # noqa: E402
from bot.discord.context import PAGE_SIZE  # noqa: E402
from bot.runtime import tune_for_serving  # noqa: E402
from bot.service import SYSTEM, GameService, Request, SeededDice, service_for  # noqa: E402
from bot.service.helpers import _time_control  # noqa: E402
from bot.storage import Scope, Store  # noqa: E402
from engine.record import setup_from_data  # noqa: E402

ROOT = stall.ROOT


def WHERE(obj: object) -> str:
    """Where ``obj`` was made (``--where``): the newest frame of the project's code in its allocation's traceback."""
    tb = tracemalloc.get_object_traceback(obj)
    if tb is None:
        return f"? {type(obj).__qualname__}"
    for frame in reversed(tb):  # the newest frame first
        path = Path(frame.filename)
        if ROOT in path.parents and not {"benchmarks", ".venv"} & set(path.parts):
            return f"{path.relative_to(ROOT)}:{frame.lineno}"
    return f"elsewhere {type(obj).__qualname__}"


class Row:
    def __init__(self, kind: str, n: int, tracked: int, cyclic: int, types: list[tuple[str, int]]) -> None:
        self.kind, self.n, self.tracked, self.cyclic, self.types = kind, n, tracked, cyclic, types


async def census(
    kind: str,
    n: int,
    one: Callable[[int], Awaitable[Any]],
    before: Callable[[int], Any] | None = None,
    types: bool = False,
) -> Row:
    """``one(i)`` for i < n, the collector off; ``before(i)`` (not counted) before each, its garbage collected
    before the request is made (then each request's cyclic garbage is collected after it)."""
    gc.collect()
    gc.disable()
    tracked = cyclic = 0
    saved: Counter[str] = Counter()
    try:
        for i in range(n):
            if before is not None:
                got = before(i)
                if asyncio.iscoroutine(got):
                    await got
                gc.collect()
            if types:
                gc.set_debug(gc.DEBUG_SAVEALL)
            c0 = gc.get_count()[0]
            await one(i)
            tracked += gc.get_count()[0] - c0
            if before is not None or types:
                cyclic += gc.collect()
            if types:
                gc.set_debug(0)
                saved.update(WHERE(o) if tracemalloc.is_tracing() else type(o).__qualname__ for o in gc.garbage)
                gc.garbage.clear()
        if before is None and not types:
            cyclic += gc.collect()
    finally:
        gc.set_debug(0)
        gc.enable()
    top = saved.most_common(6)
    return Row(kind, n, tracked, cyclic, top)


async def world(svc: GameService, args: argparse.Namespace) -> dict[str, Any]:
    """The games: ``--hoard`` long timed games of one player (stall.py's histories), and two finished 3-point
    matches (cards)."""
    t0 = time.perf_counter()
    hoarder = Request("hoarder", "Hoarder", GUILD)
    pairs = [(hoarder, people("l", k)[1]) for k in range(args.hoard)]
    with committed(svc):
        long = await create_games(svc, pairs, timed=True)
    row = await svc.store.load_game(long[0].id, scope=Scope.system())
    made = Templates(setup_from_data(row.setup["match"]), 8, _time_control(stall.TIME_CONTROL), svc.clock())
    wants = [Want(g, i % 8, args.long_actions) for i, g in enumerate(long)]
    made.build(wants)
    await stall.write_histories(svc, made, wants)
    with committed(svc):
        finished = [
            await stall.play_out(svc, *people("f", k), 3, analysis=False, rng=random.Random(k)) for k in range(2)
        ]
    print(
        f"  built {len(long)} games of {args.long_actions}+ actions and 2 finished matches in "
        f"{time.perf_counter() - t0:.0f} s"
    )
    return {"hoarder": hoarder, "long": long, "finished": finished}


async def run(args: argparse.Namespace) -> list[Row]:
    settings = load_settings(ROOT / "config.toml", environ={})
    clock = BenchClock()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/census.sqlite3"
        store = await Store.open(url, clock=clock, acquire_timeout=60.0, statement_timeout=60.0)
        svc = service_for(store, settings, dice=SeededDice(7), clock=clock, cache_size=args.hoard + 4 * args.n + 100)
        w = await world(svc, args)
        tune_for_serving()
        await stall.serving(svc)
        if args.freeze:
            await freeze_section(svc, w, args)
        rows = await kinds(svc, w, args)
        await stall.close_service(svc, 60.0)
        await store.close()
    return rows


async def kinds(svc: GameService, w: dict[str, Any], args: argparse.Namespace) -> list[Row]:
    n, t = args.n, args.types
    rows: list[Row] = []
    hoarder: Request = w["hoarder"]
    long: list[Game] = w["long"]
    finished: list[Game] = w["finished"]
    asker = Request("asker", "Asker", GUILD)
    # Warm-up: every path once (imports, compiled statements, caches of the rule sets), not counted.
    warm = await create_games(svc, [people("w", k) for k in range(3)], timed=False)
    for g in warm:
        await stall.roll_to_move(svc, g.id)
        await stall.act(svc, g.id, random.Random(1))
        await svc.board(g.id, SYSTEM)
    await svc.game_list(hoarder, limit=PAGE_SIZE)
    await svc.export(long[0].id, asker)
    await svc.dice_stats(asker, hoarder.id)
    gc.collect()

    pairs = [people("c", k) for k in range(n)]
    games: list[int] = []

    async def challenge(i: int) -> None:
        a, b = pairs[i]
        out = await svc.challenge(a, b, length=0)
        out = await svc.accept(out.game.id, b)
        games.append(out.game.id)

    rows.append(await census("challenge + accept", n, challenge, types=t))

    # Each game brought to its first decision: the openings rolled (counted: a roll), then whoever acts.
    async def actor(gid: int) -> Request:
        view = await svc.view(gid, SYSTEM)
        who = view.to_act or view.acting[0]  # type: ignore[index]
        return Request(who, view.name(who), GUILD)

    who: dict[int, Request] = {}

    async def find(i: int) -> None:
        who[games[i]] = await actor(games[i])

    async def roll(i: int) -> None:
        await svc.roll(games[i], who[games[i]])

    rows.append(await census("roll", n, roll, before=find, types=t))
    plays: dict[int, str] = {}

    async def to_move(i: int) -> None:
        gid = games[i]
        await stall.roll_to_move(svc, gid)
        view = await svc.view(gid, SYSTEM)
        who[gid] = Request(view.to_act, view.name(view.to_act), GUILD)  # type: ignore[arg-type]
        plays[gid] = view.plays[0] if view.plays else ""

    after: dict[int, str | None] = {}

    async def move(i: int) -> None:
        out = await svc.move(games[i], who[games[i]], plays[games[i]])
        after[games[i]] = out.game.to_act

    rows.append(await census("move (typed play)", n, move, before=to_move, types=t))

    async def board(i: int) -> None:
        await svc.board(games[i], SYSTEM, viewer=after[games[i]])

    rows.append(await census("board after an action", n, board, types=t))

    async def to_roll(i: int) -> None:
        gid = games[i]
        view = await svc.view(gid, SYSTEM)
        while view.phase != "roll" and view.status == "active":
            await stall.act(svc, gid, random.Random(i))
            view = await svc.view(gid, SYSTEM)
        who[gid] = Request(view.to_act, view.name(view.to_act), GUILD)  # type: ignore[arg-type]

    async def hint(i: int) -> None:
        await svc.hint(games[i], who[games[i]])

    rows.append(await census("hint (cube, in a worker)", n, hint, before=to_roll, types=t))

    async def double(i: int) -> None:
        out = await svc.double(games[i], who[games[i]])
        after[games[i]] = out.game.to_act

    rows.append(await census("double", n, double, types=t))

    async def take(i: int) -> None:
        gid = games[i]
        taker = after[gid]
        assert taker is not None
        await svc.take(gid, Request(taker, taker, GUILD))

    rows.append(await census("take", n, take, types=t))

    async def view(i: int) -> None:
        await svc.view(long[i % len(long)].id, hoarder)

    rows.append(await census("view (cached)", n, view, types=t))

    async def cold(i: int) -> None:
        gid = long[i % len(long)].id
        svc._forget(gid)
        await svc.view(gid, hoarder)

    rows.append(await census(f"view, not cached ({args.long_actions}+ actions)", n, cold, types=t))

    async def game_list(i: int) -> None:
        await svc.game_list(hoarder, limit=PAGE_SIZE)

    rows.append(await census(f"game_list (player in {len(long)})", n, game_list, types=t))

    async def games_page(i: int) -> None:
        # As bot/discord/context.py games_page: the count, one page of rows, each game's view.
        await svc.game_count(hoarder)
        for row in await svc.game_list(hoarder, limit=PAGE_SIZE):
            await svc.view(row.id, hoarder)

    rows.append(await census(f"/bg games page (count, list, {PAGE_SIZE} views)", max(1, n // 4), games_page, types=t))

    forget = lambda i: svc.heavy.forget_all()  # noqa: E731  (a fresh job each time, not the remembered answer)

    async def dice(i: int) -> None:
        await svc.dice_stats(asker, hoarder.id)

    rows.append(await census("dice_stats (player in many)", n, dice, before=forget, types=t))

    async def export(i: int) -> None:
        await svc.export(long[i % len(long)].id, asker)

    rows.append(await census("export (in a worker)", n, export, before=forget, types=t))

    async def replay(i: int) -> None:
        await svc.replay(finished[i % 2].id, asker, 1)

    rows.append(await census("replay (in a worker)", max(1, n // 4), replay, before=forget, types=t))

    async def card(i: int) -> None:
        await svc.match_card(finished[i % 2].id, SYSTEM)

    rows.append(await census("match card (in a worker)", max(1, n // 4), card, before=forget, types=t))

    async def remembered(i: int) -> None:
        await svc.export(long[0].id, asker)

    rows.append(await census("export, remembered answer", n, remembered, types=t))
    return rows


async def freeze_section(svc: GameService, w: dict[str, Any], args: argparse.Namespace) -> None:
    """What a full collection examines after the service loaded and viewed every long game, frozen or not."""
    for g in w["long"]:
        await svc.view(g.id, SYSTEM)
    gc.collect()
    examined = len(gc.get_objects())
    gc.freeze()
    frozen = gc.get_freeze_count()
    print(
        f"  after loading {len(w['long'])} long games: a full collection examines {examined:,} objects; "
        f"frozen then, {len(gc.get_objects()):,} (permanent generation {frozen:,})"
    )
    gc.unfreeze()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="requests of each kind")
    parser.add_argument("--hoard", type=int, default=60, help="long games of the player in many games")
    parser.add_argument("--long-actions", type=int, default=600)
    parser.add_argument("--types", action="store_true", help="the types most common in each kind's cyclic garbage")
    parser.add_argument("--where", action="store_true", help="with --types: where the cyclic garbage was made")
    parser.add_argument("--freeze", action="store_true", help="objects a full collection examines, frozen or not")
    args = parser.parse_args()
    print(f"gc_census.py -n {args.n}; {stall.machine_speed()}")
    if args.where:
        args.types = True
        tracemalloc.start(40)
    gc.collect()
    rows = asyncio.run(run(args))
    rows.sort(key=lambda r: (-r.tracked / r.n, -r.cyclic / r.n))
    print(f"  {'request kind':48s} {'n':>5s} {'tracked/req':>12s} {'cyclic/req':>11s}")
    for r in rows:
        print(f"  {r.kind:48s} {r.n:5d} {r.tracked / r.n:12.1f} {r.cyclic / r.n:11.1f}")
    if any(r.types for r in rows):
        print("  cyclic garbage by type (all requests of the kind):")
        for r in sorted(rows, key=lambda r: -r.cyclic / r.n):
            if r.types:
                print(f"    {r.kind}: " + ", ".join(f"{name} {count}" for name, count in r.types))


if __name__ == "__main__":
    main()
