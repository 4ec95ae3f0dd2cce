"""The service's cache of games: the most recently used decoded, every other one compact.

Every object a process holds is looked at by each full collection of Python's garbage collector, which stops the
event loop while it runs: 10,000 cached games held decoded (20 to 50 tracked objects each) made one pause last 100
to 300 ms. So the cache holds only the most recently used games decoded (``hot``; a game being played is one of
them) and every other game as one ``bytes`` object, which the collector never looks at: a pickle of the decoded game
and its view, without its legal plays (made again when a play is judged). That is 2 to 4 KB for a game of 1,000
actions, against 20 KB decoded; taking a game from the compact tier costs 30 to 300 µs (the longest money sessions),
far less than reading it from the database.

What start-up loaded is taken out of the collector's passes once and for all (bot/runtime.py).
"""

from __future__ import annotations

import dataclasses
import logging
import pickle
from collections import OrderedDict
from typing import NamedTuple

from .helpers import _Loaded

__all__ = ["GameCache"]

log = logging.getLogger("gammonbot.service")


def _pack(loaded: _Loaded) -> bytes | None:
    """The compact form of a cached game (None if it cannot be pickled, say a plugin's rule set that refuses)."""
    state = loaded.state
    if state is not None and state._plays is not None:
        state = dataclasses.replace(state, _plays=None)
    try:
        return pickle.dumps(dataclasses.replace(loaded, state=state), pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # not kept compact: it is read from the database when next needed
        log.debug("game %s cannot be kept compact in the cache: %s", loaded.row.id, exc)
        return None


class _Hot(NamedTuple):
    loaded: _Loaded
    #: Its compact form while still current (taken from the compact tier, not changed since), and whether that holds
    #: the view: then it goes back without pickling again.
    packed: bytes | None
    with_view: bool


class GameCache:
    """The games the service holds, by id, least recently used first: up to ``hot`` of them decoded, the rest (up to
    ``size`` in all) compact. :meth:`get` returns a decoded game either way (a compact one becomes hot)."""

    def __init__(self, size: int, hot: int) -> None:
        self.size = max(0, size)
        self.hot_size = max(1, min(hot, self.size))
        self._hot: OrderedDict[int, _Hot] = OrderedDict()
        self._cold: OrderedDict[int, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._hot) + len(self._cold)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._hot or game_id in self._cold

    @property
    def hot(self) -> int:
        """How many games are held decoded."""
        return len(self._hot)

    def is_compact(self, game_id: int) -> bool:
        """Whether the game is held compact (taking it costs an unpickling)."""
        return game_id in self._cold

    def get(self, game_id: int) -> _Loaded | None:
        """The cached game (now the most recently used), or None."""
        entry = self._hot.get(game_id)
        if entry is not None:
            self._hot.move_to_end(game_id)
            return entry.loaded
        packed = self._cold.pop(game_id, None)
        if packed is None:
            return None
        loaded: _Loaded = pickle.loads(packed)  # our own bytes, made by _pack in this process
        self._hold(game_id, _Hot(loaded, packed, loaded.view is not None))
        return loaded

    def peek(self, game_id: int) -> _Loaded | None:
        """The cached game if it is held decoded, without making it the most recently used."""
        entry = self._hot.get(game_id)
        return None if entry is None else entry.loaded

    def put(self, loaded: _Loaded) -> None:
        """Hold ``loaded`` (decoded, the most recently used), replacing what was held for its game."""
        game_id = loaded.row.id
        self._cold.pop(game_id, None)
        self._hold(game_id, _Hot(loaded, None, False))

    def pop(self, game_id: int) -> None:
        """Forget a game."""
        self._hot.pop(game_id, None)
        self._cold.pop(game_id, None)

    def clear(self) -> None:
        self._hot.clear()
        self._cold.clear()

    def _hold(self, game_id: int, entry: _Hot) -> None:
        self._hot[game_id] = entry
        self._hot.move_to_end(game_id)
        while len(self._hot) > self.hot_size:
            old_id, old = self._hot.popitem(last=False)
            current = old.packed is not None and (old.with_view or old.loaded.view is None)
            packed = old.packed if current else _pack(old.loaded)
            if packed is not None:
                self._cold[old_id] = packed  # the most recently used of the compact ones
        while len(self) > self.size:
            (self._cold if self._cold else self._hot).popitem(last=False)
