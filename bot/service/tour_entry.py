"""Tournaments, the sign-ups: create one and open its sign-ups (admins), join and leave, and a team's entry, which
waits for the named teammate's yes (as every seated player of a team challenge accepts it).

Each command is a change judged by the engine (``engine.tournament``) against the tournament as stored and written
by :meth:`~.tour_core.TourCore._tour_change`; the rest of the commands are in :mod:`.tournaments`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine import i18n
from engine.i18n import N_, _, ngettext
from engine.tournament import (
    MAX_ENTRANTS,
    ByeRule,
    Format,
    Status,
    Tiebreak,
    Tournament,
    TournamentError,
    TournamentSpec,
    join,
    leave,
    new_tournament,
    to_data,
)

from .challenges import _terms_words
from .helpers import _options_data, _tc_data, _time_control, json_dumps
from .tour_core import Change
from .tour_parts import Step, TourEvent, TourEventKind, TourNews, entrant_for, format_of, format_words, terms_words
from .tour_timers import TourTimersMixin
from .types import PlayerRef, Refused, Request

__all__ = ["TourEntryMixin"]

#: Team invitations a tournament keeps waiting for an answer, at most (the oldest go first).
MAX_INVITES = 200


class TourEntryMixin(TourTimersMixin):
    """Creating a tournament, and its sign-ups."""

    # --- creating -------------------------------------------------------------------------------------------------
    async def tour_create(
        self,
        who: Request,
        name: str,
        format: str = "swiss",
        *,
        variant: str | None = None,
        length: int | None = None,
        options: str | Mapping[str, Any] | None = None,
        clock: str | None = None,
        round_hours: float | None = 72.0,
        deadline_rule: str = "recent",
        seeding: str = "rating",
        rounds: int = 0,
        double_elimination: bool = False,
        divisions: int = 1,
        legs: int = 1,
        max_entrants: int = MAX_ENTRANTS,
        channel_id: str | None = None,
        tiebreak: str | None = None,
        bye_rule: str | None = None,
    ) -> TourNews:
        """Open sign-ups for a tournament (admins). Its matches are played under the rule set, length, options and
        clock given (the server's defaults where not), like a challenge's; each round lasts ``round_hours`` (None or
        0: no deadline), after which ``deadline_rule`` decides unfinished matches: ``recent`` (the player who acted
        more recently wins), ``pips`` (the higher pip count loses) or ``admin``. A Swiss breaks ties by ``tiebreak``
        first (``buchholz``, the default; ``cut1``: Buchholz cut-1; ``sonneborn-berger``), and when nobody can be
        spared both a rematch and a second bye, ``bye_rule`` says which is given (``one-bye``, the default: a rematch
        rather than a second bye; ``no-rematch``: a second bye rather than a rematch)."""
        guild = self._tour_guild(who, N_("create a tournament"))
        self._tour_admin(who, N_("create a tournament"))
        name = " ".join(str(name).split())
        if not name or len(name) > 100:
            raise Refused(_("a tournament needs a name of 1 to 100 characters"))
        settings = await self.server_settings(guild)
        cls = self._variant_class(variant or settings["default_variant"])
        allowed = settings["allowed_variants"]
        if allowed is not None and cls.name not in allowed:
            raise Refused(
                _("{rule_set} is not allowed on this server; allowed: {allowed}").format(
                    rule_set=_(cls.display_name), allowed=", ".join(allowed)
                )
            )
        length = int(settings["default_length"] if length is None else length)
        if length < 1:
            raise Refused(
                _("tournament matches are played to a length: give 1 point or more (money play has no winner)")
            )
        match_options, variant_options = self._settled(cls, length, options, settings["default_options"])
        if match_options.money:
            raise Refused(_("tournament matches are played to a length, not for money"))
        tc = _time_control(clock if clock is not None else settings["default_time_control"])
        fmt = format_of(format)
        rule = {"recent": "recent", "pips": "pips", "pip": "pips", "admin": "admin"}.get(deadline_rule.strip().lower())
        if rule is None:
            # Translators: recent, pips and admin are typed as they are: keep them in English.
            raise Refused(_("the deadline rule is recent (the player who acted more recently wins), pips (the higher "
                            "pip count loses) or admin (an admin decides)"))  # fmt: skip
        if round_hours is not None and not 0 <= round_hours <= 24 * 365:
            raise Refused(_("a round lasts up to a year (0: no deadline)"))
        tiebreaks, byes = _swiss_terms(fmt, tiebreak, bye_rule)
        terms = (
            ("variant", cls.name),
            ("length", str(length)),
            ("options", json_dumps(_options_data(match_options))),
            ("variant_options", json_dumps(variant_options)),
            ("clock", json_dumps(_tc_data(tc)) if tc is not None else ""),
        )
        try:
            spec = TournamentSpec(
                fmt,
                name=name,
                double_elimination=double_elimination,
                rounds=rounds,
                legs=legs,
                divisions=divisions,
                seeding=seeding.strip().lower(),  # type: ignore[arg-type]
                shuffle_seed=random.getrandbits(31),
                team_size=cls.team_size,
                max_entrants=max_entrants,
                round_seconds=round_hours * 3600.0 if round_hours else None,
                deadline_rule=rule,  # type: ignore[arg-type]
                walkover_points=min(length, 1000),
                terms=terms,
                tiebreaks=tiebreaks,
                bye_rule=byes,
            )
        except TournamentError as exc:
            raise Refused(str(exc)) from None
        t = new_tournament(spec)
        with i18n.use(i18n.DEFAULT):  # kept in case its rule set cannot be found later (the words are said anew)
            words = terms_words(spec.terms, _terms_words(cls, match_options, variant_options))
        meta: dict[str, Any] = {"names": {}, "created_by": who.id, "terms": words, "awaiting_admin": []}
        row = await self.store.create_tournament(
            guild_id=guild, name=name, status=Status.SIGNUP.value, state=to_data(t), meta=meta, channel_id=channel_id
        )
        opener, tid, teams = who.name, row.id, cls.team_size > 1

        def text() -> str:
            values = {"who": opener, "tournament": name, "id": tid, "kind": format_words(fmt),
                      "terms": terms_words(spec.terms, words)}  # fmt: skip
            if teams:
                return _(
                    "{who} opened sign-ups for {tournament} (tournament #{id}), a {kind} for teams of two: {terms}."
                ).format(**values)
            return _("{who} opened sign-ups for {tournament} (tournament #{id}), a {kind}: {terms}.").format(**values)

        news = TourNews(self._tour_view(row, t), (TourEvent(TourEventKind.CREATED, text),), entrants_changed=True)
        await self._tell(news)
        return news

    # --- sign-ups -------------------------------------------------------------------------------------------------
    async def tour_join(
        self, who: Request, tournament_id: int | None = None, *, teammate: PlayerRef | None = None
    ) -> TourNews:
        """Sign up. In a team tournament the asker names ``teammate``, who is asked and must say yes
        (:meth:`tour_team_answer`), as every seated player of a team challenge accepts it: the team is entered then."""
        guild = self._tour_guild(who, N_("join a tournament"))
        tid = await self.tour_id(who, tournament_id)
        if teammate is not None and teammate.id == who.id:
            raise Refused(_("your teammate must be someone else"))

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            name = t.spec.name
            if t.spec.team_size > 1 and teammate is None:
                raise Refused(_("{tournament} is for teams of two: name your teammate to join").format(tournament=name))
            if t.spec.team_size == 1 and teammate is not None:
                raise Refused(_("{tournament} is for single players: join without a teammate").format(tournament=name))
            if teammate is not None:
                return _invite(t, meta, who, teammate)
            members = [(who.id, who.name)]
            ratings = await self._tour_ratings([p for p, _name in members], t, guild)
            return _joined(t, meta, members, ratings)

        for person in (who, *([teammate] if teammate is not None else [])):
            await self.store.save_player(person.id, person.name, guild_id=guild)
        return await self._tour_must(tid, guild, change)

    async def tour_team_answer(
        self, who: Request, tournament_id: int | None = None, *, captain: str | None = None, accept: bool = True
    ) -> TourNews:
        """The named teammate answers a team's invitation (from ``captain``, or the only one they have): yes enters
        the team, no withdraws the invitation."""
        guild = self._tour_guild(who, N_("join a tournament"))
        tid = await self.tour_id(who, tournament_id)

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            name = t.spec.name
            mine = [i for i in meta.get("invites", []) if i.get("mate") == who.id]
            if captain is not None:
                mine = [i for i in mine if i.get("by") == captain]
            if not mine:
                raise Refused(_("nobody has asked you to join {tournament} as their teammate").format(tournament=name))
            if len(mine) > 1:
                names = ", ".join(str(i.get("by_name")) for i in mine)
                raise Refused(_("several players asked you ({names}): say whose team you answer").format(names=names))
            invite = mine[0]
            rest = [i for i in meta.get("invites", []) if i is not invite]
            members = [(str(invite["by"]), str(invite["by_name"])), (who.id, who.name)]
            if not accept:
                meta["invites"] = rest
                captain_name = members[0][1]

                def text() -> str:
                    return _("{name} declined to play {tournament} with {captain}.").format(
                        name=who.name, tournament=name, captain=captain_name
                    )

                return Step(t, meta, [TourEvent(TourEventKind.TEAM_DECLINED, text, (members[0][0],), by=members[0][0])])
            # Entered: every other invitation of these two players is void now.
            meta["invites"] = [i for i in rest if not {i.get("by"), i.get("mate")} & {p for p, _n in members}]
            ratings = await self._tour_ratings([p for p, _name in members], t, guild)
            return _joined(t, meta, members, ratings)

        await self.store.save_player(who.id, who.name, guild_id=guild)
        return await self._tour_must(tid, guild, change)

    async def tour_leave(self, who: Request, tournament_id: int | None = None) -> TourNews:
        """Take your name (your team's) off the list, while sign-ups are open."""
        guild = self._tour_guild(who, N_("leave a tournament"))
        tid = await self.tour_id(who, tournament_id)

        async def change(t: Tournament, meta: dict[str, Any], now: float) -> Step:
            mine = t.entrant_of(who.id)
            name = t.spec.name
            if mine is None:
                raise Refused(_("you have not joined {tournament}").format(tournament=name))
            if t.status is not Status.SIGNUP:
                raise Refused(
                    _("{tournament} has started: an admin may replace or disqualify a player instead").format(
                        tournament=name
                    )
                )
            t = leave(t, mine.id)
            n = len(t.entrants)

            def text() -> str:
                return ngettext(
                    "{name} left {tournament} ({count} entrant now).",
                    "{name} left {tournament} ({count} entrants now).",
                    n,
                ).format(name=mine.name, tournament=name, count=n)

            return Step(t, meta, [TourEvent(TourEventKind.LEFT, text)])

        return await self._tour_must(tid, guild, change)

    async def _tour_ratings(self, players: list[str], t: Tournament, guild: str) -> dict[str, float]:
        """Each player's rating in the tournament's rule set on this server (those who have one)."""
        variant = dict(t.spec.terms).get("variant", "")
        out: dict[str, float] = {}
        for p in players:
            for r in await self.store.ratings_of(p, self.ratings.name, guild):
                if r["variant"] == variant:
                    out[p] = float(r["rating"])
        return out

    async def _tour_must(self, tid: int, guild: str | None, change: Change) -> TourNews:
        news = await self._tour_change(tid, guild, change)
        if news is None:
            raise Refused(_("there was nothing to change"))
        return news


#: How an organiser picks a Swiss's first tiebreak, and the tiebreaks it then has.
SWISS_TIEBREAKS: dict[str, tuple[Tiebreak, ...]] = {
    "buchholz": (),
    "cut1": (Tiebreak.BUCHHOLZ_CUT1, Tiebreak.BUCHHOLZ, Tiebreak.POINTS_DIFFERENCE),
    "sonneborn-berger": (Tiebreak.SONNEBORN_BERGER, Tiebreak.BUCHHOLZ, Tiebreak.POINTS_DIFFERENCE),
}
#: How an organiser names the bye rule.
BYE_RULES = {"one-bye": ByeRule.ONE_BYE, "no-rematch": ByeRule.NO_REMATCH}


def _swiss_terms(fmt: Format, tiebreak: str | None, bye_rule: str | None) -> tuple[tuple[Tiebreak, ...], ByeRule]:
    """A Swiss's tiebreaks and bye rule as the organiser named them (refused with the choices)."""
    key = (tiebreak or "buchholz").strip().lower().replace("_", "-")
    key = {"sb": "sonneborn-berger", "cut-1": "cut1", "buchholz-cut1": "cut1"}.get(key, key)
    rule = (bye_rule or "one-bye").strip().lower().replace("_", "-").replace(" ", "-")
    if key not in SWISS_TIEBREAKS:
        # Translators: buchholz, cut1 and sonneborn-berger are typed as they are: keep them in English.
        raise Refused(_("a Swiss breaks ties first by buchholz, cut1 (Buchholz cut-1) or sonneborn-berger"))
    if rule not in BYE_RULES:
        # Translators: one-bye and no-rematch are typed as they are: keep them in English.
        raise Refused(_("the bye rule is one-bye (a rematch rather than a second bye) or no-rematch (a second bye "
                        "rather than a rematch)"))  # fmt: skip
    if fmt is not Format.SWISS and (key != "buchholz" or rule != "one-bye"):
        raise Refused(_("only a Swiss chooses its tiebreak and its bye rule"))
    return SWISS_TIEBREAKS[key], BYE_RULES[rule]


def _joined(t: Tournament, meta: dict[str, Any], members: list[tuple[str, str]], ratings: Mapping[str, float]) -> Step:
    """Enter a player, or a team that has agreed to play."""
    entrant = entrant_for(members, ratings)
    t = join(t, entrant)
    meta.setdefault("names", {}).update(dict(members))
    n, name = len(t.entrants), t.spec.name

    def text() -> str:
        return ngettext(
            "{name} joined {tournament} ({count} entrant now).",
            "{name} joined {tournament} ({count} entrants now).",
            n,
        ).format(name=entrant.name, tournament=name, count=n)

    return Step(t, meta, [TourEvent(TourEventKind.JOINED, text, tuple(p for p, _n in members))])


def _invite(t: Tournament, meta: dict[str, Any], who: Request, teammate: PlayerRef) -> Step:
    """Ask ``teammate`` to play in ``who``'s team: the team is entered when they say yes (a new invitation from the
    same player replaces the one before)."""
    name = t.spec.name
    if t.status is not Status.SIGNUP:
        raise Refused(_("{tournament} is not taking sign-ups").format(tournament=name))
    for person in (who, teammate):
        found = t.entrant_of(person.id)
        if found is not None:
            raise Refused(
                _("{name} already plays in {tournament}, as {team}").format(
                    name=person.name, tournament=name, team=found.name
                )
            )
    invites = [i for i in meta.get("invites", []) if i.get("by") != who.id]
    invites.append({"by": who.id, "by_name": who.name, "mate": teammate.id, "mate_name": teammate.name})
    meta["invites"] = invites[-MAX_INVITES:]
    meta.setdefault("names", {}).update({who.id: who.name, teammate.id: teammate.name})

    def text() -> str:
        return _(
            "{captain} asks {teammate} to play {tournament} as a team. The team is entered once {teammate} says yes."
        ).format(captain=who.name, teammate=teammate.name, tournament=name)

    return Step(t, meta, [TourEvent(TourEventKind.TEAM_INVITE, text, (teammate.id,), by=who.id)])
