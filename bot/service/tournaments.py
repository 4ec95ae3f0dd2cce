"""Tournaments, the commands once sign-ups are open: start one, pause and resume it, disqualify or replace a player,
extend a deadline, decide a match, apply the deadlines now (admins), and draw its bracket or standings. Creating one
and its sign-ups (a team's entry waits for the teammate's yes) are in :mod:`.tour_entry`, its clocks in
:mod:`.tour_timers`.

Each command is a change judged by the engine (``engine.tournament``) against the tournament as stored and written
by :meth:`~.tour_core.TourCore._tour_change` (one compare-and-swap, with the games it starts and its timers); its
news reaches the listeners (the transports), and the caller gets it back too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from engine import i18n
from engine.i18n import N_, _, ngettext
from engine.tournament import (
    DeadlineRule,
    Entrant,
    How,
    Match,
    SideFacts,
    Status,
    Tournament,
    decide,
    disqualify,
    duration_words,
    expired_matches,
    extend_deadline,
    pause,
    record_result,
    replace_entrant,
    resume,
    start,
)
from render.bracket import RenderedPage, bracket_text, render_bracket
from render.standings import render_standings, standings_text

from ..storage import Scope
from .tour_core import Change
from .tour_entry import TourEntryMixin
from .tour_parts import (
    Step,
    TourEvent,
    TourEventKind,
    TourNews,
    TourView,
    called,
    entrant_for,
    members_of,
    moment,
    terms_of,
    ties_words,
)
from .types import SYSTEM, PlayerRef, Refused, Request

__all__ = ["TournamentsMixin"]

#: Discord's limit of attachments on one message, which the pictures of a tournament keep to.
MAX_PAGES = 10
#: Text of the standings or bracket that a transport shows beside the pictures, at most (a message holds 2000).
MAX_TEXT = 1800
#: Actions read at a time when a deadline looks back through a match's record for each side's last action.
LOG_PIECE = 64


class TournamentsMixin(TourEntryMixin):
    """Tournaments: the commands (see the module's docstring)."""

    # --- admins ---------------------------------------------------------------------------------------------------
    async def _tour_admin_change(self, who: Request, tournament_id: int | None, doing: str, change: Change) -> TourNews:
        """An admin's change; ``doing`` (marked for the catalog) says what it is if it is refused."""
        guild = self._tour_guild(who, doing)
        self._tour_admin(who, doing)
        return await self._tour_must(await self.tour_id(who, tournament_id), guild, change)

    async def tour_start(self, who: Request, tournament_id: int | None = None) -> TourNews:
        """Close the sign-ups and start (admins): the entrants are seeded, the first round paired and its games
        started."""

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            t = start(t, now)
            meta["invites"] = []  # a team not entered by now plays no more
            name, n = t.spec.name, len(t.entrants)

            def text() -> str:
                return ngettext(
                    "{tournament} has started, with {count} entrant: sign-ups are closed.",
                    "{tournament} has started, with {count} entrants: sign-ups are closed.",
                    n,
                ).format(tournament=name, count=n)

            return Step(t, meta, [TourEvent(TourEventKind.STARTED, text)])

        return await self._tour_admin_change(who, tournament_id, N_("start a tournament"), change)

    async def tour_pause(self, who: Request, tournament_id: int | None = None) -> TourNews:
        """Pause (admins): deadlines stop and no round starts; games go on and their results count."""

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            t = pause(t, now)
            name = t.spec.name

            def text() -> str:
                return _(
                    "{tournament} is paused by {admin}: its deadlines stop and no new round starts until it is "
                    "resumed. Matches under way may go on."
                ).format(tournament=name, admin=who.name)

            return Step(t, meta, [TourEvent(TourEventKind.PAUSED, text)])

        return await self._tour_admin_change(who, tournament_id, N_("pause a tournament"), change)

    async def tour_resume(self, who: Request, tournament_id: int | None = None) -> TourNews:
        """Resume (admins): every deadline still ahead moves on by the time the pause lasted."""

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            lasted = now - (t.paused_at or now)
            t = resume(t, now)
            name = t.spec.name

            def text() -> str:
                return _("{tournament} is resumed by {admin}: its deadlines move on by {duration}.").format(
                    tournament=name, admin=who.name, duration=duration_words(lasted)
                )

            return Step(t, meta, [TourEvent(TourEventKind.RESUMED, text)])

        return await self._tour_admin_change(who, tournament_id, N_("resume a tournament"), change)

    async def tour_disqualify(self, who: Request, player_id: str, tournament_id: int | None = None) -> TourNews:
        """Disqualify a player (their team) (admins): every match of theirs still to play is a walkover."""

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            e = _entrant_of(t, player_id, meta)
            t = disqualify(t, e.id)
            name = t.spec.name

            def text() -> str:
                return _(
                    "{name} was disqualified from {tournament} by {admin}: their matches to play are walkovers."
                ).format(name=e.name, tournament=name, admin=who.name)

            return Step(t, meta, [TourEvent(TourEventKind.DISQUALIFIED, text, e.members)])

        return await self._tour_admin_change(who, tournament_id, N_("disqualify a player"), change)

    async def tour_replace(
        self,
        who: Request,
        player_id: str,
        new: PlayerRef,
        tournament_id: int | None = None,
        *,
        teammate: PlayerRef | None = None,
    ) -> TourNews:
        """Put ``new`` (with ``teammate``, in a team tournament) in a player's place (admins): the place keeps its
        results and plays its remaining matches; a match under way starts again with the new player."""
        guild = self._tour_guild(who, N_("replace a player"))

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            old = _entrant_of(t, player_id, meta)
            if t.spec.team_size > 1 and teammate is None:
                raise Refused(
                    _("{tournament} is for teams of two: name the new team's two players").format(
                        tournament=t.spec.name
                    )
                )
            members = [(new.id, new.name), *([(teammate.id, teammate.name)] if teammate is not None else [])]
            ratings = await self._tour_ratings([p for p, _name in members], t, guild)
            t = replace_entrant(t, old.id, entrant_for(members, ratings))
            meta.setdefault("names", {}).update(dict(members))
            values = {"new": t.entrant(old.id).name, "old": old.name, "tournament": t.spec.name, "admin": who.name}

            def text() -> str:
                return _("{new} takes {old}'s place in {tournament} (set by {admin}).").format(**values)

            return Step(t, meta, [TourEvent(TourEventKind.REPLACED, text, t.entrant(old.id).members)])

        for person in (new, *([teammate] if teammate is not None else [])):
            await self.store.save_player(person.id, person.name, guild_id=who.guild_id)
        return await self._tour_admin_change(who, tournament_id, N_("replace a player"), change)

    async def tour_extend(
        self, who: Request, hours: float, tournament_id: int | None = None, *, match_id: str | None = None
    ) -> TourNews:
        """Give the current round (or one match) ``hours`` more (admins); a match waiting for an admin's decision
        gets its deadline rule applied again at the new deadline."""
        if not 0 < hours <= 24 * 365:
            raise Refused(_("extend a deadline by more than 0 hours and at most a year"))

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            key = match_id.strip().upper() if match_id else None
            if t.status is Status.RUNNING and key is None and t.round_deadline() is None:
                raise Refused(_("the rounds of {tournament} have no deadline to extend").format(tournament=t.spec.name))
            base = t.deadline_of(t.match(key)) if key else t.round_deadline()
            until = max(base or now, now) + hours * 3600.0
            t = extend_deadline(t, until, key)
            meta["awaiting_admin"] = [i for i in meta.get("awaiting_admin", []) if key is not None and i != key]
            pings = members_of(t, *(t.match(key).entrants if key else ()))
            values = {"admin": who.name, "match": key, "round": t.round, "tournament": t.spec.name}

            def text() -> str:
                if key:
                    said = _("{admin} extended match {match} of {tournament} to {moment}.")
                else:
                    said = _("{admin} extended round {round} of {tournament} to {moment}.")
                return said.format(**values, moment=moment(until, now))

            return Step(t, meta, [TourEvent(TourEventKind.EXTENDED, text, pings)])

        return await self._tour_admin_change(who, tournament_id, N_("extend a deadline"), change)

    async def tour_decide(
        self,
        who: Request,
        match_id: str,
        winner_id: str,
        tournament_id: int | None = None,
        *,
        walkover: bool = False,
    ) -> TourNews:
        """Decide a match of the current round (admins): ``winner_id`` (a player of the winning side) wins it, by
        an admin's decision, or by walkover (the opponent did not play; a walkover's points)."""

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            key = match_id.strip().upper()
            x = t.match(key)
            if x.result is not None:
                raise Refused(_("match {match} already has a result").format(match=key))
            winner = _entrant_of(t, winner_id, meta)
            if winner.id not in x.entrants:
                raise Refused(_("{name} does not play in match {match}").format(name=winner.name, match=key))
            # Recorded as its game would end: the winner reaches the match's length, the loser keeps their points.
            _a, _b, score = await self._tour_facts(t, x)
            w = 0 if winner.id == x.a else 1
            won, lost = _length(t), score[1 - w]
            how = How.WALKOVER if walkover else How.ADMIN
            with i18n.shared():  # stored with the result, and shown to everyone with it
                note = _decided_by(who.name)
            t = record_result(t, key, winner.id, won, lost, how, note)
            meta["awaiting_admin"] = [i for i in meta.get("awaiting_admin", []) if i != key]
            values = {"tournament": t.spec.name, "match": key, "name": winner.name, "admin": who.name}

            def text() -> str:
                if walkover:
                    said = _("{tournament}, match {match}: {name} wins by walkover ({note}).")
                else:
                    said = _("{tournament}, match {match}: {name} wins by an admin's decision ({note}).")
                return said.format(**values, note=_decided_by(who.name))

            return Step(t, meta, [TourEvent(TourEventKind.DECIDED, text, members_of(t, x.a, x.b), _game(x), key)])

        return await self._tour_admin_change(who, tournament_id, N_("decide a match"), change)

    # --- deadlines ------------------------------------------------------------------------------------------------
    async def tour_check(self, who: Request, tournament_id: int | None = None) -> TourNews | None:
        """Apply the deadline rule now to every match past its deadline (admins; the bot does it by itself when
        the deadline comes). None when no match is past its deadline."""
        guild = self._tour_guild(who, N_("apply a tournament's deadlines"))
        self._tour_admin(who, N_("apply a tournament's deadlines"))
        return await self._tour_expire(await self.tour_id(who, tournament_id), guild)

    async def _tour_expire(self, tid: int, guild_id: str | None) -> TourNews | None:
        """Decide every unfinished match whose deadline has passed by the tournament's rule (a match the rule
        cannot decide waits for an admin, and is announced once)."""

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step | None:
            if t.status is not Status.RUNNING or t.paused:
                return None
            waiting = set(meta.get("awaiting_admin", []))
            late = [x for x in expired_matches(t, now) if x.id not in waiting]
            if not late:
                return None
            events = []
            played: set[str] = set()
            for x in late:
                a, b, score = await self._tour_facts(t, x)
                decision = decide(t.spec.deadline_rule, a, b)
                pings = members_of(t, x.a, x.b)
                said = _deadline_said(t.spec.name, x.id, t.spec.deadline_rule, a, b, decision.winner is None)
                if decision.winner is None:
                    waiting.add(x.id)
                    events.append(TourEvent(TourEventKind.NEEDS_ADMIN, said, pings, _game(x), x.id))
                    continue
                w = 0 if decision.winner == x.a else 1
                with i18n.shared():  # stored with the result, and shown to everyone with it
                    note = decide(t.spec.deadline_rule, a, b).words
                # Recorded as its game ends (the loser forfeits it): the winner reaches the length.
                t = record_result(t, x.id, decision.winner, _length(t), score[1 - w], How.DEADLINE, note)
                events.append(TourEvent(TourEventKind.DEADLINE, said, pings, _game(x), x.id))
                if a.last_action is not None and b.last_action is not None:
                    played.add(x.id)  # both sides played it: rated; else it is as unplayed as a walkover
            meta["awaiting_admin"] = sorted(waiting)
            return Step(t, meta, events, played)

        return await self._tour_change(tid, guild_id, change)

    async def _tour_facts(self, t: Tournament, x: Match) -> tuple[SideFacts, SideFacts, tuple[int, int]]:
        """What a deadline rule judges of a match: when each side last acted in its game (a timeout is no action),
        each side's pip count in the game in progress, and the score."""
        assert x.a is not None and x.b is not None
        last: list[float | None] = [None, None]
        pips: list[int | None] = [None, None]
        score = (0, 0)
        if x.game is not None:
            self._forget(int(x.game))  # as stored: another process may have moved it on
            loaded = await self._load(int(x.game), SYSTEM)
            state = loaded.state
            if state is not None:
                score = (int(state.score[0]), int(state.score[1]))
                if state.position is not None and not state.over:
                    pips = [int(state.variant.pips(state.position_for(k))[0]) for k in (0, 1)]
                # The log read backwards, a bounded piece at a time, until each side's last action is found (a
                # session's record may hold thousands: the last few almost always have both sides).
                before: int | None = None
                while None in last:
                    piece = await self.store.load_actions(
                        int(x.game), scope=Scope.system(), last=LOG_PIECE, before=before
                    )
                    for row in piece:
                        by = row.action.get("by")
                        side = next((k for k, members in enumerate(state.setup.sides) if by in members), None)
                        if side is not None and row.action.get("type") != "Timeout":
                            last[side] = max(last[side] or row.at, row.at)
                    if len(piece) < LOG_PIECE:
                        break
                    before = piece[0].seq
        a = SideFacts(x.a, called(t, x.a), last[0], pips[0])
        b = SideFacts(x.b, called(t, x.b), last[1], pips[1])
        return a, b, score

    # --- pictures -------------------------------------------------------------------------------------------------
    async def tour_pictures(self, view: TourView) -> tuple[tuple[RenderedPage, ...], str]:
        """The tournament's bracket (a knockout) or standings (a league, a Swiss) as pictures, at most ten, drawn in
        a worker thread, and as text (the round's pairings with a Swiss or a league's table)."""
        t = view.tournament
        if t.status is Status.SIGNUP:
            n = len(t.entrants)
            raise Refused(
                ngettext(
                    "{tournament} has not started: {count} entrant so far",
                    "{tournament} has not started: {count} entrants so far",
                    n,
                ).format(tournament=view.name, count=n)
            )
        theme = self.render_config.theme()

        def draw() -> tuple[tuple[RenderedPage, ...], str]:  # in the language active here (copied into the thread)
            names = {e.id: called(t, e.id) for e in t.entrants}
            if t.spec.is_knockout:
                pages = render_bracket(t, theme, names=names, title=view.name)
                if len(pages) > MAX_PAGES:
                    pages = render_bracket(t, theme, names=names, title=view.name, only_round=t.round)
                text = bracket_text(t, names=names)
                if len(text) > MAX_TEXT:
                    text = bracket_text(t, names=names, rounds=[t.round])
            else:
                pages = render_standings(t, theme, names=names, title=view.name)
                text = standings_text(t, names=names)
                ties = ties_words(t)
                text += "\n" + ties if ties else ""
                if t.status is Status.RUNNING:
                    text += "\n\n" + bracket_text(t, names=names, rounds=[t.round])
            return tuple(pages[:MAX_PAGES]), text

        return await asyncio.to_thread(draw)


def _game(x: Match) -> int | None:
    return int(x.game) if x.game is not None else None


def _length(t: Tournament) -> int:
    """The points a match of ``t`` is played to (what its winner reaches)."""
    return min(max(1, int(terms_of(t.spec.terms)["length"])), 10_000)


def _decided_by(admin: str) -> str:
    """The note of an admin's decision, in the active language."""
    return _("decided by {admin}").format(admin=admin)


def _deadline_said(
    name: str, match_id: str, rule: DeadlineRule, a: SideFacts, b: SideFacts, needs_admin: bool
) -> Callable[[], str]:
    """The announcement of a deadline decision, said when read (the rule decides the same in every language)."""

    def say() -> str:
        words = decide(rule, a, b).words
        if needs_admin:
            # Translators: "tour decide {match} WINNER" is a command: keep it as it is (WINNER may be translated).
            return _("{tournament}, match {match}: {words} (admins: tour decide {match} WINNER)").format(
                tournament=name, match=match_id, words=words
            )
        return _("{tournament}, match {match}: {words}").format(tournament=name, match=match_id, words=words)

    return say


def _entrant_of(t: Tournament, player_id: str, meta: Mapping[str, Any]) -> Entrant:
    found = t.entrant_of(player_id)
    if found is None:
        name = meta.get("names", {}).get(player_id, player_id)
        raise Refused(_("{name} does not play in {tournament}").format(name=name, tournament=t.spec.name))
    return found
