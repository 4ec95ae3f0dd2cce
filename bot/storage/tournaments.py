"""Tournaments: one row each, compare-and-swapped on its ``version`` like a game.

A tournament's state is the engine's (``engine.tournament.to_data``) as JSON, with the service's own notes (``meta``).
Every change is one transaction that checks and moves the version, and may in the same transaction start the games
of the matches it opened (their rows, seats, dice secrets and timers) and set timers of its own (deadlines,
reminders, the end of a game the tournament decided). So a round's games exist exactly when the round does, and
whatever a change leaves to do later is a timer that survives a restart. Where the tournament is announced (its
channel and messages) is transport data, written without moving the version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from .parts import StoreBase
from .rows import Conflict, NotFound, TimerSpec, dump, id_in_range, load
from .schema import game_players, game_secrets, games, tournaments
from .timers import insert_timers

__all__ = ["NewGame", "TournamentRow", "TournamentsMixin"]

#: The columns a transport may set without moving the version.
_MESSAGE_COLUMNS = frozenset({"channel_id", "signup_message_id", "pinned_message_id"})


@dataclass(frozen=True)
class TournamentRow:
    """A stored tournament: the engine's state and the service's notes (decoded JSON), and its messages."""

    id: int
    guild_id: str
    name: str
    status: str
    version: int
    state: dict[str, Any]
    meta: dict[str, Any]
    channel_id: str | None
    signup_message_id: str | None
    pinned_message_id: str | None
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class NewGame:
    """A game a tournament change starts, already active: its row, its seats, its dice secret and its timers."""

    guild_id: str
    variant: str
    setup: dict[str, Any]
    snapshot: dict[str, Any]
    players: dict[str, int | None]
    clock: dict[str, Any] | None = None
    channel_id: str | None = None
    secret: str | None = None
    timers: Sequence[TimerSpec] = field(default_factory=tuple)


def _row(r: Any) -> TournamentRow:
    return TournamentRow(
        id=int(r["id"]),
        guild_id=str(r["guild_id"]),
        name=str(r["name"]),
        status=str(r["status"]),
        version=int(r["version"]),
        state=load(r["state"]) or {},
        meta=load(r["meta"]) or {},
        channel_id=r["channel_id"],
        signup_message_id=r["signup_message_id"],
        pinned_message_id=r["pinned_message_id"],
        created_at=float(r["created_at"]),
        updated_at=float(r["updated_at"]),
    )


class TournamentsMixin(StoreBase):
    """The tournaments of :class:`~bot.storage.Store`."""

    async def create_tournament(
        self, *, guild_id: str, name: str, status: str, state: dict[str, Any], meta: dict[str, Any],
        channel_id: str | None = None,
    ) -> TournamentRow:  # fmt: skip
        """Store a new tournament (version 0)."""
        now = self.clock()
        async with self.engine.begin() as conn:
            result = await conn.execute(
                tournaments.insert().values(
                    guild_id=guild_id,
                    name=name,
                    status=status,
                    version=0,
                    state=dump(state),
                    meta=dump(meta),
                    channel_id=channel_id,
                    created_at=now,
                    updated_at=now,
                )
            )
            tid = int(result.inserted_primary_key[0])  # type: ignore[index]
        return await self.load_tournament(tid)

    async def load_tournament(self, tournament_id: int, *, guild_id: str | None = None) -> TournamentRow:
        """A tournament (of server ``guild_id`` only, when given): NotFound if it is missing or another server's."""
        if not id_in_range(tournament_id):
            raise NotFound(f"there is no tournament #{tournament_id}")
        query = sa.select(tournaments).where(tournaments.c.id == tournament_id)
        if guild_id is not None:
            query = query.where(tournaments.c.guild_id == guild_id)
        async with self.engine.connect() as conn:
            found = (await conn.execute(query)).mappings().first()
        if found is None:
            raise NotFound(f"there is no tournament #{tournament_id}")
        return _row(found)

    async def tournament_list(
        self, guild_id: str, *, statuses: Sequence[str] | None = None, limit: int = 100
    ) -> list[tuple[int, str, str]]:
        """(id, name, status) of a server's tournaments, newest first (no state is read)."""
        t = tournaments
        query = sa.select(t.c.id, t.c.name, t.c.status).where(t.c.guild_id == guild_id)
        if statuses is not None:
            query = query.where(t.c.status.in_(list(statuses)))
        query = query.order_by(t.c.id.desc()).limit(limit)
        async with self.engine.connect() as conn:
            return [(int(i), str(n), str(s)) for i, n, s in (await conn.execute(query)).all()]

    async def tournament_ids(self, guild_id: str | None = None) -> list[int]:
        """The ids of a server's tournaments (of every server's, for None), oldest first."""
        query = sa.select(tournaments.c.id).order_by(tournaments.c.id)
        if guild_id is not None:
            query = query.where(tournaments.c.guild_id == guild_id)
        async with self.engine.connect() as conn:
            return [int(i) for (i,) in (await conn.execute(query)).all()]

    async def update_tournament(
        self,
        tournament_id: int,
        expected_version: int,
        *,
        state: dict[str, Any] | Callable[[list[int]], dict[str, Any]],
        meta: dict[str, Any],
        status: str,
        name: str | None = None,
        new_games: Sequence[NewGame] = (),
        timers: Sequence[tuple[int | None, TimerSpec]] = (),
    ) -> tuple[int, list[int]]:
        """Compare-and-swap: store the tournament's new state only if its version still matches, and in the same
        transaction create ``new_games`` and set ``timers`` ((game id or None, timer) pairs).

        ``state`` may be a function of the new games' ids (a match notes its game). Returns the new version and the
        ids of the games created. Raises :class:`Conflict` if the tournament changed first (nothing is written)."""
        if not id_in_range(tournament_id):
            raise NotFound(f"there is no tournament #{tournament_id}")
        now = self.clock()
        t = tournaments
        values: dict[str, Any] = {"version": expected_version + 1, "meta": dump(meta), "status": status}
        values["updated_at"] = now
        if name is not None:
            values["name"] = name
        ids: list[int] = []
        async with self.engine.begin() as conn:
            moved = await conn.execute(
                t.update().where(t.c.id == tournament_id, t.c.version == expected_version).values(**values)
            )
            if moved.rowcount != 1:
                exists = (await conn.execute(sa.select(t.c.version).where(t.c.id == tournament_id))).first()
                if exists is None:
                    raise NotFound(f"there is no tournament #{tournament_id}")
                raise Conflict(
                    f"tournament #{tournament_id} changed (version {exists[0]}, expected {expected_version})"
                )
            for g in new_games:
                ids.append(await _insert_game(conn, g, now))
            data = state(ids) if callable(state) else state
            await conn.execute(t.update().where(t.c.id == tournament_id).values(state=dump(data)))
            for game_id, spec in timers:
                await insert_timers(conn, game_id, None, [spec])
        return expected_version + 1, ids

    async def set_tournament_messages(self, tournament_id: int, **columns: str | None) -> None:
        """Remember where a tournament is shown (its channel, sign-up message, pinned message): transport data,
        written without moving its version."""
        unknown = sorted(set(columns) - _MESSAGE_COLUMNS)
        if unknown:
            raise TypeError(f"tournaments has no message column {unknown[0]!r}")
        if not columns or not id_in_range(tournament_id):
            return
        async with self.engine.begin() as conn:
            await conn.execute(tournaments.update().where(tournaments.c.id == tournament_id).values(**columns))


async def _insert_game(conn: Any, g: NewGame, now: float) -> int:
    result = await conn.execute(
        games.insert().values(
            guild_id=g.guild_id,
            status="active",
            variant=g.variant,
            setup=dump(g.setup),
            version=0,
            snapshot=dump(g.snapshot),
            clock=None if g.clock is None else dump(g.clock),
            turn_player=None,
            channel_id=g.channel_id,
            created_at=now,
            updated_at=now,
        )
    )
    game_id = int(result.inserted_primary_key[0])
    if g.players:
        await conn.execute(
            game_players.insert(), [{"game_id": game_id, "player_id": p, "side": s} for p, s in g.players.items()]
        )
    if g.secret is not None:
        await conn.execute(game_secrets.insert().values(game_id=game_id, seed=g.secret))
    await insert_timers(conn, game_id, 0, g.timers)
    return game_id
