"""Bot players: seats, their automatic plays, hints and analysis."""

from __future__ import annotations

import logging
from typing import Any

from engine import i18n
from engine import match as m
from engine.analysis import HintError, luck_words
from engine.i18n import _, ngettext
from engine.matchcard import rating_words
from engine.players import Player, PlayerError, PlayerFailed, PlayerSpec, PlayerUnavailable, UnsupportedVariant
from engine.plugins import UnknownPlayer, UnknownVariant, find_player, players_for, registry

from ..storage import GameStatus
from .core import ServiceCore
from .heavy import Job, analysed_from
from .helpers import _deciding, _Loaded, _to_act, bot_name, keep_analysis
from .jobs import analyse_record, choose_action, hint_for
from .types import SYSTEM, Event, EventKind, Outcome, PlayerRef, Refused, Request, Who, asker

log = logging.getLogger("gammonbot.service")
plog = logging.getLogger("gammonbot.plugins")


class BotsMixin(ServiceCore):
    """Bot players: seats, their automatic plays, hints and analysis."""

    # --- bot players -------------------------------------------------------------------------------
    @staticmethod
    def bots_for(variant: str) -> list[PlayerSpec]:
        """The bot players that can play a rule set here, weakest first."""
        try:
            cls = registry().find(variant)
        except UnknownVariant as exc:
            raise Refused(str(exc)) from None
        return players_for(cls())

    def _bot_seats(self, name: str, variant: str) -> tuple[PlayerSpec, PlayerRef, PlayerRef | None]:
        try:
            spec = find_player(name)
            cls = registry().find(variant)
            spec.check(cls())
        except (UnknownPlayer, UnknownVariant, UnsupportedVariant, PlayerUnavailable) as exc:
            raise Refused(str(exc)) from None
        first = PlayerRef(f"bot:{spec.name}", bot_name(spec.name))
        second = PlayerRef(f"bot:{spec.name}:2", bot_name(spec.name, 2)) if cls.team_size > 1 else None
        return spec, first, second

    def _bot_player(self, loaded: _Loaded, player_id: str) -> Player | None:
        bots = loaded.row.setup.get("terms", {}).get("bots", {}) if loaded.row.setup else {}
        name = bots.get(player_id)
        if name is None:
            return None
        key = (loaded.row.id, player_id)
        made = self._bot_cache.get(key)
        if made is None:
            made = self._bot_cache[key] = find_player(name).create(loaded.row.id)
            while len(self._bot_cache) > self._cache_size:
                self._bot_cache.pop(next(iter(self._bot_cache)))
        return made

    async def _bots_act(self, out: Outcome, limit: int = 60) -> Outcome:
        """While a bot must act in this game, let it (thinking in a worker process, or a thread: pool.py), collecting
        the events."""
        events = list(out.events)
        applied = out.applied
        game_id = out.game.id
        view = out.game
        for _attempt in range(limit):
            if view.status != GameStatus.ACTIVE or view.to_act is None:
                break
            loaded = await self._load(game_id, SYSTEM)
            state = loaded.state
            player = self._bot_player(loaded, view.to_act)
            if state is None or player is None:
                break
            side = state.side_of(view.to_act)
            ref = Request(view.to_act, view.name(view.to_act), view.guild_id, "bot")
            thinks = state.phase is not m.Phase.OPENING  # throwing the opening die takes no thinking
            try:
                action, thought = await self.work.run(
                    choose_action, (player, state), (side, self.bot_time_cap), large=thinks, urgent=True
                )
            except PlayerFailed as exc:  # a plugin's method raised: the game goes on with a safe choice
                action, thought = exc.action, player
                events.append(self._bot_failed(loaded, view.to_act, exc))
            except PlayerError as exc:
                log.error("bot %s in game %s: %s", view.to_act, game_id, exc)
                break
            if (game_id, view.to_act) in self._bot_cache:  # a worker's copy: its random state moved on
                self._bot_cache[(game_id, view.to_act)] = thought
            try:
                if isinstance(action, m.Roll | m.OpeningRoll):
                    step = await self.roll_once(game_id, ref)  # our own dice, never the player's
                else:
                    step = await self._change_once(game_id, ref, _deciding(action))
            except Refused as exc:
                log.info("bot %s in game %s could not act: %s", view.to_act, game_id, exc)
                break
            events.extend(step.events)
            applied += step.applied
            view = step.game
        return Outcome(tuple(events), view, applied)

    def _bot_failed(self, loaded: _Loaded, player_id: str, exc: PlayerFailed) -> Event:
        """A bot player's method that raised, logged naming the plugin and the hook (with the traceback), and the
        words the players read: the game chose for the bot this once, and plays on."""
        name = loaded.row.setup.get("terms", {}).get("bots", {}).get(player_id, player_id)
        plugin = registry().player_owners.get(name, "?")
        plog.error(
            "plugin %s: bot player %r in game %s, hook %s raised %s (a safe choice was made for it: %s)\n%s",
            plugin,
            name,
            loaded.row.id,
            exc.hook,
            exc.error,
            type(exc.action).__name__,
            exc.details,
        )
        with i18n.shared():
            text = _(
                "The bot player {player} (plugin {plugin}) failed in {hook}; this once a safe choice was made for "
                "it (the first legal play, no double, a take, a resignation declined) and the game goes on. The "
                "server's log has the details."
            ).format(player=name, plugin=plugin, hook=exc.hook)
        return Event(EventKind.BOT_FAILED, loaded.row.id, text, None)

    async def hint(self, game_id: int, player: Request, n: int = 3) -> Any:
        """Advice for your own decision now (top plays with equities, or the cube), when the match allows hints."""
        loaded = await self._load(game_id, player)
        state = self._check_participant(loaded, player)
        if not loaded.row.setup.get("terms", {}).get("hints", False):
            raise Refused(_("hints are off in this match (rated matches have none)"))
        if _to_act(state) != player.id:
            raise Refused(_("hints are for your own turn"))
        try:
            return await self.work.run(hint_for, (state,), (n, self.bot_time_cap), large=True, urgent=True)
        except (HintError, PlayerUnavailable, UnsupportedVariant) as exc:
            raise Refused(str(exc)) from None

    async def analysis_report(self, game_id: int, who: Who) -> str | None:
        """The post-match analysis as text, when a person in the match asked for it (player setting ``analysis``);
        in the server's language (it is posted in the game's thread)."""
        with i18n.shared():
            return await self._analysis_report(game_id, who)

    async def _analysis_report(self, game_id: int, who: Who) -> str | None:
        loaded = await self._load(game_id, who)
        if loaded.state is None or not loaded.state.over:
            return None
        bots = loaded.row.setup.get("terms", {}).get("bots", {})
        people = [p for side in loaded.state.setup.sides for p in side if p not in bots]
        wanted = [p for p in people if (await self.store.player_settings(p)).get("analysis")]
        if not wanted:
            return None
        try:
            result = await self.analyse(game_id, who)
        except Refused as exc:
            return _("No analysis of game #{game}: {reason}").format(game=game_id, reason=exc)
        lines = [
            _("Analysis of game #{game} ({analyst}: {label}):").format(
                game=game_id, analyst=result.analyst, label=result.label
            )
        ]
        if result.from_game > 1:
            played = len(loaded.state.results)
            lines.append(
                _(
                    "Analysing all {count} games of this session would take minutes: the last {analysed}, from game "
                    "{first}, are analysed."
                ).format(count=played, analysed=played - result.from_game + 1, first=result.from_game)
            )
        for side in result.sides:
            lines.append(
                # Translators: one side's analysis: "Alice: 40 decisions, 3 errors (1 blunder), equity lost …".
                _("{player}: {decisions}, {errors} ({blunders}), equity lost {equity}, error rate {rate}").format(
                    player=side.name,
                    decisions=ngettext("{count} decision", "{count} decisions", side.decisions).format(
                        count=side.decisions
                    ),
                    errors=ngettext("{count} error", "{count} errors", side.errors).format(count=side.errors),
                    blunders=ngettext("{count} blunder", "{count} blunders", side.blunders).format(count=side.blunders),
                    equity=i18n.decimal(side.equity_lost, 3),
                    rate=i18n.decimal(side.error_rate, 1),
                )
                + " ("
                + rating_words(side.error_rate)
                + ")"
            )
            if side.rolls:
                lines.append(
                    _("{player}: luck {rate} per roll ({words})").format(
                        player=side.name, rate=i18n.decimal(side.luck_rate, 1), words=luck_words(side.luck_rate)
                    )
                )
        for mistake in result.biggest[:5]:
            facts = {
                "number": mistake.game,
                "player": result.sides[mistake.side].name,
                "play": mistake.played or _("no move"),
                "better": mistake.better or _("no move"),
                "loss": i18n.decimal(mistake.loss, 3),
            }
            if mistake.dice:
                line = _("- game {number}, {player} with {dice}: played {play}, better {better} (-{loss})").format(
                    dice=f"{mistake.dice[0]}-{mistake.dice[1]}", **facts
                )
            else:
                line = _("- game {number}, {player}: played {play}, better {better} (-{loss})").format(**facts)
            lines.append(line)
        return "\n".join(lines)

    async def analyse(self, game_id: int, who: Who) -> Any:
        """Both sides' errors by equity lost and the biggest mistakes of a finished match."""
        loaded = await self._load(game_id, who)
        if loaded.state is None or not loaded.state.over:
            raise Refused(_("analysis is for finished matches"))
        key = (game_id, loaded.row.version)
        made = self._analyses.get(key)  # with its match card, or asked for before
        if made is not None:
            return made
        setup = loaded.state.setup
        first = analysed_from(loaded.state)
        job = Job("analysis", game_id, loaded.row.version)
        try:
            made = await self.heavy.run(
                job,
                asker(who),
                lambda: self.work.on_record(
                    self.store, game_id, analyse_record, (setup,), 0.5, first, large=True, lane=job.lane
                ),
            )
        except (HintError, PlayerUnavailable, UnsupportedVariant) as exc:
            raise Refused(str(exc)) from None
        keep_analysis(self._analyses, key, made)
        return made
