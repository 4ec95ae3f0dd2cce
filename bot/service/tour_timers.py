"""A tournament's clocks: the timers it sets (a round's deadline and its reminders, a decided match's game to end, a
game's result to record) fired when due, by the scheduler (through ``fire_timer``) or, for a transport that runs no
scheduler (the console), by :meth:`TourTimersMixin.tour_tick` before each line it runs. Every timer judges the
tournament as it then stands (see :mod:`.tour_core`), so one that comes late or twice does nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine import i18n
from engine.i18n import _
from engine.tournament import Match, Status, Tournament, duration_words, open_matches

from ..storage import NotFound, TimerRow, Unavailable, timers_table
from .tour_core import ROUND_TIMERS, Busy, TourCore
from .tour_parts import REMINDER_SHARES, TourEvent, TourEventKind, TourNews, called, members_of
from .types import Outcome

__all__ = ["TourTimersMixin"]


class TourTimersMixin(TourCore):
    """Firing a tournament's timers."""

    async def tour_tick(self, worker: str = "console") -> int:
        """Fire the tournaments' deadlines and reminders that are due, as the scheduler does (claimed, fired, marked
        fired), for a transport that runs no scheduler: the console calls it before each line it runs. Returns how
        many fired."""
        table = timers_table
        now = self.clock()
        mine = sa.and_(table.c.fired_at.is_(None), table.c.game_id.is_(None), table.c.kind.in_(ROUND_TIMERS))
        async with self.store.engine.connect() as conn:
            due = (await conn.execute(sa.select(sa.func.min(table.c.due_at)).where(mine))).scalar()
        if due is None or float(due) > now:
            return 0
        claim = (
            sa.select(table.c.id)
            .where(mine, table.c.due_at <= now, sa.or_(table.c.claimed_until.is_(None), table.c.claimed_until < now))
            .order_by(table.c.due_at)
            .limit(100)
        )
        stmt = (
            table.update()
            .where(table.c.id.in_(self.store.backend.claimable(claim).scalar_subquery()))
            .values(claimed_by=worker, claimed_until=now + 120.0)
            .returning(table.c.id, table.c.kind, table.c.due_at, table.c.payload)
        )
        claimed = sorted((await self.store.backend.write(stmt))[1], key=lambda r: (float(r[2]), int(r[0])))
        for timer_id, kind, due_at, raw in claimed:
            payload = json.loads(raw) if isinstance(raw, str) else dict(raw)
            try:
                await self._fire_tour_timer(
                    TimerRow(int(timer_id), None, kind, float(due_at), None, payload, worker, None)
                )
            except Unavailable:
                continue  # claimed: it comes back after its lease
        await self.store.finish_timers([int(r[0]) for r in claimed], worker, self.clock())
        return len(claimed)

    async def _fire_tour_timer(self, timer: TimerRow) -> Outcome | None:
        """A tournament's timer came due (the scheduler fires it through fire_timer): a game's result to record, a
        round's deadline, a reminder, a decided match's game to end. Its news goes to the listeners."""
        try:
            await self._fire_tour(timer)
        except Busy as exc:  # kept: it fires again after its lease, as after a silent database
            raise Unavailable(str(exc)) from exc
        return None

    async def _fire_tour(self, timer: TimerRow) -> None:
        """Fire a tournament's timer, in its server's language (nobody asked: what it says is for everyone)."""
        with i18n.use(await self._tour_language(timer.payload.get("tournament"))):
            await self._fire_tour_now(timer)

    async def _tour_language(self, tournament_id: Any) -> str:
        """The language of a tournament's server (English when the tournament cannot be found)."""
        try:
            row = await self.store.load_tournament(int(tournament_id))
        except (NotFound, TypeError, ValueError):
            return i18n.DEFAULT
        return await self.server_language(row.guild_id)

    async def _fire_tour_now(self, timer: TimerRow) -> None:
        payload = timer.payload
        if timer.kind == "tour-result" and timer.game_id is not None:
            self._forget(timer.game_id)  # judged as stored, not as another process's change left this one's copy
            await self._tour_game_over(timer.game_id)
        elif timer.kind == "tour-deadline":
            await self._tour_expire(int(payload.get("tournament", 0)), None)
        elif timer.kind == "tour-reminder":
            await self._tour_remind(int(payload.get("tournament", 0)), payload)
        elif timer.kind == "tour-end-game" and timer.game_id is not None:
            await self._tour_end_decided(int(payload.get("tournament", 0)), timer.game_id, payload.get("side"))

    async def _tour_end_decided(self, tid: int, game_id: int, side: Any) -> None:
        """The durable half of ending a decided match's game (the change that decided it ends it at once)."""
        try:
            row = await self.store.load_tournament(tid)
        except NotFound:
            return
        t = self._tour_state(row)
        mine = [x for x in t.matches if x.game == str(game_id)]
        if mine and mine[0].result is None:
            return  # the match is still to be played in this game
        why = _("{tournament} decided its match").format(tournament=row.name)
        out = await self._tour_end_game(game_id, None if side is None else int(side), why)
        if out is not None:
            await self._tell(TourNews(self._tour_view(row, t), (), (), (out,)))

    async def _tour_remind(self, tid: int, payload: Mapping[str, Any]) -> None:
        try:
            row = await self.store.load_tournament(tid)
        except NotFound:
            return
        t = self._tour_state(row)
        at = payload.get("at")
        if t.status is not Status.RUNNING or t.paused or t.round != payload.get("round") or at is None:
            return
        now = self.clock()
        span = t.spec.round_seconds or 0.0
        share = float(payload.get("share", 0.0))
        if now >= float(at) or any(s > share and float(at) - (1.0 - s) * span <= now for s in REMINDER_SHARES):
            return  # too late for this reminder (the bot was down): the later one, or the deadline, says it
        events = []
        for x in open_matches(t):
            if t.deadline_of(x) != at:
                continue
            text = _reminder(t, x, row.name, float(at) - now)
            events.append(
                TourEvent(TourEventKind.REMINDER, text, members_of(t, x.a, x.b), int(x.game) if x.game else None, x.id)
            )
        if events:
            await self._tell(TourNews(self._tour_view(row, t), tuple(events)))

    if TYPE_CHECKING:

        async def _tour_expire(self, tid: int, guild_id: str | None) -> TourNews | None: ...

        async def server_language(self, guild_id: str | None, preferred: str | None = None) -> str: ...


def _reminder(t: Tournament, x: Match, name: str, left: float) -> Callable[[], str]:
    def say() -> str:
        values = {
            "a": called(t, x.a), "b": called(t, x.b), "match": x.id, "tournament": name, "game": x.game,
            "duration": duration_words(left), "rule": t.spec.deadline_rule.words,
        }  # fmt: skip
        if x.game:
            return _(
                "Reminder: {a} vs {b}, match {match} of {tournament} (game #{game}), must be finished within "
                "{duration}. If it is not, {rule}."
            ).format(**values)
        return _(
            "Reminder: {a} vs {b}, match {match} of {tournament}, must be finished within {duration}. "
            "If it is not, {rule}."
        ).format(**values)

    return say
