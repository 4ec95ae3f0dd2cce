"""The service's cache of games, and keeping the garbage collector's pauses short.

Every object a process holds is looked at by each full collection of Python's garbage collector, which stops the
event loop while it runs: 10,000 cached games held decoded (about 20 to 50 tracked objects each) made one pause
last 100 to 300 ms. So the cache holds only the most recently used games decoded (``hot``; a game being played
is one of them) and every other game as one ``bytes`` object, which the collector never looks at (a pickle of the
decoded game without its legal plays and view, which are made again when needed: 2 to 3 KB for a game of 1,000
actions, against 20 KB decoded). Taking a game from the compact tier costs about 30 µs, far less than reading it
from the database.

What start-up loaded is taken out of the collector's passes once and for all (bot/runtime.py).
"""

from __future__ import annotations

import dataclasses
import logging
import pickle
from collections import OrderedDict

from .helpers import _Loaded

__all__ = ["GameCache"]

log = logging.getLogger("gammonbot.service")


def _pack(loaded: _Loaded) -> bytes | None:
    """The compact form of a cached game (None if it cannot be pickled, say a plugin's rule set that refuses)."""
    state = loaded.state
    if state is not None and state._plays is not None:
        state = dataclasses.replace(state, _plays=None)
    try:
        return pickle.dumps(dataclasses.replace(loaded, state=state, view=None), pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # not kept compact: it is read from the database when next needed
        log.debug("game %s cannot be kept compact in the cache: %s", loaded.row.id, exc)
        return None


class GameCache:
    """The games the service holds, by id, least recently used first: up to ``hot`` of them decoded, the rest (up to
    ``size`` in all) compact. :meth:`get` returns a decoded game either way (a compact one becomes hot)."""

    def __init__(self, size: int, hot: int) -> None:
        self.size = max(0, size)
        self.hot_size = max(1, min(hot, self.size))
        #: Decoded games, with their compact form when it is still current (a game taken from the compact tier and
        #: not changed since: it needs no pickling when it goes back).
        self._hot: OrderedDict[int, tuple[_Loaded, bytes | None]] = OrderedDict()
        self._cold: OrderedDict[int, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._hot) + len(self._cold)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._hot or game_id in self._cold

    @property
    def hot(self) -> int:
        """How many games are held decoded."""
        return len(self._hot)

    def get(self, game_id: int) -> _Loaded | None:
        """The cached game (now the most recently used), or None."""
        entry = self._hot.get(game_id)
        if entry is not None:
            self._hot.move_to_end(game_id)
            return entry[0]
        packed = self._cold.pop(game_id, None)
        if packed is None:
            return None
        loaded: _Loaded = pickle.loads(packed)  # our own bytes, made by _pack in this process
        self._hold(game_id, loaded, packed)
        return loaded

    def peek(self, game_id: int) -> _Loaded | None:
        """The cached game if it is held decoded, without making it the most recently used."""
        entry = self._hot.get(game_id)
        return None if entry is None else entry[0]

    def put(self, loaded: _Loaded) -> None:
        """Hold ``loaded`` (decoded, the most recently used), replacing what was held for its game."""
        game_id = loaded.row.id
        self._cold.pop(game_id, None)
        self._hold(game_id, loaded, None)

    def pop(self, game_id: int) -> None:
        """Forget a game."""
        self._hot.pop(game_id, None)
        self._cold.pop(game_id, None)

    def clear(self) -> None:
        self._hot.clear()
        self._cold.clear()

    def _hold(self, game_id: int, loaded: _Loaded, packed: bytes | None) -> None:
        self._hot[game_id] = (loaded, packed)
        self._hot.move_to_end(game_id)
        while len(self._hot) > self.hot_size:
            old_id, (old, old_packed) = self._hot.popitem(last=False)
            if len(self) < self.size:
                packed_old = old_packed if old_packed is not None else _pack(old)
                if packed_old is not None:
                    self._cold[old_id] = packed_old
        while len(self) > self.size:
            (self._cold if self._cold else self._hot).popitem(last=False)
