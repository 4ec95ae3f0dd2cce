"""Clocks and timers: time controls, vacations, and firing due timers."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine import i18n
from engine import match as m
from engine.i18n import _
from engine.match import MatchState, Phase
from engine.plugins import registry
from engine.timecontrol import TimeControl

from ..clock import REMINDER_FRACTIONS, Clock, deadline, reminder_times
from ..storage import Conflict, GameStatus, Scope, TimerRow, TimerSpec
from .core import ServiceCore
from .helpers import _Loaded, _time_control
from .types import DAY, SYSTEM, Event, EventKind, Outcome, Refused, Request

#: Seconds a game prepare_timers read stays fresh enough to judge its timers by (a batch fires well within them).
FRESH_FOR = 60.0


class ClocksMixin(ServiceCore):
    """Clocks and timers: time controls, vacations, and firing due timers."""

    # --- clocks and timers ----------------------------------------------------------------------
    @staticmethod
    def time_controls() -> list[TimeControl]:
        """Every registered time-control preset."""
        reg = registry()
        return [reg.time_controls[n] for n in sorted(reg.time_controls)]

    async def vacation(self, player: Request, days: float) -> float:
        """Declare an absence of ``days`` from now in the asker's server: the player's clocks there stop, within
        that server's yearly allowance. Games in other servers keep their deadlines.

        Returns when the vacation ends.
        """
        if player.guild_id is None:
            raise Refused(_("a vacation is declared in the server whose games it pauses, not in a direct message"))
        guild_id = player.guild_id
        if not days > 0:
            raise Refused(_("a vacation lasts at least part of a day"))
        settings = await self.server_settings(guild_id)
        now = self.clock()
        window = now - 365 * DAY
        taken = sum(b - max(a, window) for a, b in await self.store.vacations_of(player.id, guild_id, window))
        allowance = float(settings["vacation_days_per_year"]) * DAY
        if taken + days * DAY > allowance + 1e-6:
            left = max(0.0, (allowance - taken) / DAY)
            limit = allowance / DAY
            raise Refused(
                _("that is more vacation than this server allows: {left} of {limit} days left this year").format(
                    left=i18n.decimal(left, 1), limit=i18n.number(round(limit))
                )
            )
        await self.store.save_player(player.id, player.name, guild_id=guild_id)
        await self.store.add_vacation(player.id, guild_id, now, now + days * DAY)
        self._vacation_memo.pop((player.id, guild_id), None)
        # Deadlines of the player's running clocks move back by the vacation.
        for row in await self.store.games_of(
            player.id, scope=Scope.server(guild_id, player.id), statuses=(GameStatus.ACTIVE,)
        ):
            async with self._lock(row.id):
                loaded = await self._load(row.id, SYSTEM)
                if loaded.state is None or loaded.row.clock is None:
                    continue
                tc = _time_control(loaded.row.setup.get("time_control"))
                clock = Clock.from_data(loaded.row.clock)
                vac = await self._vacations(loaded.state, loaded.row.guild_id)
                guild = await self.server_settings(loaded.row.guild_id)
                try:
                    version = await self.store.update_game(
                        row.id,
                        loaded.row.version,
                        timers=self._timers_for(loaded.state, tc, clock, now, vac, guild, loaded.timed),
                    )
                except Conflict:
                    self._forget(row.id)
                    continue
                self._remember(_Loaded(replace(loaded.row, version=version), loaded.state, loaded.counters))
        return now + days * DAY

    async def _vacations(self, state: MatchState, guild_id: str) -> dict[int, list[tuple[float, float]]]:
        """Vacation intervals of each side's acting member (recent ones) declared in the game's server.

        Read through a short-lived memo, like players' settings (``Store.settings_ttl``: every timed action needs
        them): a vacation declared through this service is seen at once, one declared through another process within
        that many seconds (it moves the deadlines of the player's games itself)."""
        since = self.clock() - 400 * DAY
        keys = {side: (state.acting_member(side), guild_id) for side in (0, 1)}
        now = time.monotonic()
        known: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for key in keys.values():
            memo = self._vacation_memo.get(key)
            if memo is not None and now - memo[0] < self.store.settings_ttl:
                known[key] = memo[1]
        stale = [key for key in keys.values() if key not in known]
        if stale:  # both sides' in one short read
            found = await self.store.vacations_of_players(stale, since)
            self._memo_vacations(found)
            known.update(found)
        return {side: [(a, b) for a, b in known[key] if b > since] for side, key in keys.items()}

    def _memo_vacations(self, found: dict[tuple[str, str], list[tuple[float, float]]]) -> None:
        if self.store.settings_ttl <= 0:
            return
        if len(self._vacation_memo) + len(found) > 100_000:
            self._vacation_memo.clear()
        now = time.monotonic()
        self._vacation_memo.update({key: (now, spans) for key, spans in found.items()})

    def _timers_for(
        self,
        state: MatchState,
        tc: TimeControl | None,
        clock: Clock | None,
        now: float,
        vacations: dict[int, list[tuple[float, float]]],
        guild: dict[str, Any],
        n_actions: int,
    ) -> list[TimerSpec]:
        """The timers a game needs after a change: a deadline and reminders, an automatic opening roll, archiving.

        Each remembers how long the game's record was when it was set (not counting a team's naming of its acting
        member, which moves no deadline): a timer whose game has moved on since no longer applies when it comes due.
        """
        mark = {"actions": n_actions}
        if state.over:
            return []
        if tc is None or clock is None:
            return [TimerSpec("archive", now + float(guild["archive_after_days"]) * DAY, mark)]
        if state.phase is Phase.OPENING:
            return [TimerSpec("opening", now + tc.per_move, mark)]
        due = deadline(tc, clock, vacations.get(clock.running or 0, ()))
        if due is None:
            return []
        side = clock.running
        specs = [TimerSpec("timeout", due, {"side": side, **mark})]
        for k, at in enumerate(reminder_times(tc, clock, due)):
            if at > now:
                specs.append(TimerSpec("reminder", at, {"side": side, "share": REMINDER_FRACTIONS[k], **mark}))
        return specs

    async def prepare_timers(self, timers: Sequence[TimerRow]) -> None:
        """Read what firing these due timers needs, at once (the scheduler calls this before firing a batch): their
        games, fresh from the database, in one read; the vacations of their acting members and the names of the
        players the service acts for, in one read each. Then a reminder reads nothing more, and a timeout or an
        automatic roll writes its change (SQLite commits the changes waiting together). A batch of one game
        gains nothing: :meth:`fire_timer` reads it itself."""
        self._timer_reads, self._timer_names = {}, {}
        ids = sorted({t.game_id for t in timers if t.game_id is not None})
        if len(ids) < 2:
            return
        members: set[tuple[str, str]] = set()
        for row in await self.store.load_games(ids, scope=Scope.system()):
            cached = self._cache.peek(row.id)
            if cached is None or cached.row.version < row.version:  # (a newer copy: changed here meanwhile)
                try:
                    cached = await self._decoded(row)
                except Refused:
                    continue  # fire_timer reads it again and says why
                self._remember(cached)
            self._timer_reads[row.id] = (row.version, time.monotonic())
            if cached.state is not None and not cached.state.over:
                members.update((cached.state.acting_member(side), row.guild_id) for side in (0, 1))
        self._memo_vacations(await self.store.vacations_of_players(sorted(members), self.clock() - 400 * DAY))
        self._timer_names = await self.store.names_in_servers(sorted(members))

    async def fire_timer(self, timer: TimerRow) -> Outcome | None:
        """Act on a due timer (the scheduler calls this); None when it no longer applies (the game moved on).

        What it says (reminders, expiries, the moves it makes) is in the game's server's language: nobody asked."""
        if timer.kind.startswith("tour-"):  # a tournament's (tournaments.py): its news goes to its listeners
            return await self._fire_tour_timer(timer)
        game_id = timer.game_id
        if game_id is None:
            return None
        # Judge the timer against the database, not this process's cached copy: another process may have
        # moved the game on (a stale copy would call a due timeout out of date, and the game would wait for ever).
        # The copy prepare_timers read from the database just now will do (or a newer one this process made since).
        fresh = self._timer_reads.get(game_id)  # (a game's several timers in one batch use it each)
        cached = self._cache.peek(game_id)
        if fresh is None or cached is None or cached.row.version < fresh[0] or time.monotonic() - fresh[1] > FRESH_FOR:
            self._forget(game_id)
        loaded = await self._load(game_id, SYSTEM)
        with i18n.use(await self.server_language(loaded.row.guild_id)):
            return await self._fire_game_timer(timer, loaded)

    async def _fire_game_timer(self, timer: TimerRow, loaded: _Loaded) -> Outcome | None:
        """Act on a due timer of the game ``loaded`` (read fresh for it)."""
        game_id = loaded.row.id
        if timer.kind == "challenge-expiry":
            if loaded.row.status != GameStatus.CHALLENGE:
                return None
            try:
                await self.store.update_game(
                    game_id, loaded.row.version, status=GameStatus.EXPIRED, turn_player=None, timers=[]
                )
            except Conflict:
                self._forget(game_id)
                return None
            self._forget(game_id)
            view = self._view(await self._load(game_id, SYSTEM))
            text = _("Challenge #{game} expired unanswered.").format(game=game_id)
            return Outcome((Event(EventKind.EXPIRED, game_id, text, None),), view)
        n_actions = timer.payload.get("actions")
        if loaded.state is None or loaded.state.over:
            return None
        if timer.kind != "archive" and n_actions != loaded.timed:
            return None  # the game moved on since this timer was set: a newer timer replaced it
        state = loaded.state
        if timer.kind == "archive":
            guild = await self.server_settings(loaded.row.guild_id)
            due = loaded.row.updated_at + float(guild["archive_after_days"]) * DAY
            if due > self.clock():
                # Played since the timer was set (moves leave it alone): it waits again from the last change.
                await self.store.add_timers(game_id, [TimerSpec("archive", due, {"actions": loaded.timed})])
                return None
            try:
                await self.store.update_game(
                    game_id, loaded.row.version, status=GameStatus.ARCHIVED, turn_player=None, timers=[]
                )
            except Conflict:
                self._forget(game_id)
                return None
            self._forget(game_id)
            view = self._view(await self._load(game_id, SYSTEM))
            text = _("Game #{game} was archived after a long time without a move.").format(game=game_id)
            return Outcome((Event(EventKind.ARCHIVED, game_id, text, None),), view)
        if timer.kind == "approval":
            row = await self.store.proposal(int(timer.payload.get("proposal", 0)))
            if row is None or row["status"] != "open":
                return None
            return await self._play_held(
                game_id, row, note=_("No answer from the teammate: the acting member's play stands.")
            )
        if timer.kind == "opening":
            if state.phase is not Phase.OPENING:
                return None
            first = state.acting_member(0)
            thrower = await self._acting_for(game_id, first, self._timer_names.get((first, loaded.row.guild_id)))
            try:
                # Bound to the record the timer was set for: if a player threw meanwhile, nothing is thrown.
                out = await self._bots_act(await self.roll_once(game_id, thrower, expected_actions=n_actions))
            except Refused:
                return None
            said = _("Nobody threw the opening roll in time, so the bot threw it.")
            note = Event(EventKind.AUTO_OPENING, game_id, said, None)
            return replace(out, events=(note, *out.events))
        side = int(timer.payload.get("side", 0))
        member = state.acting_member(side)
        if timer.kind == "reminder":
            view = self._view(loaded)
            share = float(timer.payload.get("share", 0.5))
            text = _(
                "Reminder: {player}, it is your move in game #{game} ({share} of your time for this move has gone)."
            ).format(player=view.name(member), game=game_id, share=i18n.percent(share))
            return Outcome((Event(EventKind.REMINDER, game_id, text, member, {"share": share}),), view)
        if timer.kind == "timeout":
            return await self._change(
                game_id,
                await self._acting_for(game_id, member, self._timer_names.get((member, loaded.row.guild_id))),
                lambda _l, _s: [m.Timeout(member)],
                expected_actions=n_actions,
            )
        return None

    if TYPE_CHECKING:

        async def _fire_tour_timer(self, timer: TimerRow) -> Outcome | None: ...

        async def server_language(self, guild_id: str | None, preferred: str | None = None) -> str: ...
