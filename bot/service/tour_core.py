"""Tournaments: knockouts, leagues and Swiss events that run themselves, over the engine's pure tournament core.

A tournament is one row (bot/storage/tournaments.py), changed like a game: load it, decide the change against the
state as stored (``engine.tournament``: join, start, record a result, apply a deadline, an admin's action), then
write it back as one compare-and-swap on its version, retried from a fresh read after a conflict. The same write
starts the games of every match the change opened (a round's games exist exactly when the round does), sets the
timers of its deadlines and reminders, and notes the games a decision ends. After the write, those games are
ended (the durable ``tour-end-game`` timer being there if the process dies first): a match decided at its deadline
after both sides played is forfeited by its loser and rated like any match; a walkover, an admin's decision or a
deadline decision of a game not both sides played is not evidence of strength, so its game is stopped, unrated (the
tournament records it, with the score the winner reaches). The deadlines and reminders of a round that ended are
cancelled. Then the news goes to every listener (:meth:`TourCore.on_tournament`: Discord posts it, the console
prints it).

When a tournament game ends (any way a match ends), its result is recorded and, once the round is complete, the
next round is made: at once, by the request that ended the game, and durably by the ``tour-result`` timer that the
game's result wrote in the same transaction (whichever comes second finds the match decided and does nothing). A
round's deadline is a ``tour-deadline`` timer: it applies the tournament's rule to each unfinished match. Every
timer judges the tournament as it then stands, so one whose deadline moved (an extension, a pause) does nothing,
and several schedulers, or a restart, fire each decision once: the compare-and-swap lets one of them record it.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine import i18n
from engine import match as m
from engine.fairdice import FairDice, client_value, new_server_seed
from engine.i18n import N_, _
from engine.record import log_counters, setup_to_data
from engine.tournament import (
    How,
    Match,
    Status,
    Tournament,
    TournamentError,
    advance,
    attach_game,
    from_data,
    note_words,
    record_result,
    round_complete,
    to_data,
)

from ..clock import start_clock
from ..locks import KeyedLocks
from ..storage import Conflict, GameStatus, NotFound, TimerSpec, timers_table
from ..storage.tournaments import NewGame, TournamentRow
from .core import ServiceCore
from .helpers import _match_options, _snapshot, _time_control
from .tour_parts import (
    Step,
    TourEvent,
    TourEventKind,
    TourNews,
    TourView,
    called,
    deadline_timers,
    finished_words,
    match_line,
    members_of,
    round_words,
    terms_of,
)
from .types import FORGOTTEN, SYSTEM, Event, EventKind, Outcome, Refused, Request

if TYPE_CHECKING:
    from engine.variant import Variant

__all__ = ["Busy", "Change", "Listener", "TourCore"]

log = logging.getLogger("gammonbot.service")

#: What hears of every tournament change (a transport): called after the change is stored.
Listener = Callable[[TourNews], Awaitable[None]]
#: A change: the tournament as stored, a copy of its notes and the time -> the new state (None: nothing to do).
Change = Callable[[Tournament, dict[str, Any], float], Awaitable[Step | None]]
#: Compare-and-swap attempts before a change is refused as busy.
ATTEMPTS = 25
#: The timers of a tournament's own (no game's): a round's deadline and its reminders.
ROUND_TIMERS = ("tour-deadline", "tour-reminder")


class Busy(Refused):
    """A tournament change that lost every compare-and-swap it tried (a timer meeting it fires again later)."""


@dataclass
class _Plan:
    """A change ready to be written: the state after it (rounds advanced), the games to start, the timers, the
    games to end afterwards, what to announce."""

    after: Tournament
    meta: dict[str, Any]
    events: list[TourEvent]
    games: list[NewGame] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)  # the match of each new game, in order
    timers: list[tuple[int | None, TimerSpec]] = field(default_factory=list)
    ends: list[tuple[int, int | None, str]] = field(default_factory=list)  # (game, losing side or None, why)
    written: Tournament | None = None

    def state_for(self, ids: list[int]) -> dict[str, Any]:
        t = self.after
        for match_id, game_id in zip(self.opened, ids, strict=True):
            t = _attach(t, match_id, str(game_id))
        self.written = t
        return to_data(t)


def _attach(t: Tournament, match_id: str, game_id: str) -> Tournament:
    return attach_game(t, match_id, game_id)


class TourCore(ServiceCore):
    """The tournaments' core: finding them, the unit of work, their games started and ended, timers, listeners."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tour_locks: KeyedLocks[int] = KeyedLocks(4096)
        self._tour_listeners: list[Listener] = []

    # --- listeners ------------------------------------------------------------------------------------------------
    def on_tournament(self, listener: Listener) -> None:
        """Hear of every tournament change this service makes (a transport announces them)."""
        if listener not in self._tour_listeners:
            self._tour_listeners.append(listener)

    def off_tournament(self, listener: Listener) -> None:
        if listener in self._tour_listeners:
            self._tour_listeners.remove(listener)

    async def _tell(self, news: TourNews) -> None:
        for listener in list(self._tour_listeners):
            try:
                await listener(news)
            except Exception:  # an announcement that fails must not undo or repeat the change
                log.exception("tournament #%s: a listener failed", news.view.id)

    # --- finding --------------------------------------------------------------------------------------------------
    async def tour_list(self, who: Request, *, open_only: bool = False) -> list[tuple[int, str, str]]:
        """(id, name, status) of the asker's server's tournaments, newest first."""
        guild = self._tour_guild(who, N_("list tournaments"))
        statuses = ("signup", "running") if open_only else None
        return await self.store.tournament_list(guild, statuses=statuses)

    async def tour_id(self, who: Request, tournament_id: int | None = None, *, latest: bool = False) -> int:
        """The tournament a request means: the one named, else the server's only one under way or taking sign-ups
        (``latest``: else its newest, finished or not)."""
        guild = self._tour_guild(who, N_("use a tournament"))
        if tournament_id is not None:
            return int(tournament_id)
        going = await self.store.tournament_list(guild, statuses=("signup", "running"))
        if len(going) == 1:
            return going[0][0]
        if not going:
            newest = await self.store.tournament_list(guild, limit=1) if latest else []
            if newest:
                return newest[0][0]
            raise Refused(
                _("there is no tournament taking sign-ups or under way here (admins open one with tour create)")
            )
        listed = ", ".join(f"#{i} {n}" for i, n, _status in going[:10])
        raise Refused(_("several tournaments are open here ({tournaments}): say which").format(tournaments=listed))

    async def tour_view(self, who: Request, tournament_id: int | None = None) -> TourView:
        """A tournament of the asker's server as it stands (by default the one open, else the newest)."""
        tid = await self.tour_id(who, tournament_id, latest=True)
        row = await self._tour_row(tid, who.guild_id)
        return self._tour_view(row, self._tour_state(row))

    async def tour_set_messages(self, who: Request, tournament_id: int, **columns: str | None) -> None:
        """Remember where a transport shows a tournament (channel, sign-up message, pinned message)."""
        await self._tour_row(tournament_id, self._tour_guild(who, N_("show a tournament")))
        await self.store.set_tournament_messages(tournament_id, **columns)

    async def _tour_row(self, tournament_id: int, guild_id: str | None) -> TournamentRow:
        try:
            return await self.store.load_tournament(tournament_id, guild_id=guild_id)
        except NotFound:
            raise Refused(_("there is no tournament #{id} here").format(id=tournament_id)) from None

    @staticmethod
    def _tour_state(row: TournamentRow) -> Tournament:
        try:
            return from_data(row.state)
        except TournamentError as exc:
            log.error("tournament #%s: its stored state cannot be read: %s", row.id, exc)
            raise Refused(_("tournament #{id} cannot be read; an admin has been told").format(id=row.id)) from None

    @staticmethod
    def _tour_view(row: TournamentRow, t: Tournament, meta: dict[str, Any] | None = None) -> TourView:
        notes = dict(meta if meta is not None else row.meta)
        return TourView(
            row.id, row.guild_id, row.name, t.status, row.version, t, notes,
            row.channel_id, row.signup_message_id, row.pinned_message_id,
        )  # fmt: skip

    @staticmethod
    def _tour_guild(who: Request, doing: str) -> str:
        """The asker's server; refused in a direct message. ``doing``: what the asker does, marked for the catalog
        (``N_("create a tournament")``)."""
        if not isinstance(who, Request):
            raise TypeError(f"a tournament call needs a Request, not {type(who).__name__}")
        if who.guild_id is None:
            # Translators: {doing} is an action such as "create a tournament".
            raise Refused(_("tournaments belong to a server: {doing} there, not in a direct message").format(
                doing=_(doing)
            ))  # fmt: skip
        return who.guild_id

    @staticmethod
    def _tour_admin(who: Request, doing: str) -> None:
        if not who.admin:
            # Translators: {doing} is an action such as "create a tournament".
            raise Refused(_("only a server admin (Manage Server permission) can {doing}").format(doing=_(doing)))

    # --- the unit of work -----------------------------------------------------------------------------------------
    async def _tour_change(self, tid: int, guild_id: str | None, change: Change) -> TourNews | None:
        """Judge ``change`` against the tournament as stored and write it as one compare-and-swap (retried from a
        fresh read after a conflict), with the games it starts and its timers; then end the games it decided and
        tell the listeners. None when the change found nothing to do."""
        async with self._tour_locks(tid):
            for attempt in range(ATTEMPTS):
                row = await self._tour_row(tid, guild_id)
                before = self._tour_state(row)
                now = self.clock()
                try:
                    step = await change(before, copy.deepcopy(row.meta), now)
                    if step is None:
                        return None
                    plan = await self._tour_plan(row, before, step, now)
                except TournamentError as exc:
                    raise Refused(str(exc)) from None
                try:
                    version, ids = await self.store.update_tournament(
                        tid, row.version, state=plan.state_for, meta=plan.meta, status=plan.after.status.value,
                        new_games=plan.games, timers=plan.timers,
                    )  # fmt: skip
                except Conflict:
                    await asyncio.sleep(random.uniform(0, 0.005 * (attempt + 1)))
                    continue
                break
            else:
                raise Busy(_("the tournament is busy (several changes at once); try again"))
        after = plan.written or plan.after
        if after.round != before.round or (after.finished and not before.finished):
            await self._tour_cancel_timers(tid, after)
        view = self._tour_view(replace(row, version=version, status=after.status.value), after, plan.meta)
        ended: list[Outcome] = []
        for game_id, side, why in plan.ends:
            out = await self._tour_end_game(game_id, side, why)
            if out is not None:
                ended.append(out)
        table = before.status is not Status.SIGNUP or after.status is not Status.SIGNUP
        news = TourNews(
            view, tuple(plan.events), tuple(ids), tuple(ended),
            table_changed=table and (after.matches != before.matches or after.status != before.status
                                     or after.paused_at != before.paused_at or after.withdrawn != before.withdrawn
                                     or after.entrants != before.entrants),
            entrants_changed=after.entrants != before.entrants,
        )  # fmt: skip
        await self._tell(news)
        return news

    async def _tour_plan(self, row: TournamentRow, before: Tournament, step: Step, now: float) -> _Plan:
        """Advance through complete rounds, and work out what the change starts, ends, sets and announces (its
        events are said when read; the words that end its games are said now, in the server's language)."""
        t = step.tournament
        name = row.name
        while t.status is Status.RUNNING and not t.paused and round_complete(t):
            t = advance(t, now)
        plan = _Plan(t, step.meta, list(step.events))
        said = {e.match_id for e in step.events if e.match_id is not None}  # decisions the change announces itself
        old = {x.id: x for x in before.matches}
        for x in t.matches:
            was = old.get(x.id)
            if was is None or was.result is not None or x.round > before.round:
                continue
            if x.result is not None and x.result.how in (How.WALKOVER, How.VOID) and x.id not in said:
                plan.events.append(TourEvent(TourEventKind.WALKOVER, _said(name, t, x), members_of(t, x.a, x.b),
                                             int(x.game) if x.game else None, x.id))  # fmt: skip
            if was.game is None:
                continue
            if x.result is not None and x.result.how is not How.PLAYED:
                # Rated only when its game was played by both sides and the deadline decided it (the loser forfeits
                # it); a walkover or an admin's decision is not evidence of strength: its game is stopped, unrated.
                loser = x.result.loser
                rated = x.result.how is How.DEADLINE and x.id in step.rated and loser is not None
                side = (0 if loser == x.a else 1) if rated else None
                with i18n.shared():
                    why = _("{tournament} decided match {match}: {result}").format(
                        tournament=name, match=x.id, result=match_line(t, x)
                    )
                    if x.result.how is not How.WALKOVER and x.result.note:
                        why += f" ({note_words(t, x.result)})"
                plan.ends.append((int(was.game), side, why))
            elif x.result is None and x.game != was.game:
                with i18n.shared():
                    why = _("a player of match {match} of {tournament} was replaced").format(
                        match=x.id, tournament=name
                    )
                plan.ends.append((int(was.game), None, why))
        if t.status is Status.RUNNING and (before.status is Status.SIGNUP or t.round != before.round):
            pings = tuple(
                p for x in t.matches if x.round == t.round and x.result is None for p in members_of(t, x.a, x.b)
            )
            plan.events.append(TourEvent(TourEventKind.ROUND, _round_said(name, t, now), pings))
        if t.finished and not before.finished:
            plan.events.append(TourEvent(TourEventKind.FINISHED, _finished_said(name, t)))
        if t.status is Status.RUNNING:
            for x in t.matches:
                if x.round == t.round and x.result is None and x.a is not None and x.b is not None and x.game is None:
                    plan.games.append(await self._tour_game(row, t, plan.meta, x, now))
                    plan.opened.append(x.id)
        plan.timers = deadline_timers(row.id, before, t, now)
        for game_id, side, _why in plan.ends:
            mark = {"tournament": row.id, "side": side}
            plan.timers.append((game_id, TimerSpec("tour-end-game", now, mark)))
        return plan

    # --- the games of a tournament --------------------------------------------------------------------------------
    async def _tour_game(
        self, row: TournamentRow, t: Tournament, meta: dict[str, Any], x: Match, now: float
    ) -> NewGame:
        """The game of match ``x``, started at once: its players, the tournament's terms, fair dice, its clock."""
        assert x.a is not None and x.b is not None
        terms = terms_of(t.spec.terms)
        cls = self._variant_class(terms["variant"])
        ea, eb = t.entrant(x.a), t.entrant(x.b)
        names = {p: str(meta.get("names", {}).get(p, p)) for p in (*ea.members, *eb.members)}
        opts = _match_options(terms["options"])
        try:
            state = m.new_match(cls(**terms["variant_options"]), (ea.members, eb.members), opts, (ea.name, eb.name))
        except (m.MatchOptionError, ValueError) as exc:
            raise Refused(
                _("the games of {tournament} cannot start: {why}").format(tournament=row.name, why=exc)
            ) from None
        team = len(ea.members) > 1
        tag = {"id": row.id, "match": x.id, "round": x.round, "name": row.name}
        challenge_terms = {
            "challenger": ea.members[0], "teammate": ea.members[1] if team else None, "invited": [eb.members[0]],
            "opponent_teammate": eb.members[1] if team else None, "variant": cls.name, "options": terms["options"],
            "variant_options": terms["variant_options"], "names": names, "time_control": terms["clock"],
            "bots": {}, "consult": "free", "approval_seconds": 600.0, "rated": True, "hints": False,
            "tournament": tag,
        }  # fmt: skip
        setup: dict[str, Any] = {
            "match": setup_to_data(state.setup), "names": names, "terms": challenge_terms,
            "time_control": terms["clock"], "started_at": now, "tournament": tag,
        }  # fmt: skip
        secret = None
        if self.dice is None:  # commit-reveal dice, like every match (the players' value is the match's name)
            seed = new_server_seed()
            fair = FairDice(seed, client_value(f"tournament {row.id}", f"match {x.id}"))
            setup["dice"] = fair.proof().to_data()
            secret = seed.hex()
        tc = _time_control(terms["clock"])
        clock = start_clock(tc, state, now) if tc is not None else None
        guild = await self.server_settings(row.guild_id)
        return NewGame(
            guild_id=row.guild_id, variant=cls.name, setup=setup, snapshot=_snapshot(state, log_counters([])),
            players={**{p: 0 for p in ea.members}, **{p: 1 for p in eb.members}},
            clock=None if clock is None else clock.to_data(), channel_id=row.channel_id, secret=secret,
            timers=self._timers_for(state, tc, clock, now, {}, guild, 0),
        )  # fmt: skip

    async def _tour_end_game(self, game_id: int, side: int | None, why: str) -> Outcome | None:
        """End a game whose match the tournament decided: the loser's side forfeits it (``side`` None: it is
        stopped without a result). None when it is over already."""
        try:
            loaded = await self._load(game_id, SYSTEM)
        except Refused:
            return None
        state = loaded.state
        if state is None or state.over or loaded.row.status != GameStatus.ACTIVE:
            return None
        if side is None:
            async with self._lock(game_id):
                for _attempt in range(5):
                    loaded = await self._load(game_id, SYSTEM)
                    if loaded.row.status != GameStatus.ACTIVE:
                        return None
                    try:
                        await self.store.update_game(
                            game_id, loaded.row.version, status=GameStatus.ARCHIVED, turn_player=None, timers=[]
                        )
                    except Conflict:
                        self._forget(game_id)
                        continue
                    self._forget(game_id)
                    view = self._view(await self._load(game_id, SYSTEM))
                    with i18n.shared():  # said in the game's thread
                        text = _("Game #{id} was stopped: {why}.").format(id=game_id, why=why)
                    return Outcome((Event(EventKind.ARCHIVED, game_id, text, None),), view)
            return None
        member = state.acting_member(side)
        try:
            out = await self._change(
                game_id, await self._acting_for(game_id, member), lambda _l, _s: [m.Forfeit(member)]
            )
        except Refused as exc:
            log.info("game %s: not ended for its tournament (%s)", game_id, exc)
            return None
        return replace(out, events=(Event(EventKind.TOURNAMENT, game_id, f"{why}.", None), *out.events))

    async def _change_once(
        self,
        game_id: int,
        player: Request,
        decide: Callable[[Any, m.MatchState], list[m.Action]],
        *,
        clear_draft: bool = False,
        expected_actions: int | None = None,
    ) -> Outcome:
        """A game change (see ServiceCore); a tournament game that it ended has its result recorded at once."""
        out = await super()._change_once(
            game_id, player, decide, clear_draft=clear_draft, expected_actions=expected_actions
        )
        if out.game.status != GameStatus.FINISHED or not out.applied:
            return out
        try:
            news = await self._tour_game_over(game_id)
        except Exception:  # the durable tour-result timer records it later
            log.exception("game %s: its tournament result is left to its timer", game_id)
            return out
        with i18n.shared():  # said in the game's thread
            said = [e.text for e in (news.events if news is not None else ()) if e.kind == TourEventKind.RESULT]
        if not said:
            return out
        return replace(out, events=(*out.events, Event(EventKind.TOURNAMENT, game_id, "\n".join(said), None)))

    async def _tour_game_over(self, game_id: int) -> TourNews | None:
        """Record a finished tournament game's result (once: a match already decided is left alone)."""
        loaded = await self._load(game_id, SYSTEM)
        tag = loaded.row.setup.get("tournament")
        if not isinstance(tag, dict) or loaded.state is None or not loaded.state.over:
            return None
        match_id = str(tag.get("match"))
        final = loaded.state

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step | None:
            try:
                x = t.match(match_id)
            except TournamentError:
                return None
            if x.result is not None or x.game != str(game_id) or x.round != t.round or t.status is not Status.RUNNING:
                return None
            if final.winner is None or x.a is None or x.b is None:
                return None
            w = final.winner
            winner, loser = (x.a, x.b) if w == 0 else (x.b, x.a)
            won, lost = int(final.score[w]), int(final.score[1 - w])
            t = record_result(t, match_id, winner, won, lost)
            meta["awaiting_admin"] = [i for i in meta.get("awaiting_admin", []) if i != match_id]
            name, w_name, l_name = t.spec.name, called(t, winner), called(t, loser)

            def text() -> str:
                return _("{tournament}: {winner} beat {loser} {won}-{lost} in match {match}.").format(
                    tournament=name, winner=w_name, loser=l_name, won=won, lost=lost, match=match_id
                )

            return Step(t, meta, [TourEvent(TourEventKind.RESULT, text, (), game_id, match_id)])

        return await self._tour_change(int(tag["id"]), None, change)

    async def _tour_forget(self, player_id: str, guild_id: str | None) -> int:
        """Erase a player's name from the tournaments of a server (of every server, for None): their place is
        called by the neutral name (a team's, that member's part), in its notes too; the results stay. Returns
        how many tournaments changed."""

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step | None:
            names = meta.get("names", {})
            if player_id not in names and t.entrant_of(player_id) is None:
                return None
            names[player_id] = FORGOTTEN
            meta["names"] = names
            entrants = tuple(
                replace(e, name=" & ".join(names.get(p, p) for p in e.members)[:100]) if player_id in e.members else e
                for e in t.entrants
            )
            return Step(replace(t, entrants=entrants), meta, [])

        changed = 0
        for tid in await self.store.tournament_ids(guild_id):
            changed += await self._tour_change(tid, None, change) is not None
        return changed

    # --- timers ---------------------------------------------------------------------------------------------------
    async def _tour_cancel_timers(self, tid: int, t: Tournament) -> None:
        """Cancel the deadline and reminders of the rounds of ``t`` that are over (every one, once it is finished):
        a round that ended early leaves nothing pending. (Rounds only move on, so however changes interleave, a
        timer of a round before the current one is never needed again.)"""
        table = timers_table
        try:
            async with self.store.engine.connect() as conn:
                query = sa.select(table.c.id, table.c.payload).where(
                    table.c.fired_at.is_(None), table.c.game_id.is_(None), table.c.kind.in_(ROUND_TIMERS)
                )
                rows = (await conn.execute(query)).all()
            stale = []
            for timer_id, raw in rows:
                payload = json.loads(raw) if isinstance(raw, str) else raw
                if payload.get("tournament") == tid and (t.finished or int(payload.get("round", 0)) < t.round):
                    stale.append(int(timer_id))
            if stale:
                await self.store.backend.write(table.delete().where(table.c.id.in_(stale), table.c.fired_at.is_(None)))
        except Exception:  # tidying: a timer left behind finds nothing to do when it comes due
            log.warning("tournament #%s: the timers of its past rounds were not cancelled", tid, exc_info=True)

    if TYPE_CHECKING:

        def _settled(
            self, cls: type[Variant], length: int, options: str | Mapping[str, Any] | None, defaults: Any
        ) -> tuple[m.MatchOptions, dict[str, Any]]: ...


# Each event's words, said when read (in the language then active).
def _said(name: str, t: Tournament, x: Match) -> Callable[[], str]:
    return lambda: _("{tournament}: {result}.").format(tournament=name, result=match_line(t, x))


def _round_said(name: str, t: Tournament, now: float) -> Callable[[], str]:
    return lambda: round_words(name, t, now)


def _finished_said(name: str, t: Tournament) -> Callable[[], str]:
    return lambda: finished_words(name, t)
