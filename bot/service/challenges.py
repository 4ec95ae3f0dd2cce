"""Challenges: issuing, accepting and declining them, and the match thread."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine import i18n
from engine import match as m
from engine.fairdice import FairDice, client_value, commitment, new_server_seed
from engine.i18n import _, listed, ngettext
from engine.match import MatchOptionError
from engine.options import Chosen, OptionError, match_option_specs, settle
from engine.options import parse as parse_options
from engine.plugins import registry
from engine.record import log_counters, setup_to_data
from engine.variant import Variant, VariantOptionError

from ..clock import start_clock
from ..storage import Conflict, GameStatus, Scope, TimerSpec
from .core import ServiceCore
from .events import _describe_terms
from .helpers import (
    _Loaded,
    _match_options,
    _options_data,
    _snapshot,
    _tc_data,
    _time_control,
    challenge_awaiting,
    status_word,
)
from .missing import stored_class
from .types import DAY, SYSTEM, Event, EventKind, Outcome, PlayerRef, Refused, Request


class ChallengesMixin(ServiceCore):
    """Challenges: issuing, accepting and declining them, and the match thread."""

    # --- challenges -----------------------------------------------------------------------------
    async def challenge(
        self,
        challenger: Request,
        opponent: PlayerRef | None,
        *,
        variant: str | None = None,
        length: int | None = None,
        options: str | Mapping[str, Any] | None = None,
        teammate: PlayerRef | None = None,
        opponent_teammate: PlayerRef | None = None,
        channel_id: str | None = None,
        time_control: str | dict[str, Any] | None = None,
        bot: str | None = None,
        hints: bool | None = None,
        entropy: str | None = None,
        consult: str = "free",
        approval_seconds: float = 600.0,
    ) -> Outcome:
        """Challenge ``opponent`` (None: an open challenge anyone may accept) to a match or money session.

        ``time_control`` is a preset name (see :meth:`time_controls`) or the fields of a custom control;
        None takes the server's default (which may be no clock at all). ``bot`` names a bot player to play
        against (it accepts at once). ``entropy`` is used only then, as the players' share of the dice; it
        is known before the bot commits, so a match against the bot is less auditable than one between people,
        where the commitment is shown with the challenge and the accepting click supplies the value.

        ``options`` are match options and the rule set's options: an options string (``jacoby beavers max_cube=16
        koks=on``, see engine.options) or a mapping of names to values. They are checked together, and the server's
        default options are added where they can apply (engine.options.settle).
        """
        if consult not in ("free", "agree"):
            raise Refused(_('team consultation is "free" (the acting member decides) or "agree" (both must agree)'))
        if challenger.guild_id is None:
            raise Refused(_("challenges are made in a server's channel, not in a direct message"))
        guild_id = challenger.guild_id
        settings = await self.server_settings(guild_id)
        if variant is None and not registry().has(settings["default_variant"]):
            raise Refused(
                _(
                    "this server's default rule set, {rule_set}, is not installed on this bot: name a rule set "
                    "({rule_sets})"
                ).format(rule_set=settings["default_variant"], rule_sets=", ".join(registry().names()))
            )
        tc = _time_control(time_control if time_control is not None else settings["default_time_control"])
        bots: dict[str, str] = {}
        if bot is not None:
            spec, opponent, opponent_teammate = self._bot_seats(bot, variant or settings["default_variant"])
            bots = {opponent.id: spec.name}
            if opponent_teammate is not None:
                bots[opponent_teammate.id] = spec.name
        cls = self._variant_class(variant or settings["default_variant"])
        allowed = settings["allowed_variants"]
        if allowed is not None and cls.name not in allowed:
            raise Refused(
                _("{rule_set} is not allowed on this server; allowed: {allowed}").format(
                    rule_set=_(cls.display_name), allowed=", ".join(allowed)
                )
            )
        if length is None:  # a rule set may have its own usual length (Tavli: 5), else the server's default
            length = cls.default_length if cls.default_length is not None else settings["default_length"]
        match_options, variant_options = self._settled(cls, length, options, settings["default_options"])
        await self._check_open_challenges(challenger, guild_id)
        if opponent is not None and opponent.id == challenger.id:
            raise Refused(_("you cannot challenge yourself"))
        team = cls.team_size > 1
        if team:
            if teammate is None:
                raise Refused(
                    _("{rule_set} is played by teams of two: name your teammate").format(rule_set=_(cls.display_name))
                )
            if opponent is None or opponent_teammate is None:
                raise Refused(
                    _("{rule_set} needs both opponents named (an open team challenge is not possible)").format(
                        rule_set=_(cls.display_name)
                    )
                )
            people = [challenger, teammate, opponent, opponent_teammate]
            if len({p.id for p in people}) != 4:
                raise Refused(_("the four players of a Doubles match must be four different people"))
        elif teammate is not None or opponent_teammate is not None:
            raise Refused(
                _("{rule_set} is played one against one: teammates are for team rule sets").format(
                    rule_set=_(cls.display_name)
                )
            )
        invited = [p for p in (opponent, opponent_teammate) if p is not None]
        names = {p.id: p.name for p in [challenger, *invited, *([teammate] if teammate else [])]}
        for p in [challenger, *invited, *([teammate] if teammate else [])]:
            await self.store.save_player(p.id, p.name, guild_id=guild_id)
        terms = {
            "challenger": challenger.id,
            "teammate": teammate.id if teammate else None,
            "invited": [p.id for p in invited],
            "opponent_teammate": opponent_teammate.id if opponent_teammate else None,
            "variant": cls.name,
            "options": _options_data(match_options),
            # The rule set's options that differ from its defaults (the rule set is built with them on accepting).
            "variant_options": variant_options,
            "names": names,
            "time_control": None if tc is None else _tc_data(tc),
            "bots": bots,
            # Team play: "free" (the acting member decides) or "agree" (the teammate approves each play).
            "consult": consult,
            "approval_seconds": approval_seconds,
            # Matches against a bot are unrated; hints are off in rated matches unless asked for.
            "rated": not bots,
            "hints": bool(bots) or match_options.money if hints is None else bool(hints),
        }
        seats: dict[str, int | None] = {challenger.id: 0}
        if teammate:
            seats[teammate.id] = 0
        for p in invited:
            seats[p.id] = 1
        # Commit to the dice now, before anyone contributes a value or accepts: the seed is stored with the challenge
        # (and its expiry), in one transaction, so no challenge is ever left without it.
        seed = new_server_seed() if self.dice is None else None
        expiry = self.clock() + float(settings["challenge_expiry_days"]) * DAY
        row = await self.store.create_game(
            guild_id=guild_id,
            status=GameStatus.CHALLENGE,
            variant=cls.name,
            setup=terms,
            players=seats,
            turn_player=invited[0].id if invited else None,
            channel_id=channel_id,
            secret=None if seed is None else seed.hex(),
            timers=[TimerSpec("challenge-expiry", expiry)],
        )
        loaded = _Loaded(row, None)
        view = self._view(loaded)
        with i18n.shared():  # posted in the channel for everyone
            what = _terms_words(cls, match_options, variant_options)
            if tc:
                what = _("{terms}, clock: {clock}").format(terms=what, clock=tc.describe())
            if teammate is not None:
                text = _(
                    "{challengers} challenge {opponents} to {terms} (game #{game}); it starts once {players} accept."
                ).format(
                    challengers=f"{challenger.name} & {teammate.name}",
                    opponents=" & ".join(p.name for p in invited),
                    terms=what,
                    game=row.id,
                    players=listed([names[p] for p in challenge_awaiting(terms)]),
                )
            elif invited:
                text = _("{challenger} challenges {opponent} to {terms} (game #{game}).").format(
                    challenger=challenger.name, opponent=listed([p.name for p in invited]), terms=what, game=row.id
                )
            else:
                text = _("{challenger} challenges anyone to {terms} (game #{game}).").format(
                    challenger=challenger.name, terms=what, game=row.id
                )
            if seed is not None:
                text += " " + _("Dice commitment: {commitment} (the seed is revealed at the end).").format(
                    commitment=commitment(seed)
                )
        if bots and not challenge_awaiting(terms):
            # A bot accepts at once; the challenger's own click is the players' share of the dice. (A team challenge
            # against the bots waits for the challenger's teammate, who is asked like anyone else.)
            accepted = await self.accept(row.id, challenger.as_player(invited[0]), entropy=entropy)
            return Outcome((Event(EventKind.CHALLENGE, row.id, text, challenger.id), *accepted.events), accepted.game)
        return Outcome((Event(EventKind.CHALLENGE, row.id, text, challenger.id),), view)

    def _settled(
        self, cls: type[Variant], length: int, options: str | Mapping[str, Any] | None, defaults: Any
    ) -> tuple[m.MatchOptions, dict[str, Any]]:
        """A challenge's match options and rule-set options: the player's (an options string or a mapping), checked
        together, with each of the server's defaults that can apply (engine.options.settle)."""
        reg = registry()
        rule_sets = [reg.variants[n] for n in reg.names()]
        try:
            chosen = parse_options(options, rule_sets, rule_set=cls)
        except OptionError as exc:
            raise Refused(str(exc)) from None
        stored = parse_options(defaults if isinstance(defaults, Mapping) else {}, rule_sets, lenient=True)
        try:
            return settle(cls, length, chosen, stored)
        except OptionError as exc:
            raise Refused(str(exc)) from None

    async def _check_open_challenges(self, challenger: Request, guild_id: str) -> None:
        """``[limits]``: a player, and a server, may have only so many challenges waiting for an answer."""
        mine = await self.store.games_of(challenger.id, scope=Scope.server(guild_id), statuses=(GameStatus.CHALLENGE,))
        own = [row for row in mine if row.setup.get("challenger") == challenger.id]
        cap = self.limits.max_open_challenges_per_player
        if len(own) >= cap:
            numbers = ", ".join(f"#{row.id}" for row in own[:5])
            raise Refused(
                ngettext(
                    # (English keeps one form: the number is the cap, and "1 open challenges" is what it always said)
                    "you already have {count} open challenges here ({numbers}…), the most this bot allows: wait for "
                    "answers, or withdraw one (decline it) before challenging again",
                    "you already have {count} open challenges here ({numbers}…), the most this bot allows: wait for "
                    "answers, or withdraw one (decline it) before challenging again",
                    len(own),
                ).format(count=len(own), numbers=numbers)
            )
        server_cap = self.limits.max_open_challenges_per_server
        if await self.store.count_games(status=GameStatus.CHALLENGE, scope=Scope.server(guild_id)) >= server_cap:
            raise Refused(
                ngettext(
                    "this server has {count} open challenge, the most this bot allows: accept or decline it "
                    "(or wait for it to expire) before making new ones",
                    "this server has {count} open challenges, the most this bot allows: accept or decline some "
                    "(or wait for them to expire) before making new ones",
                    server_cap,
                ).format(count=server_cap)
            )

    async def accept(self, game_id: int, player: Request, *, entropy: str | None = None) -> Outcome:
        """Accept a challenge: the match starts.

        ``entropy`` is the players' contribution to the dice (for Discord, the accepting interaction's id): the
        bot has already committed to its secret seed, so neither side can choose the rolls.
        """
        async with self._lock(game_id):
            for _attempt in range(3):
                loaded = await self._load(game_id, player)
                row = loaded.row
                if row.status != GameStatus.CHALLENGE:
                    raise Refused(
                        _("game #{game} is not an open challenge (it is {status})").format(
                            game=game_id, status=status_word(row.status)
                        )
                    )
                terms = row.setup
                if player.id == terms["challenger"]:
                    raise Refused(_("you cannot accept your own challenge"))
                invited = list(terms["invited"])
                cls = stored_class(terms["variant"], game_id)
                names = dict(terms["names"])
                names[player.id] = player.name
                if terms.get("teammate"):
                    # A team challenge: every player it names accepts (the challenger's teammate too).
                    waiting = [p for p in challenge_awaiting(terms) if p != player.id]
                    bots = terms.get("bots") or {}
                    if player.id not in challenge_awaiting(terms) and player.id not in bots:
                        if player.id in (terms.get("accepted") or ()):
                            who = listed([names[p] for p in challenge_awaiting(terms)])
                            raise Refused(
                                _("you have accepted challenge #{game} already; it waits for {players}").format(
                                    game=game_id, players=who
                                )
                            )
                        named = [terms["teammate"], *invited]
                        raise Refused(
                            _("this challenge is for {players}, not for you").format(
                                players=", ".join(names[i] for i in named)
                            )
                        )
                    if waiting:
                        accepted = sorted({*(terms.get("accepted") or ()), player.id})
                        try:
                            await self.store.update_game(
                                game_id,
                                row.version,
                                setup={**terms, "accepted": accepted, "names": names},
                                turn_player=waiting[0],
                            )
                        except Conflict:
                            self._forget(game_id)
                            continue
                        await self.store.save_player(player.id, player.name, guild_id=row.guild_id)
                        self._forget(game_id)
                        view = self._view(await self._load(game_id, SYSTEM))
                        with i18n.shared():
                            text = ngettext(
                                "{player} accepts challenge #{game}; it starts once {players} accepts.",
                                "{player} accepts challenge #{game}; it starts once {players} accept.",
                                len(waiting),
                            ).format(player=player.name, game=game_id, players=listed([names[p] for p in waiting]))
                        return Outcome((Event(EventKind.ACCEPTED, game_id, text, player.id),), view)
                elif player.id == terms.get("teammate"):
                    raise Refused(_("you cannot accept your own challenge"))
                elif invited and player.id not in invited:
                    raise Refused(
                        _("this challenge is for {players}, not for you").format(
                            players=", ".join(terms["names"][i] for i in invited)
                        )
                    )
                if cls.team_size > 1:
                    sides: tuple[tuple[str, ...], tuple[str, ...]] = (
                        (terms["challenger"], terms["teammate"]),
                        (invited[0], terms["opponent_teammate"]),
                    )
                    side_names = (
                        f"{names[sides[0][0]]} & {names[sides[0][1]]}",
                        f"{names[sides[1][0]]} & {names[sides[1][1]]}",
                    )
                else:
                    sides = ((terms["challenger"],), (player.id,))
                    side_names = (names[terms["challenger"]], player.name)
                try:
                    variant_obj = cls(**dict(terms.get("variant_options") or {}))
                    state = m.new_match(variant_obj, sides, _match_options(terms["options"]), side_names)
                except (MatchOptionError, VariantOptionError) as exc:
                    raise Refused(str(exc)) from None
                await self.store.save_player(player.id, player.name, guild_id=row.guild_id)
                tc_data = terms.get("time_control")
                setup = {"match": setup_to_data(state.setup), "names": names, "terms": terms, "time_control": tc_data}
                fair = None
                secret = await self.store.secret(game_id) if self.dice is None else None
                if secret is None and self.dice is None:
                    # Made by an earlier version, stopped between storing the challenge and its seed: its dice
                    # could not be checked by anyone, so it is not played.
                    raise Refused(
                        _(
                            "challenge #{game} has no dice commitment (it was interrupted while being made), so its "
                            "dice could not be verified: the challenger can decline it and challenge again"
                        ).format(game=game_id)
                    )
                if secret is not None:
                    # The seed was committed with the challenge; now the accepting player's value joins it
                    # (Discord: the accepting interaction's id, which nobody knew when the commitment was shown).
                    contribution = entropy or f"accepted by {player.id}"
                    fair = FairDice.from_secret_hex(secret, client_value(contribution, f"game {game_id}"))
                    setup["dice"] = fair.proof().to_data()
                seats: dict[str, int | None] = {} if player.id in row.players else {player.id: 1}
                now = self.clock()
                setup["started_at"] = now  # a money session's deadline (session_hours) counts from here
                tc = _time_control(tc_data)
                clock = start_clock(tc, state, now) if tc else None
                guild = await self.server_settings(row.guild_id)
                try:
                    version = await self.store.update_game(
                        game_id,
                        row.version,
                        status=GameStatus.ACTIVE,
                        setup=setup,
                        snapshot=_snapshot(state, log_counters([])),
                        turn_player=None,
                        players=seats,
                        clock=None if clock is None else clock.to_data(),
                        timers=self._timers_for(state, tc, clock, now, {}, guild, 0),
                    )
                except Conflict:
                    self._forget(game_id)
                    continue
                new = await self.store.load_game(game_id, scope=Scope.system())
                assert new.version == version
                loaded = _Loaded(new, state)
                self._remember(loaded)
                view = self._view(loaded)
                with i18n.shared():
                    text = _("{player} accepted: {first} vs {second}, {terms}. Roll to start (game #{game}).").format(
                        player=player.name,
                        first=side_names[0],
                        second=side_names[1],
                        terms=_terms_words(cls, state.options, terms.get("variant_options") or {}),
                        game=game_id,
                    )
                    if fair:
                        # The whole values (the players' value is JSON text) are in the record /bg-dice verify
                        # attaches; the message shows their fingerprints.
                        text += " " + _(
                            "Dice: commitment {commitment}…, players' value {value}… (dice verify shows both whole)."
                        ).format(commitment=fair.commitment[:12], value=_fingerprint(fair.client))
                return Outcome((Event(EventKind.START, game_id, text, player.id),), view)
            raise Refused(_("the game is busy; try again"))

    async def decline(self, game_id: int, player: Request) -> Outcome:
        """Decline (or, for the challenger, withdraw) a challenge."""
        async with self._lock(game_id):
            loaded = await self._load(game_id, player)
            row = loaded.row
            if row.status != GameStatus.CHALLENGE:
                raise Refused(
                    _("game #{game} is not an open challenge (it is {status})").format(
                        game=game_id, status=status_word(row.status)
                    )
                )
            terms = row.setup
            own = player.id in (terms["challenger"], terms.get("teammate"))
            if not own and terms["invited"] and player.id not in terms["invited"]:
                raise Refused(_("only the challenged players (or the challenger) can decline this challenge"))
            if not own and not terms["invited"]:
                raise Refused(
                    _("an open challenge cannot be declined; just leave it, or the challenger can withdraw it")
                )
            try:
                await self.store.update_game(game_id, row.version, status=GameStatus.DECLINED, turn_player=None)
            except Conflict:
                self._forget(game_id)
                raise Refused(_("the challenge changed meanwhile; look again")) from None
            self._forget(game_id)
            loaded = await self._load(game_id, SYSTEM)
            with i18n.shared():
                if own:
                    text = _("{player} withdrew challenge #{game}.").format(player=player.name, game=game_id)
                else:
                    text = _("{player} declined challenge #{game}.").format(player=player.name, game=game_id)
            return Outcome((Event(EventKind.DECLINED, game_id, text, player.id),), self._view(loaded))

    async def set_thread(self, game_id: int, thread_id: str | None) -> None:
        """Remember the transport's thread for a game (Discord: the match thread; None: the game is played in the
        channel of its challenge)."""
        async with self._lock(game_id):
            loaded = await self._load(game_id, SYSTEM)
            version = await self.store.update_game(game_id, loaded.row.version, thread_id=thread_id)
            self._remember(
                _Loaded(replace(loaded.row, version=version, thread_id=thread_id), loaded.state, loaded.counters)
            )


#: The match options the sentence of :func:`_describe_terms` already says in words.
_SAID = frozenset({"jacoby", "beavers", "holland", "crawford", "cube"})


def _terms_words(cls: type[Variant], opts: m.MatchOptions, variant_options: Mapping[str, Any]) -> str:
    """A challenge's terms in one phrase: the usual words, then every other option that differs from its default."""
    changed = {
        o.name: getattr(opts, o.name)
        for o in match_option_specs()
        if o.name not in _SAID and str(getattr(getattr(opts, o.name), "value", getattr(opts, o.name))) != str(o.default)
    }
    text = Chosen(changed, {cls.name: dict(variant_options)} if variant_options else {}).text(cls.name)
    if not text:
        return _describe_terms(cls, opts)
    return _("{terms}; options: {options}").format(terms=_describe_terms(cls, opts), options=text)


def _fingerprint(value: str) -> str:
    """A short fingerprint of the players' value for a message: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(value.encode()).hexdigest()[:12]
