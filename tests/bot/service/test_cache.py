"""The service's game cache: the most recently used games decoded, the rest compact, least recently used dropped
first; a compact game comes back equal to what was put in (its legal plays and view are made again)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service import SYSTEM, GameService, Request, SeededDice
from bot.service.cache import GameCache
from bot.service.helpers import _Loaded
from bot.storage import GameRow, Store
from engine.match import Phase, Roll, apply, new_match
from engine.plugins import get_variant


def _game(game_id: int, rolled: bool) -> _Loaded:
    state = new_match(get_variant("backgammon"), [["a"], ["b"]])
    state = replace(state, phase=Phase.ROLL, roller=game_id % 2)
    if rolled:
        state = apply(state, Roll(state.acting_member(state.roller or 0), (3, 1)))
        state.legal_plays()  # the cached legal plays: never kept compact
    row = GameRow(game_id, "g", "active", "backgammon", {"names": {"a": "A", "b": "B"}}, game_id * 10)
    return _Loaded(row, state, {"actions": game_id, "rolls": 0, "timed": game_id})


OPS = st.lists(
    st.tuples(st.sampled_from(["put", "get", "pop"]), st.integers(1, 12), st.booleans()), min_size=1, max_size=60
)


@settings(max_examples=150, deadline=None)
@given(ops=OPS, size=st.integers(1, 8), hot=st.integers(1, 8))
def test_the_cache_keeps_the_most_recently_used_games_and_gives_them_back_equal(
    ops: list[tuple[str, int, bool]], size: int, hot: int
) -> None:
    cache = GameCache(size, hot)
    model: OrderedDict[int, _Loaded] = OrderedDict()
    for op, game_id, rolled in ops:
        if op == "put":
            loaded = _game(game_id, rolled)
            cache.put(loaded)
            model[game_id] = loaded
            model.move_to_end(game_id)
        elif op == "get":
            got = cache.get(game_id)
            want = model.get(game_id)
            if want is None:
                assert got is None
            else:
                assert got is not None
                assert (got.row, got.state, got.counters) == (want.row, want.state, want.counters)
                model.move_to_end(game_id)
        else:
            cache.pop(game_id)
            model.pop(game_id, None)
        while len(model) > size:
            model.popitem(last=False)
        assert len(cache) == len(model) and all(g in cache for g in model)
        assert cache.hot <= min(hot, size)


def test_a_game_that_cannot_be_kept_compact_is_dropped_and_read_again() -> None:
    cache = GameCache(size=10, hot=1)
    odd = _game(1, False)
    odd.row.setup["unpicklable"] = lambda: None  # a plugin's object that refuses to be pickled
    cache.put(odd)
    cache.put(_game(2, False))  # game 1 leaves the hot tier, cannot be made compact: dropped, not an error
    assert cache.get(1) is None and cache.get(2) is not None


def test_a_service_with_a_small_hot_tier_plays_as_one_that_holds_every_game_decoded(tmp_path: Path) -> None:
    """Games that went compact come back as they were: the same views, the same legal plays, and play goes on."""

    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        try:
            small = GameService(store, dice=SeededDice(5), hot_cache_size=1)
            games = []
            for k in range(4):
                a, b = Request(f"a{k}", "A", "g"), Request(f"b{k}", "B", "g")
                out = await small.accept((await small.challenge(a, b, length=1)).game.id, b)
                while out.game.phase == "opening":
                    out = await small.roll(out.game.id, a)
                games.append(out.game.id)
            assert small._cache.hot == 1 and len(small._cache) == 4
            fresh = GameService(store, dice=SeededDice(5))
            for gid in games:
                assert await small.view(gid, SYSTEM) == await fresh.view(gid, SYSTEM)
            for gid in games:  # each is played on from its compact form
                view = await small.view(gid, SYSTEM)
                mover = Request(view.to_act or "", view.name(view.to_act), "g")
                out = await small.move(gid, mover, view.plays[0])
                assert out.game.version == view.version + 1
        finally:
            await store.close()

    asyncio.run(go())
