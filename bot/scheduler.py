"""The durable scheduler: deadlines, reminders, automatic opening rolls, expiries — all stored, none in memory.

Every pending timer is a row of the ``timers`` table, written in the same transaction as the game change
that set it. A tick claims the due timers (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, the single writer lock
on SQLite) with a lease, fires each through the game service — the same path as a player's action — and
marks it fired (a batch costs a few statements however large: claim, read, mark; plus one write per game
change). So after a restart, overdue timers fire once; with several scheduler processes on one database each
timer fires once; and if a process dies between firing and marking, the timer is claimed
again after its lease, finds its game already moved on (the record is longer than when it was set) and
does nothing. Time comes from an injected clock, so tests drive it without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable

from engine import i18n

from .service import GameService, NotInstalled, Outcome, Refused
from .storage import Store, TimerRow, Unavailable

__all__ = ["Scheduler"]

log = logging.getLogger("gammonbot.scheduler")


class Scheduler:
    """Fires due timers through the service and hands each outcome to ``notify`` (the transport)."""

    def __init__(
        self,
        store: Store,
        service: GameService,
        *,
        notify: Callable[[Outcome], Awaitable[None]] | None = None,
        clock: Callable[[], float] = time.time,
        worker: str | None = None,
        batch: int = 200,
        lease: float = 120.0,
        concurrency: int = 32,
    ) -> None:
        self.store = store
        self.service = service
        self.notify = notify
        self.clock = clock
        self.worker = worker or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.batch = batch
        self.lease = lease
        #: Games whose timers fire at once (each game's timers in order).
        self.concurrency = concurrency

    async def tick(self) -> list[Outcome]:
        """Fire every timer due now; returns what happened (timers that no longer applied give nothing).

        Each batch: one statement claims it, one read fetches what firing it needs (the games, fresh from the
        database, the vacations and names of their players: :meth:`GameService.prepare_timers`), then the games
        fire ``concurrency`` at a time (the timers of one game in order; a game change is one write, and on SQLite
        the writes waiting together commit together), and one statement marks the batch fired.
        """
        fired: list[Outcome] = []
        while True:
            now = self.clock()
            claimed = await self.store.claim_due_timers(now, self.worker, limit=self.batch, lease=self.lease)
            if not claimed:
                return fired
            try:
                await self.service.prepare_timers(claimed)
            except (Refused, Unavailable) as exc:  # each timer reads its game itself, and meets what it meets
                log.info("could not read the %d due timers' games at once: %s", len(claimed), exc)
            except Exception:
                log.exception("could not read the %d due timers' games at once", len(claimed))
            outcomes, done = await self._fire_batch(claimed)
            fired += [o for o in outcomes if o is not None]
            # One transaction marks the batch fired. Dying before it re-fires these after their lease: game
            # changes are safe (the record has moved on), a reminder may be sent twice.
            if len(done) > await self.store.finish_timers(done, self.worker, self.clock()):
                # Most are gone because firing them changed their game (which replaces its timers).
                taken = await self.store.timers_taken_over(done, self.worker)
                if taken:
                    log.warning("%d timers were taken over by another worker while firing", taken)
            if len(claimed) < self.batch:
                return fired

    async def _fire_batch(self, claimed: list[TimerRow]) -> tuple[list[Outcome | None], list[int]]:
        """Fire a claimed batch, ``concurrency`` games at a time: what each timer gave, and the timers done with."""
        outcomes: list[Outcome | None] = [None] * len(claimed)
        done: list[int] = []
        by_game: dict[int | None, list[int]] = {}
        for k, timer in enumerate(claimed):
            by_game.setdefault(timer.game_id, []).append(k)
        groups = [ks for game_id, ks in by_game.items() if game_id is not None]
        groups += [[k] for k in by_game.get(None, [])]
        gate = asyncio.Semaphore(self.concurrency)

        async def fire_game(indexes: list[int]) -> None:
            async with gate:
                for k in indexes:
                    timer = claimed[k]
                    fired_ok, outcome = await self._fire(timer)
                    if fired_ok:
                        done.append(timer.id)
                    outcomes[k] = outcome
                    if outcome is not None and self.notify is not None:
                        try:
                            # Nobody asked: what the transport adds is in the game's server's language too.
                            with i18n.use(await self.service.server_language(outcome.game.guild_id)):
                                await self.notify(outcome)
                        except Exception:
                            log.exception("could not announce timer %s of game %s", timer.id, timer.game_id)

        await asyncio.gather(*(fire_game(ks) for ks in groups))
        return outcomes, done

    async def _fire(self, timer: TimerRow) -> tuple[bool, Outcome | None]:
        """Fire one timer: (whether it is done with, what happened)."""
        try:
            return True, await self.service.fire_timer(timer)
        except NotInstalled as exc:  # kept for when its rule set is back: it fires again after its lease
            log.info("timer %s (%s, game %s) waits: %s", timer.id, timer.kind, timer.game_id, exc)
            return False, None
        except Refused as exc:
            log.info("timer %s (%s, game %s) no longer applies: %s", timer.id, timer.kind, timer.game_id, exc)
            return True, None
        except Unavailable:
            # The database did not answer in time: the timer stays claimed and fires again after its lease.
            log.warning(
                "timer %s (%s, game %s): the database did not answer; it fires again later",
                timer.id,
                timer.kind,
                timer.game_id,
            )
            return False, None
        except Exception:  # one broken game must not stop every other deadline
            log.exception("timer %s (%s, game %s) failed", timer.id, timer.kind, timer.game_id)
            return False, None

    async def run(self, stop: asyncio.Event, *, interval: float = 5.0) -> None:
        """Tick until ``stop`` is set: at least every ``interval`` seconds, sooner when a timer is due."""
        while not stop.is_set():
            try:
                await self.tick()
                due = await self.store.next_due()
            except Exception:
                log.exception("scheduler tick failed; retrying")
                due = None
            wait = interval if due is None else max(0.05, min(interval, due - self.clock()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=wait)
