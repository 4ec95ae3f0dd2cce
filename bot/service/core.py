"""The service core: the cache, loading games (scoped), the unit of work (compare-and-swap) and views."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine import i18n
from engine import match as m
from engine.controls import PlayStatus, allowed_actions
from engine.fairdice import FairDice
from engine.i18n import _
from engine.match import Action, ActionError, MatchSetup, MatchState, Phase
from engine.players import Player, PlayerSpec
from engine.plugins import UnknownVariant, registry
from engine.positionid import encode_position_id
from engine.ratings import RatingSystem
from engine.record import RecordError, action_to_data, advance_counters, setup_from_data, state_from_data
from engine.timecontrol import TimeControl
from engine.turn import TurnError
from engine.variant import Variant
from render.theme import RenderConfig, builtin_config

from ..clock import Clock, advance, deadline
from ..config import LimitSettings
from ..locks import KeyedLocks
from ..storage import Conflict, GameRow, GameStatus, NotFound, Store, TimerSpec
from .cache import GameCache
from .events import _events, _phase_words, _ratings_event, _with_names
from .heavy import HeavyWork
from .helpers import (
    SNAPSHOT_VERSION,
    _Loaded,
    _mover_word,
    _names,
    _race_bearoff,
    _snapshot,
    _summary,
    _time_control,
    _to_act,
    challenge_awaiting,
    dice_after,
    status_word,
)
from .jobs import replay_agrees, replay_counted
from .missing import NotInstalled, missing_view, not_installed
from .pool import WorkPool
from .types import (
    GUILD_DEFAULTS,
    PLAYER_DEFAULTS,
    DiceProvider,
    Event,
    EventKind,
    GameView,
    Outcome,
    PlayerRef,
    Refused,
    Request,
    SystemDice,
    Who,
    scope_of,
    visible,
)

log = logging.getLogger("gammonbot.service")


#: Seconds of taking games from the cache's compact tier after which a load lets the event loop run others.
YIELD_EVERY = 0.002


class ServiceCore:
    """The service core: the cache, loading games, the unit of work and views; the feature mixins add the rest."""

    def __init__(
        self,
        store: Store,
        *,
        dice: DiceProvider | None = None,
        clock: Callable[[], float] = time.time,
        cache_size: int = 20000,
        hot_cache_size: int = 200,
        render: RenderConfig | None = None,
        rating_system: str = "fibs",
        defaults: Mapping[str, Any] | None = None,
        limits: LimitSettings | None = None,
    ) -> None:
        """``render`` is the board renderer's configuration (themes, PNG settings; default: the built-in themes),
        ``rating_system`` the name of a registered rating system, and ``defaults`` the server settings a server
        has before its admins change any (config.toml ``[defaults]``; keys of :data:`GUILD_DEFAULTS`), and ``limits``
        the bounds of config.toml ``[limits]`` (open challenges, the length of a typed play). ``cache_size`` games are
        held in memory, the ``hot_cache_size`` most recently used of them decoded, the rest compact (see cache.py)."""
        self.store = store
        #: None: every match gets commit-reveal dice players can verify (engine.fairdice); tests inject a provider.
        self.dice = dice
        self._fair: OrderedDict[int, FairDice] = OrderedDict()
        self._plain_dice = SystemDice()
        self._bot_cache: dict[tuple[int, str], Player] = {}
        #: Seconds a bot player may think about one decision.
        self.bot_time_cap = 3.0
        self.clock = clock
        self.render_config: RenderConfig = render or builtin_config()
        unknown = sorted(set(defaults or {}) - set(GUILD_DEFAULTS))
        if unknown:
            raise ValueError(f"unknown server defaults: {', '.join(unknown)}")
        #: What every server starts from (config.toml ``[defaults]`` over the built-in defaults).
        self.guild_defaults: dict[str, Any] = {**GUILD_DEFAULTS, **(defaults or {})}
        #: Open challenges per player and per server, and the longest typed play read (config.toml ``[limits]``).
        self.limits: LimitSettings = limits or LimitSettings()
        self._cache = GameCache(cache_size, hot_cache_size)
        self._cache_size = cache_size
        #: Vacations by (player, server), read with the time they were read (see ClocksMixin._vacations).
        self._vacation_memo: dict[tuple[str, str], tuple[float, list[tuple[float, float]]]] = {}
        #: ClocksMixin.prepare_timers's reads for due timers: each game's version (and when), players' stored names.
        self._timer_reads: dict[int, tuple[int, float]] = {}
        self._timer_names: dict[tuple[str, str], str] = {}  # by (player, server)
        #: Analyses of finished matches by (game, version), newest last: a match card's, reused by its report.
        self._analyses: dict[tuple[int, int], Any] = {}
        self._yielded = 0.0  # when a load last let the event loop run others (see _load)
        #: Each server's language setting as last read, with when that reading expires (SettingsMixin.server_language).
        self._language_memo: dict[str, tuple[float, str]] = {}
        # Servers' languages (SettingsMixin): what most members' clients show, as last read; the locale last stored
        # per (server, player); a Community server's Discord language.
        self._members_memo: dict[str, tuple[float, str | None]] = {}
        self._locales_seen: dict[tuple[str, str], str] = {}
        self._discord_locales: dict[str, str | None] = {}
        self._lock: KeyedLocks[int] = KeyedLocks(4 * self._cache_size)  # one per game
        self.work = WorkPool(self.limits.worker_processes)  # worker processes (pool.py), started when first needed
        self.heavy = HeavyWork(workers=self.work.workers)  # heavy requests: shared, one at a time, bounded
        self.in_flight = 0  # players' requests under way: past [limits] max_waiting_requests one is refused
        #: The rating system (a plugin may register others: ``register_rating_systems``).
        self.ratings: RatingSystem = registry().find_rating_system(rating_system)

    def _check_play_text(self, text: str) -> None:
        """Refuse a typed play longer than ``[limits] max_play_length`` before reading it."""
        limit = self.limits.max_play_length
        if len(text) > limit:
            raise Refused(
                _(
                    "that play is {length} characters long; a play is at most {limit} characters "
                    "(like `13/7 8/7`, or `6/off(2)`)"
                ).format(length=len(text), limit=limit)
            )

    # --- views ----------------------------------------------------------------------------------
    async def view(self, game_id: int, who: Who) -> GameView:
        """The game as it stands (its deadline pushed back by the running side's vacations, read once a while)."""
        loaded = await self._load(game_id, who)
        if loaded.view is None and loaded.state is not None and loaded.row.clock and not loaded.state.over:
            await self._vacations(loaded.state, loaded.row.guild_id)  # remembered for the view (see _make_view)
        return self._view(loaded)

    async def state(self, game_id: int, who: Who) -> MatchState:
        """The engine state of a started game."""
        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(_("game #{game} has not started: it is a challenge").format(game=game_id))
        return loaded.state

    # --- internals ------------------------------------------------------------------------------
    def _remember(self, loaded: _Loaded) -> None:
        self._cache.put(loaded)

    def _forget(self, game_id: int) -> None:
        self._cache.pop(game_id)

    async def _load(self, game_id: int, who: Who) -> _Loaded:
        """The game ``game_id`` as ``who`` may see it: a game of another server (or, in a direct message, one the
        asker does not play in) is refused exactly like a game that does not exist. The one place games are found."""
        if self._cache.is_compact(game_id) and time.perf_counter() - self._yielded > YIELD_EVERY:
            # Unpickling costs 30 to 300 µs: a scan of many games (a player's list) lets others go between.
            await asyncio.sleep(0)
            self._yielded = time.perf_counter()
        cached = self._cache.get(game_id)
        if cached is not None:
            if not visible(cached.row, who):
                raise Refused(_("there is no game #{game}").format(game=game_id))
            return cached
        try:
            row = await self.store.load_game(game_id, scope=scope_of(who))
        except NotFound:
            raise Refused(_("there is no game #{game}").format(game=game_id)) from None
        if not visible(row, who):
            raise Refused(_("there is no game #{game}").format(game=game_id))
        loaded = await self._decoded(row)
        self._remember(loaded)
        return loaded

    async def _decoded(self, row: GameRow) -> _Loaded:
        """A game as read from the database, decoded for the cache."""
        game_id = row.id
        if row.status == GameStatus.CHALLENGE or "match" not in row.setup:
            loaded = _Loaded(row, None)
        else:
            try:
                setup = setup_from_data(row.setup["match"])
            except UnknownVariant:  # its plugin is disabled or uninstalled: the game is kept, and refused in words
                raise NotInstalled(missing_view(row)) from None
            snap = row.snapshot or {}
            try:
                if snap.get("v") != SNAPSHOT_VERSION:
                    raise RecordError("a snapshot of the first format (no state)")
                # The state as stored with the last change: no replay, whatever the game's history. The cached
                # row drops the stored JSON (the state is its decoded form): less to hold and to garbage-collect.
                state = state_from_data(setup, snap["state"])
                loaded = _Loaded(replace(row, snapshot=None), state, dict(snap["counters"]))
            except (RecordError, KeyError, TypeError) as exc:
                if snap.get("v") == SNAPSHOT_VERSION:
                    log.error("game %s: its stored state cannot be read (%s); replaying its log", game_id, exc)
                loaded = await self._replayed(row, setup)
        return loaded

    async def close(self) -> None:
        """Stop the worker processes (pool.py; later heavy work runs in threads). The database is its owner's."""
        await self.work.close()

    async def _replayed(self, row: GameRow, setup: MatchSetup) -> _Loaded:
        """A game stored before states were (or whose state is unreadable): its log replayed off the event loop (in a
        worker process when long: pool.py), and checked against the stored summary."""
        try:
            state, counters = await self.work.on_record(self.store, row.id, replay_counted, (setup,))
        except (ActionError, RecordError) as exc:
            log.error("game %s: its stored log does not replay: %s", row.id, exc)
            raise Refused(
                _("game #{game} failed its integrity check; an admin has been told").format(game=row.id)
            ) from None
        if row.snapshot is not None and row.snapshot.get("v") != SNAPSHOT_VERSION and _summary(state) != row.snapshot:
            log.error("game %s: replaying its log does not reproduce its snapshot", row.id)
            raise Refused(_("game #{game} failed its integrity check; an admin has been told").format(game=row.id))
        return _Loaded(row, state, counters)

    async def _check_record(self, game_id: int, final: MatchState) -> bool:
        """Replay a finished match's whole record off the event loop (pool.py) and compare it with the state the
        service kept (once per match): a difference is logged for an admin. True when they agree."""
        ok = await self.work.on_record(self.store, game_id, replay_agrees, (final,))
        if not ok:
            log.error("game %s: its record does not replay to the state stored with it", game_id)
        return ok

    def _draft(self, loaded: _Loaded, state: MatchState) -> Any:
        draft = state.draft()
        for s, t in loaded.row.draft or []:
            draft = draft.add(s, t)
        return draft

    @staticmethod
    def _require_mover(state: MatchState, player: Request, what: str, names: Mapping[str, str] | None = None) -> None:
        """Refuse unless ``player`` may move checkers now: the engine says (engine.controls); this names why not."""
        allowed = allowed_actions(state)
        if allowed.play is PlayStatus.NONE:
            if state.phase is Phase.ROLL and state.turn is not None and player.id not in state.setup.sides[state.turn]:
                to_roll = state.acting_member(state.turn)
                raise Refused(
                    _("it is not your turn: {player} is to roll").format(player=(names or {}).get(to_roll, to_roll))
                )
            if state.phase in (Phase.ROLL, Phase.OPENING):
                raise Refused(_("you cannot {action} yet: roll first").format(action=_mover_word(what)))
            raise Refused(_("there is no roll to play now ({due})").format(due=_phase_words(state)))
        if player.id not in allowed.actors:
            assert state.roller is not None
            mover = state.acting_member(state.roller)
            if player.id in state.setup.sides[state.roller]:
                raise Refused(
                    _(
                        "only the acting member of your team, {player}, moves this game; consult in your team thread"
                    ).format(player=(names or {}).get(mover, mover))
                )
            raise Refused(_("it is not your turn"))

    async def _simple(self, game_id: int, player: Request, cls: Callable[[str], Action]) -> Outcome:
        return await self._change(game_id, player, lambda _l, _s: [cls(player.id)])

    def _check_participant(self, loaded: _Loaded, player: Request) -> MatchState:
        row = loaded.row
        if row.status == GameStatus.CHALLENGE:
            raise Refused(
                _("game #{game} has not started: it is waiting for the challenge to be accepted").format(game=row.id)
            )
        if loaded.state is None or row.status in (GameStatus.DECLINED, GameStatus.EXPIRED):
            raise Refused(
                _("game #{game} is not being played ({status})").format(game=row.id, status=status_word(row.status))
            )
        state = loaded.state
        if state.over:
            raise Refused(_("game #{game} is over").format(game=row.id))
        if not any(player.id in members for members in state.setup.sides):
            raise Refused(_("you are not playing in game #{game}").format(game=row.id))
        return state

    async def _change(
        self,
        game_id: int,
        player: Request,
        decide: Callable[[_Loaded, MatchState], list[Action]],
        *,
        clear_draft: bool = False,
        expected_actions: int | None = None,
    ) -> Outcome:
        """One request, then whatever bot players must do next (their actions join the outcome)."""
        out = await self._change_once(
            game_id, player, decide, clear_draft=clear_draft, expected_actions=expected_actions
        )
        return await self._bots_act(out)

    async def _change_once(
        self,
        game_id: int,
        player: Request,
        decide: Callable[[_Loaded, MatchState], list[Action]],
        *,
        clear_draft: bool = False,
        expected_actions: int | None = None,
    ) -> Outcome:
        """Judge, apply and store one request (with compare-and-swap and a retry after a conflict)."""
        async with self._lock(game_id):
            for _attempt in range(5):
                loaded = await self._load(game_id, player)
                if expected_actions is not None and loaded.timed != expected_actions:
                    raise Refused(_("game #{game} has moved on meanwhile").format(game=game_id))
                state = self._check_participant(loaded, player)
                now = self.clock()
                tc = _time_control(loaded.row.setup.get("time_control"))
                clock = Clock.from_data(loaded.row.clock) if loaded.row.clock else None
                vacations = await self._vacations(state, loaded.row.guild_id) if clock is not None else {}
                flag_fell = False
                if tc is not None and clock is not None and clock.running is not None:
                    due = deadline(tc, clock, vacations.get(clock.running, ()))
                    flag_fell = due is not None and now > due
                try:
                    if flag_fell:
                        # The flag fell before this request arrived: the timeout comes first.
                        assert clock is not None and clock.running is not None
                        new_actions: list[Action] = [m.Timeout(state.acting_member(clock.running))]
                    else:
                        new_actions = decide(loaded, state)
                    states = [state]
                    for action in new_actions:
                        states.append(m.apply(states[-1], action))
                    auto = await self._automatic(game_id, loaded, states[-1], loaded.n_actions + len(new_actions))
                    for action in auto:
                        states.append(m.apply(states[-1], action))
                except (ActionError, TurnError) as exc:
                    raise Refused(_with_names(str(exc), _names(loaded))) from None
                all_actions = [*new_actions, *auto]
                final = states[-1]
                status = GameStatus.FINISHED if final.over else GameStatus.ACTIVE
                # A team naming its acting member moves no deadline and leaves the mover's draft alone (unless it
                # is the mover's own team that changed hands).
                only_choice = bool(all_actions) and all(isinstance(a, m.SetActing) for a in all_actions)
                mover_kept = (
                    only_choice
                    and state.phase is Phase.MOVE
                    and final.roller is not None
                    and state.roller is not None
                    and final.acting_member(final.roller) == state.acting_member(state.roller)
                )
                draft_value: Any = None if clear_draft or (final is not state and not mover_kept) else loaded.row.draft
                if tc is not None and clock is not None and not only_choice:
                    for after in states[1:]:
                        clock = advance(tc, clock, after, now, vacations)
                guild = await self.server_settings(loaded.row.guild_id)
                finished = final.over and not state.over
                changes: dict[str, Any] = {}
                # A player who acts under a new name (a changed nickname) is shown by it from now on.
                setup = loaded.setup_as_named_by(player)
                revealed: dict[str, Any] = {}
                if finished and setup.get("dice"):
                    seed = await self.store.secret(game_id)
                    revealed = {"setup": {**setup, "dice": {**setup["dice"], "seed": seed}}}
                counters = advance_counters(loaded.counters, all_actions)
                summary = _snapshot(final, counters)
                dice = dice_after(loaded, all_actions)  # each player's rolls, kept as the game is played
                more: dict[str, Any] = {} if dice is None or dice == loaded.row.dice else {"dice": dice}
                turn_player = _to_act(final)
                clock_data = None if clock is None else clock.to_data()
                try:
                    version = await self.store.update_game(
                        game_id,
                        loaded.row.version,
                        also=self._result_writer(loaded.row, final, now, changes) if finished else None,
                        new_actions=[action_to_data(a) for a in all_actions],
                        log_length=loaded.n_actions,  # the log as read at this version
                        snapshot=summary,
                        status=status,
                        turn_player=turn_player,
                        draft=draft_value,
                        clock=clock_data,
                        **more,
                        # An untimed game in progress keeps its one archive timer (set at the start), which
                        # judges the game's last change when it comes due: a move writes no timer rows.
                        timers=None
                        if only_choice or (tc is None and not final.over)
                        else self._timers_for(final, tc, clock, now, vacations, guild, counters["timed"]),
                        **(revealed or ({"setup": setup} if setup is not loaded.row.setup else {})),
                    )
                except Conflict:
                    self._forget(game_id)
                    continue
                row = replace(
                    loaded.row,
                    setup=revealed.get("setup", setup),
                    version=version,
                    status=status,
                    snapshot=None,  # the state is held decoded (see _load)
                    turn_player=turn_player,
                    draft=draft_value,
                    clock=clock_data,
                    updated_at=now,
                    dice=dice,
                )
                new_loaded = _Loaded(row, final, counters)
                if finished:
                    # The record is checked against the state once, when the match ends, in a worker thread.
                    await self._check_record(game_id, final)
                self._remember(new_loaded)
                view = self._view(new_loaded)
                events = []
                for before, action, after in zip(states, all_actions, states[1:]):
                    events.extend(_events(game_id, view, before, action, after, auto=action in auto))
                if flag_fell:
                    with i18n.shared():
                        fell = _("The flag fell before that request arrived.")
                    events.insert(0, Event(EventKind.FLAG, game_id, fell, player.id))
                if changes:
                    events.append(_ratings_event(game_id, view, changes))
                if revealed:
                    seed_hex = revealed["setup"]["dice"]["seed"]
                    with i18n.shared():
                        said = _("Dice seed revealed: {seed}. Check the rolls with /bg-dice verify.").format(
                            seed=seed_hex
                        )
                    events.append(Event(EventKind.DICE_REVEALED, game_id, said, None))
                    self._fair.pop(game_id, None)
                return Outcome(tuple(events), view, len(all_actions))
            raise Refused(_("the game is busy (several changes at once); try again"))

    async def _change_draft(
        self, game_id: int, player: Request, decide: Callable[[_Loaded, MatchState], list[list[int]]]
    ) -> Outcome:
        """Store a new draft for this turn (a compare-and-swap like any change; nothing enters the log)."""
        async with self._lock(game_id):
            for _attempt in range(5):
                loaded = await self._load(game_id, player)
                state = self._check_participant(loaded, player)
                draft_moves = decide(loaded, state)
                try:
                    version = await self.store.update_game(game_id, loaded.row.version, draft=draft_moves or None)
                except Conflict:
                    self._forget(game_id)
                    continue
                row = replace(loaded.row, version=version, draft=draft_moves or None)
                new_loaded = _Loaded(row, state, loaded.counters)
                self._remember(new_loaded)
                view = self._view(new_loaded)
                with i18n.shared():
                    if view.draft_remaining:
                        left = _("dice left: {dice}").format(dice=", ".join(map(str, view.draft_remaining)))
                    else:
                        left = _("all dice used: confirm or undo")
                    # Translators: a play being entered checker by checker: "Alice: 13/7 (dice left: 5)."
                    said = _("{player}: {so_far} ({left}).").format(
                        player=view.name(player.id), so_far=view.draft or _("nothing moved yet"), left=left
                    )
                return Outcome((Event(EventKind.DRAFT, game_id, said, player.id),), view)
            raise Refused(_("the game is busy (several changes at once); try again"))

    async def _automatic(self, game_id: int, loaded: _Loaded, state: MatchState, n_actions: int) -> list[Action]:
        """Forced plays (player setting ``autoplay``) and greedy race bear-offs (``auto_bearoff``)."""
        out: list[Action] = []
        for _attempt in range(8):
            if state.phase is not Phase.MOVE or state.roller is None:
                break
            mover = state.acting_member(state.roller)
            prefs = {**PLAYER_DEFAULTS, **await self.store.player_settings(mover)}
            plays = state.legal_plays()
            choice = None
            if prefs["autoplay"] and len(plays) == 1:
                choice = plays[0]
            elif prefs["auto_bearoff"] and _race_bearoff(state):
                choice = max(plays, key=lambda p: (p.position.off[0], -state.variant.pips(p.position)[0]))
            if choice is None:
                break
            action = m.Move(mover, choice.moves)
            out.append(action)
            state = m.apply(state, action)
        return out

    def _view(self, loaded: _Loaded) -> GameView:
        """The game's view, made once per language (its words: the rule set's title, a missing rule set)."""
        language = i18n.language()
        if loaded.view is None or loaded.view_language != language:
            loaded.view = self._make_view(loaded)
            loaded.view_language = language
        return loaded.view

    def _make_view(self, loaded: _Loaded) -> GameView:
        row = loaded.row
        state = loaded.state
        if state is None:
            terms = row.setup
            cls = registry().variants.get(terms.get("variant", row.variant))
            opts = terms.get("options", {})
            sides: tuple[tuple[str, ...], tuple[str, ...]] = (
                tuple(x for x in (terms["challenger"], terms.get("teammate")) if x),
                tuple(x for x in dict.fromkeys((*terms["invited"], terms.get("opponent_teammate"))) if x),
            )
            return GameView(
                id=row.id,
                guild_id=row.guild_id,
                status=row.status,
                variant=row.variant,
                display_name=cls.display_name if cls else row.variant,
                unavailable=None if cls else not_installed(row.variant),
                sides=sides,
                names=dict(_names(loaded)),
                length=int(opts.get("length", 0)),
                score=(0, 0),
                game=0,
                phase=None,
                to_act=row.turn_player,
                acting=None,
                dice=None,
                cube=1,
                cube_owner=None,
                uses_cube=bool(cls is not None and cls.uses_cube and opts.get("cube", True)),
                plays=(),
                draft="",
                draft_remaining=(),
                winner=None,
                position_id=None,
                version=row.version,
                thread_id=row.thread_id,
                channel_id=row.channel_id,
                challenger=terms["challenger"],
                invited=tuple(terms["invited"]),
                awaiting=challenge_awaiting(terms),
            )
        plays: tuple[str, ...] = ()
        draft_text = ""
        remaining: tuple[int, ...] = ()
        if state.phase is Phase.MOVE:
            plays = tuple(sorted(p.notation for p in state.legal_plays()))
            if row.draft:
                d = self._draft(loaded, state)
                draft_text = d.notation
                remaining = () if d.complete else tuple(d.remaining)
            else:
                remaining = tuple(state.draft().remaining)
        pid = None
        if state.position is not None and state.variant.gnubg_compatible:
            pid = encode_position_id(state.variant, state.position)
        acting = (state.acting_member(0), state.acting_member(1))
        due = None
        if row.clock and row.setup.get("time_control"):
            tc = _time_control(row.setup["time_control"])
            clock = Clock.from_data(row.clock)
            # Pushed back by the running side's vacations as last read (every timed change reads them).
            away = () if clock.running is None else self._vacation_memo.get((acting[clock.running], row.guild_id))
            due = deadline(tc, clock, away[1] if away else ()) if tc is not None else None
        return GameView(
            id=row.id,
            guild_id=row.guild_id,
            status=row.status,
            variant=state.setup.variant.name,
            display_name=state.title,  # in a Tavli match, which game of its cycle: "Tavli, game 2: Plakoto"
            sides=state.setup.sides,
            names=dict(_names(loaded)),
            length=state.options.length,
            score=state.score,
            game=state.game,
            phase=state.phase,
            to_act=_to_act(state),
            acting=acting,
            dice=state.dice,
            cube=state.cube.value,
            cube_owner=state.cube.owner,
            uses_cube=state.setup.cube_in_use,
            plays=plays,
            draft=draft_text,
            draft_remaining=remaining,
            winner=state.winner,
            position_id=pid,
            version=row.version,
            thread_id=row.thread_id,
            channel_id=row.channel_id,
            challenger=row.setup.get("terms", {}).get("challenger"),
            deadline=due,
        )

    if TYPE_CHECKING:
        # Provided by the feature mixins (GameService inherits them all).
        async def settings_of(self, player_id: str) -> dict[str, Any]: ...

        async def server_settings(self, guild_id: str) -> dict[str, Any]: ...

        async def _vacations(self, state: MatchState, guild_id: str) -> dict[int, list[tuple[float, float]]]: ...

        @staticmethod
        def _variant_class(name: str) -> type[Variant]: ...

        async def roll(self, game_id: int, player: Request) -> Outcome: ...

        async def roll_once(self, game_id: int, player: Request, *, expected_actions: int | None = None) -> Outcome: ...

        async def double(self, game_id: int, player: Request) -> Outcome: ...

        async def take(self, game_id: int, player: Request) -> Outcome: ...

        async def pass_(self, game_id: int, player: Request) -> Outcome: ...

        async def beaver(self, game_id: int, player: Request) -> Outcome: ...

        async def raccoon(self, game_id: int, player: Request) -> Outcome: ...

        async def answer_resignation(self, game_id: int, player: Request, accept: bool) -> Outcome: ...

        async def _acting_for(self, game_id: int, player_id: str, name: str | None = None) -> Request: ...

        async def _vacations(self, state: MatchState, guild_id: str) -> dict[int, list[tuple[float, float]]]: ...

        def _timers_for(
            self,
            state: MatchState,
            tc: TimeControl | None,
            clock: Clock | None,
            now: float,
            vacations: dict[int, list[tuple[float, float]]],
            guild: dict[str, Any],
            n_actions: int,
        ) -> list[TimerSpec]: ...

        def _bot_seats(self, name: str, variant: str) -> tuple[PlayerSpec, PlayerRef, PlayerRef | None]: ...

        async def _bots_act(self, out: Outcome, limit: int = 60) -> Outcome: ...

        async def _hold_for_teammate(
            self, game_id: int, player: Request, make: Callable[[MatchState], Action]
        ) -> Outcome | None: ...

        async def _play_held(self, game_id: int, row: dict[str, Any], note: str) -> Outcome: ...

        def _result_writer(
            self, row: GameRow, final: MatchState, now: float, changes: dict[str, Any]
        ) -> Callable[[Any], Awaitable[None]]: ...
