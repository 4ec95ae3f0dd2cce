"""The game service: the application API under every transport (Discord, console, tests).

It owns permissions, turn order, persistence and automatic plays, and answers every call with an
:class:`Outcome`: the events that happened (each with a sentence a transport can post as is) and a
:class:`GameView` of the game afterwards. It knows no discord types.

Every change to a game goes through :meth:`GameService._change`: load the game (replaying its action log,
checked against the stored snapshot), decide the action against that state, apply it, and write the
result as one compare-and-swap on the game's version. If another click or process changed the game first,
the write fails, the game is reloaded and the request is judged again against the new state, so a double
click is refused with the reason ("you have already rolled") instead of applying twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
import random
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from engine import match as m
from engine.analysis import HintError
from engine.analysis import analyse as analyse_match
from engine.analysis import hint as analysis_hint
from engine.fairdice import (
    FairDice,
    client_value,
    commitment,
    dice_stats,
    new_server_seed,
    player_rolls,
    verify_record,
)
from engine.match import Action, ActionError, MatchOptionError, MatchOptions, MatchState, Phase
from engine.matfile import export_mat
from engine.players import Player, PlayerError, PlayerSpec, PlayerUnavailable, UnsupportedVariant, bot_action
from engine.plugins import UnknownPlayer, UnknownTimeControl, UnknownVariant, find_player, players_for, registry
from engine.positionid import encode_position_id
from engine.ratings import Rating, RatingSystem
from engine.record import RecordError, action_from_data, action_to_data, setup_from_data, setup_to_data
from engine.timecontrol import TimeControl, TimeControlError
from engine.turn import TurnError
from engine.validate import IllegalPlay
from engine.variant import Variant, VariantOptionError

from .clock import REMINDER_FRACTIONS, Clock, advance, deadline, reminder_times, start_clock
from .locks import KeyedLocks
from .storage import Conflict, GameRow, NotFound, Store, TimerRow, TimerSpec

__all__ = [
    "Refused",
    "PlayerRef",
    "Event",
    "GameView",
    "Outcome",
    "GameService",
    "DiceProvider",
    "SystemDice",
    "SeededDice",
    "PLAYER_DEFAULTS",
]

log = logging.getLogger("gammonbot.service")

#: Player settings and their defaults.
PLAYER_DEFAULTS: dict[str, Any] = {
    "autoplay": True,  # play a forced play (the only legal one) automatically
    "auto_bearoff": False,  # in a race with everything home, bear off greedily
    "home": "right",  # which side the home board is drawn on
    "theme": "default",
    "dm_reminders": False,  # also send turn pings and reminders as direct messages
    "analysis": False,  # analyse my finished matches (errors by equity lost, biggest mistakes)
    "quiet_hours": "",  # "22-7": no direct messages from 22:00 to 07:00 UTC
}
#: Server settings and their defaults.
GUILD_DEFAULTS: dict[str, Any] = {
    "default_variant": "backgammon",
    "allowed_variants": None,  # None = every registered rule set
    "default_length": 5,
    "default_options": {},
    "default_time_control": None,  # a preset name; None: no clock
    "challenge_expiry_days": 7,  # open challenges expire after this many days
    "vacation_days_per_year": 21,  # how many vacation days a player may take in any 365 days
    "archive_after_days": 60,  # matches without a clock are archived after this long without a move
    "team_thread_fallback": "dm",  # Doubles without private threads: "dm" both members, or "refuse"
}
RESIGN_NAMES = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}


class Refused(Exception):
    """A request that is not allowed; ``str()`` is the message for the player (names the rule or the fix)."""


@dataclass(frozen=True)
class PlayerRef:
    """A player as a transport knows them: a stable id and a display name."""

    id: str
    name: str


@dataclass(frozen=True)
class Event:
    """Something that happened. ``kind`` is a short tag, ``text`` a sentence for the players."""

    kind: str
    game_id: int
    text: str
    by: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GameView:
    """A game as transports show it, seen by nobody in particular (no hidden information here)."""

    id: int
    guild_id: str
    status: str  # challenge, active, finished, declined
    variant: str
    display_name: str
    sides: tuple[tuple[str, ...], tuple[str, ...]]
    names: dict[str, str]
    length: int
    score: tuple[int, int]
    game: int
    phase: str | None
    to_act: str | None  # player id who must act now (None: either acting member may roll the opening)
    acting: tuple[str, str] | None
    dice: tuple[int, int] | None
    cube: int
    cube_owner: int | None
    plays: tuple[str, ...]  # legal plays in notation (phase move)
    draft: str  # submoves made so far this turn
    draft_remaining: tuple[int, ...]
    winner: int | None
    position_id: str | None
    version: int
    thread_id: str | None = None
    channel_id: str | None = None
    challenger: str | None = None
    invited: tuple[str, ...] = ()
    #: When the running clock's flag falls (None: no clock runs); vacations may push it back.
    deadline: float | None = None

    def side_of(self, player_id: str) -> int | None:
        for k, members in enumerate(self.sides):
            if player_id in members:
                return k
        return None

    def name(self, player_id: str | None) -> str:
        if player_id is None:
            return "nobody"
        return self.names.get(player_id, player_id)


@dataclass(frozen=True)
class Outcome:
    """What a request did: the events in order, and the game afterwards."""

    events: tuple[Event, ...]
    game: GameView
    #: How many actions this request added to the match record (automatic plays included).
    applied: int = 0


class DiceProvider(Protocol):
    """Where a match's dice come from: ``roll(game_id, n)`` is the n-th roll (from 0) of that game's record."""

    def roll(self, game_id: int, n: int) -> tuple[int, int]: ...


class SystemDice:
    """Dice from the operating system's random source (the default for real play)."""

    def __init__(self) -> None:
        self._rng = secrets.SystemRandom()

    def roll(self, game_id: int, n: int) -> tuple[int, int]:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


class SeededDice:
    """Reproducible dice for tests and demos: the same seed, game and roll number give the same dice."""

    def __init__(self, seed: int | str) -> None:
        self.seed = str(seed)

    def roll(self, game_id: int, n: int) -> tuple[int, int]:
        digest = hashlib.sha256(f"{self.seed}:{game_id}:{n}".encode()).digest()
        rng = random.Random(digest)
        return rng.randint(1, 6), rng.randint(1, 6)


@dataclass
class _Loaded:
    row: GameRow
    state: MatchState | None  # None while the game is a challenge
    actions: list[Action]
    #: The game's view, made once (a change makes a new _Loaded): listing the legal plays is not free.
    view: GameView | None = None


def _names(loaded: _Loaded) -> Mapping[str, str]:
    """The players' display names by id, as the game stores them (the same as its view's, without making one)."""
    names: Mapping[str, str] = loaded.row.setup.get("names", {})
    return names


def _with_names(text: str, names: Mapping[str, str]) -> str:
    """An engine message with the players' ids (Discord snowflakes, quoted or not) replaced by their names."""
    for pid in sorted(names, key=len, reverse=True):
        if names[pid] and names[pid] != pid:
            text = re.sub(rf"'{re.escape(pid)}'|(?<!\w){re.escape(pid)}(?!\w)", lambda _m, n=names[pid]: n, text)
    return text


def _timed_length(actions: list[Action]) -> int:
    """The record's length as timers count it: a team naming its acting member moves no deadline."""
    return sum(1 for a in actions if not isinstance(a, m.SetActing))


def _summary(state: MatchState) -> dict[str, Any]:
    """The stored snapshot: what replaying the log must reproduce exactly."""
    return {
        "phase": str(state.phase),
        "game": state.game,
        "score": list(state.score),
        "roller": state.roller,
        "dice": None if state.dice is None else list(state.dice),
        "cube": [state.cube.value, state.cube.owner],
        "position": None if state.position is None else str(state.position),
        "winner": state.winner,
        "games_done": len(state.results),
    }


class GameService:
    """Challenges, turns, the cube, resignations, views, exports and settings for one database."""

    def __init__(
        self,
        store: Store,
        *,
        dice: DiceProvider | None = None,
        clock: Callable[[], float] = time.time,
        cache_size: int = 20000,
        theme: Any = None,
        rating_system: str = "fibs",
    ) -> None:
        self.store = store
        #: None: every match gets commit-reveal dice players can verify (engine.fairdice); tests inject a provider.
        self.dice = dice
        self._fair: OrderedDict[int, FairDice] = OrderedDict()
        self._plain_dice = SystemDice()
        self._bot_cache: dict[tuple[int, str], Player] = {}
        #: Seconds a bot player may think about one decision.
        self.bot_time_cap = 3.0
        self.clock = clock
        self.theme = theme
        self._cache: OrderedDict[int, _Loaded] = OrderedDict()
        self._cache_size = cache_size
        self._lock: KeyedLocks[int] = KeyedLocks(4 * self._cache_size)  # one per game
        #: The rating system (a plugin may register others: ``register_rating_systems``).
        self.ratings: RatingSystem = registry().find_rating_system(rating_system)

    # --- rule sets ------------------------------------------------------------------------------
    @staticmethod
    def variants() -> list[type[Variant]]:
        """Every registered rule set, by name."""
        reg = registry()
        return [reg.variants[n] for n in reg.names()]

    @staticmethod
    def rules(name: str) -> str:
        """The rules summary of a rule set (by name or alias)."""
        try:
            cls = registry().find(name)
        except UnknownVariant as exc:
            raise Refused(str(exc)) from None
        return f"{cls.display_name}: {cls.summary}"

    # --- settings -------------------------------------------------------------------------------
    async def player_settings(self, player: PlayerRef, **changes: Any) -> dict[str, Any]:
        """A player's settings after applying ``changes`` (unknown keys and bad values are refused)."""
        current = {**PLAYER_DEFAULTS, **await self.store.player_settings(player.id)}
        for key, value in changes.items():
            if key not in PLAYER_DEFAULTS:
                raise Refused(f"there is no player setting {key!r}; settings: {', '.join(PLAYER_DEFAULTS)}")
            current[key] = _coerce(key, value, PLAYER_DEFAULTS[key])
            if key == "home" and current[key] not in ("right", "left"):
                raise Refused("home must be right or left")
        if changes:
            await self.store.save_player(player.id, player.name, current)
        return current

    async def guild_settings(self, guild_id: str, *, admin: bool = False, **changes: Any) -> dict[str, Any]:
        """A server's settings after applying ``changes``; only admins may change them."""
        current = {**GUILD_DEFAULTS, **await self.store.guild_settings(guild_id)}
        if not changes:
            return current
        if not admin:
            raise Refused("only a server admin (Manage Server permission) can change the server's settings")
        for key, value in changes.items():
            if key not in GUILD_DEFAULTS:
                raise Refused(f"there is no server setting {key!r}; settings: {', '.join(GUILD_DEFAULTS)}")
            if key == "default_variant":
                value = self._variant_class(str(value)).name
            elif key == "allowed_variants":
                if value is not None:
                    names = value.split(",") if isinstance(value, str) else list(value)
                    value = sorted({self._variant_class(n.strip()).name for n in names if n.strip()}) or None
            elif key == "default_length":
                value = _coerce(key, value, 0)
                if value < 0:
                    raise Refused("the default match length cannot be negative (0 means money play)")
            elif key == "team_thread_fallback":
                value = str(value).strip().lower()
                if value not in ("dm", "refuse"):
                    raise Refused("the team thread fallback is dm (direct messages) or refuse")
            elif key == "default_options":
                value = dict(value)
                _match_options(value, length=current["default_length"])
            current[key] = value
        await self.store.save_guild_settings(guild_id, current)
        return current

    @staticmethod
    def _variant_class(name: str) -> type[Variant]:
        try:
            return registry().find(name)
        except UnknownVariant as exc:
            raise Refused(str(exc)) from None

    # --- challenges -----------------------------------------------------------------------------
    async def challenge(
        self,
        guild_id: str,
        challenger: PlayerRef,
        opponent: PlayerRef | None,
        *,
        variant: str | None = None,
        length: int | None = None,
        options: dict[str, Any] | None = None,
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
        """
        if consult not in ("free", "agree"):
            raise Refused('team consultation is "free" (the acting member decides) or "agree" (both must agree)')
        settings = await self.guild_settings(guild_id)
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
            raise Refused(f"{cls.display_name} is not allowed on this server; allowed: {', '.join(allowed)}")
        length = settings["default_length"] if length is None else length
        opts = {**settings["default_options"], **(options or {})}
        match_options = _match_options(opts, length=length)
        if opponent is not None and opponent.id == challenger.id:
            raise Refused("you cannot challenge yourself")
        team = cls.team_size > 1
        if match_options.team_choice and not team:
            if (options or {}).get("team_choice"):
                raise Refused(
                    f"{cls.display_name} is played one against one: choosing the acting member is for team rule sets"
                )
            # The server's default options ask for team choice; it means nothing without teams.
            opts = {k: v for k, v in opts.items() if k != "team_choice"}
            match_options = _match_options(opts, length=length)
        if team:
            if teammate is None:
                raise Refused(f"{cls.display_name} is played by teams of two: name your teammate")
            if opponent is None or opponent_teammate is None:
                raise Refused(f"{cls.display_name} needs both opponents named (an open team challenge is not possible)")
            people = [challenger, teammate, opponent, opponent_teammate]
            if len({p.id for p in people}) != 4:
                raise Refused("the four players of a Doubles match must be four different people")
        elif teammate is not None or opponent_teammate is not None:
            raise Refused(f"{cls.display_name} is played one against one: teammates are for team rule sets")
        invited = [p for p in (opponent, opponent_teammate) if p is not None]
        names = {p.id: p.name for p in [challenger, *invited, *([teammate] if teammate else [])]}
        for p in [challenger, *invited, *([teammate] if teammate else [])]:
            await self.store.save_player(p.id, p.name)
        terms = {
            "challenger": challenger.id,
            "teammate": teammate.id if teammate else None,
            "invited": [p.id for p in invited],
            "opponent_teammate": opponent_teammate.id if opponent_teammate else None,
            "variant": cls.name,
            "options": _options_data(match_options),
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
        row = await self.store.create_game(
            guild_id=guild_id,
            status="challenge",
            variant=cls.name,
            setup=terms,
            players=seats,
            turn_player=invited[0].id if invited else None,
            channel_id=channel_id,
        )
        seed = None
        if self.dice is None:
            # Commit to the dice now, before anyone contributes a value or accepts.
            seed = new_server_seed()
            await self.store.put_secret(row.id, seed.hex())
            text_commit = f" Dice commitment: {commitment(seed)} (the seed is revealed at the end)."
        else:
            text_commit = ""
        expiry = self.clock() + float(settings["challenge_expiry_days"]) * DAY
        await self.store.add_timers(row.id, [TimerSpec("challenge-expiry", expiry)], row.version)
        loaded = _Loaded(row, None, [])
        view = self._view(loaded)
        what = _describe_terms(cls, match_options) + (f", clock: {tc.describe()}" if tc else "")
        who = " and ".join(p.name for p in invited) if invited else "anyone"
        text = f"{challenger.name} challenges {who} to {what} (game #{row.id}).{text_commit}"
        if bots:
            # A bot accepts at once; the challenger's own click is the players' share of the dice.
            accepted = await self.accept(row.id, invited[0], entropy=entropy)
            return Outcome((Event("challenge", row.id, text, challenger.id), *accepted.events), accepted.game)
        return Outcome((Event("challenge", row.id, text, challenger.id),), view)

    async def accept(self, game_id: int, player: PlayerRef, *, entropy: str | None = None) -> Outcome:
        """Accept a challenge: the match starts.

        ``entropy`` is the players' contribution to the dice (for Discord, the accepting interaction's id): the
        bot has already committed to its secret seed, so neither side can choose the rolls.
        """
        async with self._lock(game_id):
            for _ in range(3):
                loaded = await self._load(game_id)
                row = loaded.row
                if row.status != "challenge":
                    raise Refused(f"game #{game_id} is not an open challenge (it is {row.status})")
                terms = row.setup
                if player.id in (terms["challenger"], terms.get("teammate")):
                    raise Refused("you cannot accept your own challenge")
                invited = list(terms["invited"])
                if invited and player.id not in invited:
                    raise Refused(f"this challenge is for {', '.join(terms['names'][i] for i in invited)}, not for you")
                cls = self._variant_class(terms["variant"])
                names = dict(terms["names"])
                names[player.id] = player.name
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
                    state = m.new_match(cls(), sides, _match_options(terms["options"]), side_names)
                except MatchOptionError as exc:
                    raise Refused(str(exc)) from None
                await self.store.save_player(player.id, player.name)
                tc_data = terms.get("time_control")
                setup = {"match": setup_to_data(state.setup), "names": names, "terms": terms, "time_control": tc_data}
                fair = None
                secret = await self.store.secret(game_id) if self.dice is None else None
                if secret is not None:
                    # The seed was committed with the challenge; now the accepting player's value joins it
                    # (Discord: the accepting interaction's id, which nobody knew when the commitment was shown).
                    contribution = entropy or f"accepted by {player.id}"
                    fair = FairDice.from_secret_hex(secret, client_value(contribution, f"game {game_id}"))
                    setup["dice"] = fair.proof().to_data()
                seats: dict[str, int | None] = {} if player.id in row.players else {player.id: 1}
                now = self.clock()
                tc = _time_control(tc_data)
                clock = start_clock(tc, state, now) if tc else None
                guild = await self.guild_settings(row.guild_id)
                try:
                    version = await self.store.update_game(
                        game_id,
                        row.version,
                        status="active",
                        setup=setup,
                        snapshot=_summary(state),
                        turn_player=None,
                        players=seats,
                        clock=None if clock is None else clock.to_data(),
                        timers=self._timers_for(state, tc, clock, now, {}, guild, 0),
                    )
                except Conflict:
                    self._forget(game_id)
                    continue
                new = await self.store.load_game(game_id)
                assert new.version == version
                loaded = _Loaded(new, state, [])
                self._remember(loaded)
                view = self._view(loaded)
                text = (
                    f"{player.name} accepted: {side_names[0]} vs {side_names[1]}, "
                    f"{_describe_terms(cls, state.options)}. Roll to start (game #{game_id})."
                    + (f" Dice: commitment {fair.commitment}, players' value {fair.client!r}." if fair else "")
                )
                return Outcome((Event("start", game_id, text, player.id),), view)
            raise Refused("the game is busy; try again")

    async def decline(self, game_id: int, player: PlayerRef) -> Outcome:
        """Decline (or, for the challenger, withdraw) a challenge."""
        async with self._lock(game_id):
            loaded = await self._load(game_id)
            row = loaded.row
            if row.status != "challenge":
                raise Refused(f"game #{game_id} is not an open challenge (it is {row.status})")
            terms = row.setup
            own = player.id in (terms["challenger"], terms.get("teammate"))
            if not own and terms["invited"] and player.id not in terms["invited"]:
                raise Refused("only the challenged players (or the challenger) can decline this challenge")
            if not own and not terms["invited"]:
                raise Refused("an open challenge cannot be declined; just leave it, or the challenger can withdraw it")
            try:
                await self.store.update_game(game_id, row.version, status="declined", turn_player=None)
            except Conflict:
                self._forget(game_id)
                raise Refused("the challenge changed meanwhile; look again") from None
            self._forget(game_id)
            loaded = await self._load(game_id)
            verb = "withdrew" if own else "declined"
            return Outcome(
                (Event("declined", game_id, f"{player.name} {verb} challenge #{game_id}.", player.id),),
                self._view(loaded),
            )

    # --- turns ----------------------------------------------------------------------------------
    async def roll(self, game_id: int, player: PlayerRef) -> Outcome:
        """Roll the dice (the opening roll at the start of a game)."""
        return await self._bots_act(await self.roll_once(game_id, player))

    async def roll_once(self, game_id: int, player: PlayerRef, *, expected_actions: int | None = None) -> Outcome:
        """Roll, without letting bot players act afterwards (only while the record has ``expected_actions``)."""

        fair = await self._fair_dice(game_id)

        def decide(loaded: _Loaded, state: MatchState) -> list[Action]:
            by = player.id
            if state.phase is Phase.MOVE:
                raise Refused("you have already rolled: play your move (or resign)")
            if fair is not None:
                dice = fair.next_roll(loaded.actions)
            else:
                dice = (self.dice or self._plain_dice).roll(game_id, len(loaded.actions))
            if state.phase is Phase.OPENING:
                # Each side throws one die; ties are thrown again (each throw is recorded).
                return [m.OpeningRoll(by, dice)]
            return [m.Roll(by, dice)]

        return await self._change_once(game_id, player, decide, expected_actions=expected_actions)

    async def _fair_dice(self, game_id: int) -> FairDice | None:
        """The commit-reveal dice of a match (None when the service was given a dice provider)."""
        if self.dice is not None:
            return None
        fair = self._fair.get(game_id)
        if fair is None:
            loaded = await self._load(game_id)
            proof = loaded.row.setup.get("dice") if loaded.row.setup else None
            seed = await self.store.secret(game_id)
            if not proof or seed is None:
                return None  # a match started without a commitment (by a test or demo service): plain dice
            fair = FairDice.from_secret_hex(seed, str(proof["client"]))
            self._fair[game_id] = fair
            while len(self._fair) > self._cache_size:
                self._fair.popitem(last=False)
        return fair

    async def move(self, game_id: int, player: PlayerRef, text: str) -> Outcome:
        """Play a whole roll written in notation (``13/7 8/7``); illegal plays are refused naming the rule."""
        held = await self._hold_for_teammate(game_id, player, lambda state: m.move_from_text(state, player.id, text))
        if held is not None:
            return held

        def decide(loaded: _Loaded, state: MatchState) -> list[Action]:
            self._require_mover(state, player, "play", _names(loaded))
            return [m.move_from_text(state, player.id, text)]

        return await self._change(game_id, player, decide, clear_draft=True)

    async def submove(self, game_id: int, player: PlayerRef, src: int, dst: int) -> Outcome:
        """Move one checker by one die; the play is made when all dice are used (or on :meth:`confirm`)."""

        def decide_draft(loaded: _Loaded, state: MatchState) -> list[list[int]]:
            self._require_mover(state, player, "move", _names(loaded))
            draft = self._draft(loaded, state)
            try:
                draft = draft.add(src, dst)
            except TurnError as exc:
                raise Refused(str(exc)) from None
            return [[s, t] for s, t, _ in draft.moves]

        return await self._change_draft(game_id, player, decide_draft)

    async def undo(self, game_id: int, player: PlayerRef) -> Outcome:
        """Take back the last submove of this turn (before the play is confirmed)."""

        def decide_draft(loaded: _Loaded, state: MatchState) -> list[list[int]]:
            self._require_mover(state, player, "undo", _names(loaded))
            draft = self._draft(loaded, state)
            if not draft.moves:
                raise Refused("there is nothing to undo this turn")
            return [[s, t] for s, t, _ in draft.undo().moves]

        return await self._change_draft(game_id, player, decide_draft)

    async def confirm(self, game_id: int, player: PlayerRef) -> Outcome:
        """Confirm the submoves made this turn as the play."""
        loaded = await self._load(game_id)
        held = await self._hold_for_teammate(
            game_id, player, lambda state: m.confirm(state, self._draft(loaded, state), player.id)
        )
        if held is not None:
            return held

        def decide(loaded: _Loaded, state: MatchState) -> list[Action]:
            self._require_mover(state, player, "confirm", _names(loaded))
            draft = self._draft(loaded, state)
            return [m.confirm(state, draft, player.id)]

        return await self._change(game_id, player, decide, clear_draft=True)

    async def double(self, game_id: int, player: PlayerRef) -> Outcome:
        """Offer the cube (before rolling)."""
        return await self._simple(game_id, player, m.Double)

    async def take(self, game_id: int, player: PlayerRef) -> Outcome:
        """Take the pending double."""
        return await self._simple(game_id, player, m.Take)

    async def pass_(self, game_id: int, player: PlayerRef) -> Outcome:
        """Pass (drop) the pending double: the game is lost at the value before it."""
        return await self._simple(game_id, player, m.Pass)

    async def beaver(self, game_id: int, player: PlayerRef) -> Outcome:
        """Money play: take and redouble at once."""
        return await self._simple(game_id, player, m.Beaver)

    async def raccoon(self, game_id: int, player: PlayerRef) -> Outcome:
        """Money play: answer a beaver by redoubling again."""
        return await self._simple(game_id, player, m.Raccoon)

    async def resign(self, game_id: int, player: PlayerRef, level: int | str = 1) -> Outcome:
        """Offer to resign the game: single (1), gammon (2) or backgammon (3)."""
        if isinstance(level, str):
            key = level.strip().lower()
            if key not in RESIGN_NAMES and not key.isdigit():
                raise Refused("resign single, gammon or backgammon")
            level = RESIGN_NAMES.get(key) or int(key)
        if level not in (1, 2, 3):
            raise Refused("resign single (1), gammon (2) or backgammon (3)")
        lvl = int(level)
        return await self._change(game_id, player, lambda _l, _s: [m.Resign(player.id, lvl)])

    async def answer_resignation(self, game_id: int, player: PlayerRef, accept: bool) -> Outcome:
        """Accept or reject the resignation offered to you."""
        cls = m.AcceptResignation if accept else m.RejectResignation
        return await self._simple(game_id, player, cls)

    async def forfeit(self, game_id: int, player: PlayerRef) -> Outcome:
        """Give up the whole match."""
        return await self._simple(game_id, player, m.Forfeit)

    async def timeout(self, game_id: int, player_id: str) -> Outcome:
        """``player_id`` ran out of time (an admin or test may call this; the scheduler uses :meth:`fire_timer`)."""
        ref = PlayerRef(player_id, await self.store.player_name(player_id) or player_id)
        return await self._simple(game_id, ref, m.Timeout)

    # --- clocks and timers ----------------------------------------------------------------------
    @staticmethod
    def time_controls() -> list[TimeControl]:
        """Every registered time-control preset."""
        reg = registry()
        return [reg.time_controls[n] for n in sorted(reg.time_controls)]

    async def vacation(self, player: PlayerRef, guild_id: str, days: float) -> float:
        """Declare an absence of ``days`` from now: the player's clocks stop, within the server's yearly allowance.

        Returns when the vacation ends.
        """
        if days <= 0:
            raise Refused("a vacation lasts at least part of a day")
        settings = await self.guild_settings(guild_id)
        now = self.clock()
        window = now - 365 * DAY
        taken = sum(b - max(a, window) for a, b in await self.store.vacations_of(player.id, window))
        allowance = float(settings["vacation_days_per_year"]) * DAY
        if taken + days * DAY > allowance + 1e-6:
            left = max(0.0, (allowance - taken) / DAY)
            limit = allowance / DAY
            raise Refused(
                f"that is more vacation than this server allows: {left:.1f} of {limit:.0f} days left this year"
            )
        await self.store.save_player(player.id, player.name)
        await self.store.add_vacation(player.id, guild_id, now, now + days * DAY)
        # Deadlines of the player's running clocks move back by the vacation.
        for row in await self.store.games_of(player.id, statuses=("active",)):
            async with self._lock(row.id):
                loaded = await self._load(row.id)
                if loaded.state is None or loaded.row.clock is None:
                    continue
                tc = _time_control(loaded.row.setup.get("time_control"))
                clock = Clock.from_data(loaded.row.clock)
                vac = await self._vacations(loaded.state)
                guild = await self.guild_settings(loaded.row.guild_id)
                try:
                    version = await self.store.update_game(
                        row.id,
                        loaded.row.version,
                        timers=self._timers_for(
                            loaded.state, tc, clock, now, vac, guild, _timed_length(loaded.actions)
                        ),
                    )
                except Conflict:
                    self._forget(row.id)
                    continue
                self._remember(_Loaded(replace(loaded.row, version=version), loaded.state, loaded.actions))
        return now + days * DAY

    async def _vacations(self, state: MatchState) -> dict[int, list[tuple[float, float]]]:
        """Vacation intervals of each side's acting member (recent ones)."""
        since = self.clock() - 400 * DAY
        return {side: await self.store.vacations_of(state.acting_member(side), since) for side in (0, 1)}

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

    async def fire_timer(self, timer: TimerRow) -> Outcome | None:
        """Act on a due timer (the scheduler calls this); None when it no longer applies (the game moved on)."""
        game_id = timer.game_id
        if game_id is None:
            return None
        # Judge the timer against the database, not this process's cached copy: another process may have
        # moved the game on (a stale copy would call a due timeout out of date, and the game would wait for ever).
        self._forget(game_id)
        loaded = await self._load(game_id)
        if timer.kind == "challenge-expiry":
            if loaded.row.status != "challenge":
                return None
            try:
                await self.store.update_game(game_id, loaded.row.version, status="expired", turn_player=None, timers=[])
            except Conflict:
                self._forget(game_id)
                return None
            self._forget(game_id)
            view = self._view(await self._load(game_id))
            return Outcome((Event("expired", game_id, f"Challenge #{game_id} expired unanswered.", None),), view)
        n_actions = timer.payload.get("actions")
        if loaded.state is None or loaded.state.over:
            return None
        if timer.kind != "archive" and n_actions != _timed_length(loaded.actions):
            return None  # the game moved on since this timer was set: a newer timer replaced it
        state = loaded.state
        if timer.kind == "archive":
            guild = await self.guild_settings(loaded.row.guild_id)
            due = loaded.row.updated_at + float(guild["archive_after_days"]) * DAY
            if due > self.clock():
                # Played since the timer was set (moves leave it alone): it waits again from the last change.
                await self.store.add_timers(
                    game_id, [TimerSpec("archive", due, {"actions": _timed_length(loaded.actions)})]
                )
                return None
            try:
                await self.store.update_game(
                    game_id, loaded.row.version, status="archived", turn_player=None, timers=[]
                )
            except Conflict:
                self._forget(game_id)
                return None
            self._forget(game_id)
            view = self._view(await self._load(game_id))
            return Outcome(
                (Event("archived", game_id, f"Game #{game_id} was archived after a long time without a move.", None),),
                view,
            )
        if timer.kind == "approval":
            row = await self.store.proposal(int(timer.payload.get("proposal", 0)))
            if row is None or row["status"] != "open":
                return None
            return await self._play_held(
                game_id, row, note="No answer from the teammate: the acting member's play stands."
            )
        if timer.kind == "opening":
            if state.phase is not Phase.OPENING:
                return None
            thrower = state.acting_member(0)
            name = await self.store.player_name(thrower) or thrower
            try:
                # Bound to the record the timer was set for: if a player threw meanwhile, nothing is thrown.
                out = await self._bots_act(
                    await self.roll_once(game_id, PlayerRef(thrower, name), expected_actions=n_actions)
                )
            except Refused:
                return None
            note = Event("auto-opening", game_id, "Nobody threw the opening roll in time, so the bot threw it.", None)
            return replace(out, events=(note, *out.events))
        side = int(timer.payload.get("side", 0))
        member = state.acting_member(side)
        if timer.kind == "reminder":
            view = self._view(loaded)
            share = float(timer.payload.get("share", 0.5))
            text = (
                f"Reminder: {view.name(member)}, it is your move in game #{game_id} "
                f"({int(share * 100)}% of your time for this move has gone)."
            )
            return Outcome((Event("reminder", game_id, text, member, {"share": share}),), view)
        if timer.kind == "timeout":
            name = await self.store.player_name(member) or member
            return await self._change(
                game_id,
                PlayerRef(member, name),
                lambda _l, _s: [m.Timeout(member)],
                expected_actions=n_actions,
            )
        return None

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
        first = PlayerRef(f"bot:{spec.name}", f"{spec.display_name} [{spec.strength}]")
        second = (
            PlayerRef(f"bot:{spec.name}:2", f"{spec.display_name} (2) [{spec.strength}]") if cls.team_size > 1 else None
        )
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
        """While a bot must act in this game, let it (thinking in a worker thread), collecting the events."""
        events = list(out.events)
        applied = out.applied
        game_id = out.game.id
        view = out.game
        for _ in range(limit):
            if view.status != "active" or view.to_act is None:
                break
            loaded = await self._load(game_id)
            state = loaded.state
            player = self._bot_player(loaded, view.to_act)
            if state is None or player is None:
                break
            side = state.side_of(view.to_act)
            ref = PlayerRef(view.to_act, view.name(view.to_act))
            try:
                action = await asyncio.to_thread(
                    bot_action, player, state, side, lambda: (1, 1), time_cap=self.bot_time_cap
                )
            except PlayerError as exc:
                log.error("bot %s in game %s: %s", view.to_act, game_id, exc)
                break
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

    async def hint(self, game_id: int, player: PlayerRef, n: int = 3) -> Any:
        """Advice for your own decision now (top plays with equities, or the cube), when the match allows hints."""
        loaded = await self._load(game_id)
        state = self._check_participant(loaded, player)
        if not loaded.row.setup.get("terms", {}).get("hints", False):
            raise Refused("hints are off in this match (rated matches have none)")
        if _to_act(state) != player.id:
            raise Refused("hints are for your own turn")
        try:
            return await asyncio.to_thread(analysis_hint, state, None, n, time_cap=self.bot_time_cap)
        except (HintError, PlayerUnavailable, UnsupportedVariant) as exc:
            raise Refused(str(exc)) from None

    async def analysis_report(self, game_id: int) -> str | None:
        """The post-match analysis as text, when a person in the match asked for it (player setting ``analysis``)."""
        loaded = await self._load(game_id)
        if loaded.state is None or not loaded.state.over:
            return None
        bots = loaded.row.setup.get("terms", {}).get("bots", {})
        people = [p for side in loaded.state.setup.sides for p in side if p not in bots]
        wanted = [p for p in people if (await self.store.player_settings(p)).get("analysis")]
        if not wanted:
            return None
        try:
            result = await self.analyse(game_id)
        except Refused as exc:
            return f"No analysis of game #{game_id}: {exc}"
        lines = [f"Analysis of game #{game_id} ({result.analyst}: {result.label}):"]
        for side in result.sides:
            lines.append(
                f"{side.name}: {side.decisions} decisions, {side.errors} errors ({side.blunders} blunders), "
                f"equity lost {side.equity_lost:.3f}, error rate {side.error_rate:.1f}"
            )
        for mistake in result.biggest[:5]:
            name = result.sides[mistake.side].name
            dice = f" with {mistake.dice[0]}-{mistake.dice[1]}" if mistake.dice else ""
            lines.append(
                f"- game {mistake.game}, {name}{dice}: played {mistake.played or 'no move'}, better "
                f"{mistake.better or 'no move'} (-{mistake.loss:.3f})"
            )
        return "\n".join(lines)

    async def analyse(self, game_id: int) -> Any:
        """Both sides' errors by equity lost and the biggest mistakes of a finished match."""
        loaded = await self._load(game_id)
        if loaded.state is None or not loaded.state.over:
            raise Refused("analysis is for finished matches")
        try:
            return await asyncio.to_thread(analyse_match, loaded.state.setup, loaded.actions, None, time_cap=0.5)
        except (HintError, PlayerUnavailable, UnsupportedVariant) as exc:
            raise Refused(str(exc)) from None

    # --- team consultation (Backgammon Doubles) ----------------------------------------------------
    def _team_of(self, state: MatchState, player: PlayerRef) -> int:
        if state.variant.team_size < 2:
            raise Refused(f"consultation is for team rule sets; {state.variant.display_name} is one against one")
        for side, members in enumerate(state.setup.sides):
            if player.id in members:
                return side
        raise Refused("only members of a team can see or make its proposals")

    async def propose(self, game_id: int, player: PlayerRef, text: str) -> Outcome:
        """Suggest your team's play (notation) or decision (double, roll, take, pass, beaver, accept, reject)."""
        loaded = await self._load(game_id)
        state = self._check_participant(loaded, player)
        side = self._team_of(state, player)
        if state.turn != side:
            raise Refused("your team has no decision to make now")
        words = text.strip().lower()
        choices = {
            Phase.ROLL: ("double", "roll"),
            Phase.DOUBLED: ("take", "pass", "beaver", "raccoon"),
            Phase.RESIGNED: ("accept", "reject"),
        }
        if state.phase is Phase.MOVE:
            assert state.position is not None and state.dice is not None
            try:
                play = state.variant.check_play(
                    state.position, state.dice, text, not state.moved[side], state.legal_plays()
                )
            except IllegalPlay as exc:
                raise Refused(str(exc)) from None
            kind, shown = "play", play.notation or "no move"
        elif words in choices.get(state.phase, ()):
            kind, shown = words, words
        else:
            allowed = ", ".join(choices.get(state.phase, ())) or "nothing"
            raise Refused(f"now your team may propose: {allowed}")
        pid = await self.store.add_proposal(game_id, side, player.id, kind, shown, len(loaded.actions))
        view = self._view(loaded)
        text_out = f"{player.name} proposes {shown} (proposal #{pid}); {view.name(state.acting_member(side))} decides."
        return Outcome((Event("proposal", game_id, text_out, player.id, {"team": side, "proposal": pid}),), view)

    async def proposals(self, game_id: int, player: PlayerRef) -> list[dict[str, Any]]:
        """Your team's open proposals for the decision at hand (nobody else may see them)."""
        loaded = await self._load(game_id)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started")
        side = self._team_of(loaded.state, player)
        rows = await self.store.open_proposals(game_id, side, len(loaded.actions))
        view = self._view(loaded)
        return [
            {"id": r["id"], "author": r["author"], "name": view.name(r["author"]), "kind": r["kind"], "text": r["text"]}
            for r in rows
            if r["kind"] != "held"
        ]

    async def adopt(self, game_id: int, player: PlayerRef, proposal_id: int) -> Outcome:
        """The acting member plays a teammate's proposal."""
        loaded = await self._load(game_id)
        state = self._check_participant(loaded, player)
        side = self._team_of(state, player)
        row = await self.store.proposal(proposal_id)
        if row is None or row["game_id"] != game_id or row["side"] != side or row["kind"] == "held":
            raise Refused(f"your team has no proposal #{proposal_id} in game #{game_id}")
        if row["status"] != "open" or row["turn"] != len(loaded.actions):
            raise Refused(f"proposal #{proposal_id} was for an earlier decision")
        if state.acting_member(side) != player.id:
            raise Refused(
                f"only the acting member, {self._view(loaded).name(state.acting_member(side))}, adopts a proposal"
            )
        kind, text = row["kind"], row["text"]
        actions_for: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "double": lambda: self.double(game_id, player),
            "roll": lambda: self.roll(game_id, player),
            "take": lambda: self.take(game_id, player),
            "pass": lambda: self.pass_(game_id, player),
            "beaver": lambda: self.beaver(game_id, player),
            "raccoon": lambda: self.raccoon(game_id, player),
            "accept": lambda: self.answer_resignation(game_id, player, True),
            "reject": lambda: self.answer_resignation(game_id, player, False),
        }
        if kind == "play":
            # A teammate's proposal carries the team's agreement: no second approval is needed.
            text = "" if text == "no move" else text
            out = await self._change(
                game_id, player, _deciding_with(lambda st: m.move_from_text(st, player.id, text)), clear_draft=True
            )
        else:
            out = await actions_for[kind]()
        await self.store.close_proposal(proposal_id, "adopted")
        note = Event("adopted", game_id, f"{player.name} adopts proposal #{proposal_id} ({row['text']}).", player.id)
        return Outcome((note, *out.events), out.game, out.applied)

    async def _hold_for_teammate(
        self, game_id: int, player: PlayerRef, make: Callable[[MatchState], Action]
    ) -> Outcome | None:
        """With "both must agree", keep the acting member's play until the teammate approves (None: no hold)."""
        loaded = await self._load(game_id)
        state = loaded.state
        terms = loaded.row.setup.get("terms", {}) if loaded.row.setup else {}
        if state is None or terms.get("consult") != "agree" or state.variant.team_size < 2 or state.over:
            return None
        self._check_participant(loaded, player)
        self._require_mover(state, player, "play", _names(loaded))
        side = state.side_of(player.id)
        bots = terms.get("bots", {})
        mates = [p for p in state.setup.sides[side] if p != player.id and p not in bots]
        if not mates:
            return None
        try:
            action = make(state)
            m.apply(state, action)  # judged now, so an illegal play is refused at once
        except (ActionError, TurnError) as exc:
            raise Refused(_with_names(str(exc), _names(loaded))) from None
        turn = len(loaded.actions)
        pid = await self.store.add_proposal(game_id, side, player.id, "held", json_dumps(action_to_data(action)), turn)
        timeout = float(terms.get("approval_seconds", 600))
        await self.store.add_timers(
            game_id, [TimerSpec("approval", self.clock() + timeout, {"proposal": pid, "actions": turn})]
        )
        view = self._view(loaded)
        from engine.notation import format_play

        shown = format_play(action.moves) if isinstance(action, m.Move) else type(action).__name__
        text = (
            f"{player.name} wants to play {shown or 'no move'}: waiting for {view.name(mates[0])} to approve "
            f"(it is played anyway in {timeout / 60:g} minutes)."
        )
        return Outcome((Event("held", game_id, text, player.id, {"team": side, "proposal": pid}),), view)

    async def approve(self, game_id: int, player: PlayerRef, accept: bool = True) -> Outcome:
        """The teammate approves (or rejects) the acting member's held play."""
        loaded = await self._load(game_id)
        state = self._check_participant(loaded, player)
        side = self._team_of(state, player)
        if state.acting_member(side) == player.id:
            raise Refused("your teammate approves your play, not you")
        held = [r for r in await self.store.open_proposals(game_id, side, len(loaded.actions)) if r["kind"] == "held"]
        if not held:
            raise Refused("there is no play of your team waiting for approval")
        row = held[-1]
        if not accept:
            await self.store.close_proposal(row["id"], "rejected")
            view = self._view(loaded)
            text = f"{player.name} does not agree; {view.name(state.acting_member(side))}, choose again."
            return Outcome((Event("rejected", game_id, text, player.id, {"team": side}),), view)
        return await self._play_held(game_id, row, note=f"{player.name} approves.")

    async def _play_held(self, game_id: int, row: dict[str, Any], note: str) -> Outcome:
        action = action_from_data(json.loads(row["text"]))
        if not await self.store.close_proposal(row["id"], "approved"):
            raise Refused("that play was already decided")
        actor = PlayerRef(row["author"], await self.store.player_name(row["author"]) or row["author"])
        out = await self._change(game_id, actor, _deciding(action), clear_draft=True)
        return Outcome(
            (Event("approved", game_id, note, None, {"team": row["side"]}), *out.events), out.game, out.applied
        )

    # --- verifiable dice ---------------------------------------------------------------------------
    async def record(self, game_id: int) -> dict[str, Any]:
        """The match record anyone can verify: setup, every action and the dice proof (seed only once over).

        Read straight from storage, without replaying, so that even a record that no longer replays (tampered
        with) can be checked and the bad roll named.
        """
        try:
            row, logged = await self.store.load_game_and_actions(game_id)
        except NotFound:
            raise Refused(f"there is no game #{game_id}") from None
        if row.status == "challenge" or "match" not in row.setup:
            raise Refused(f"game #{game_id} has not started")
        proof = row.setup.get("dice")
        if proof and row.status != "finished":
            proof = {**proof, "seed": None}
        return {"setup": row.setup["match"], "actions": [a.action for a in logged], "dice": proof}

    async def verify(self, game_id: int) -> Any:
        """Check a match's dice against its commitment (engine.fairdice.VerifyReport)."""
        record = await self.record(game_id)
        if not record["dice"]:
            raise Refused(f"game #{game_id} was played with dice that carry no commitment (a test or demo game)")
        return verify_record(record)

    async def dice_stats(self, player_id: str, guild_id: str | None = None) -> Any:
        """Counts of each number and of doublets in a player's rolls, with the expected values."""
        rows = await self.store.games_of(player_id, guild_id=guild_id, statuses=("active", "finished", "archived"))
        rolls: list[tuple[int, int]] = []
        for row in rows:
            loaded = await self._load(row.id)
            rolls.extend(player_rolls(loaded.actions, player_id))
        return dice_stats(rolls)

    # --- results, ratings and community -----------------------------------------------------------
    def _result_writer(
        self, row: GameRow, final: MatchState, now: float, changes: dict[str, Any]
    ) -> Callable[[Any], Awaitable[None]]:
        """Record a finished match and, for matches (not money), update each player's rating in that rule set."""

        async def write(conn: Any) -> None:
            changes.clear()
            setup = final.setup
            variant = setup.variant.name
            length = setup.options.length
            winner = final.winner
            rated = length > 0 and winner is not None and bool(row.setup.get("terms", {}).get("rated", True))
            system = self.ratings
            everyone = [p for side in setup.sides for p in side]
            if rated and winner is not None:
                current = await self.store.lock_ratings(conn, everyone, variant, system.name)
                standing = {
                    p: Rating(current[p]["rating"], current[p]["experience"]) if p in current else system.initial()
                    for p in everyone
                }
                # Team play: each member is rated against the opposing team's average rating.
                average = [sum(standing[p].rating for p in side) / len(side) for side in setup.sides]
                for k, side in enumerate(setup.sides):
                    for p in side:
                        me = standing[p]
                        other = Rating(average[1 - k], 10**6)
                        new = (
                            system.update(me, other, length)[0] if k == winner else system.update(other, me, length)[1]
                        )
                        old = current.get(p)
                        streak = old["streak"] if old else 0
                        won = k == winner
                        streak = (streak + 1 if streak > 0 else 1) if won else (streak - 1 if streak < 0 else -1)
                        await self.store.put_rating(
                            conn,
                            {
                                "player_id": p,
                                "variant": variant,
                                "system": system.name,
                                "rating": new.rating,
                                "experience": new.experience,
                                "wins": (old["wins"] if old else 0) + (1 if won else 0),
                                "losses": (old["losses"] if old else 0) + (0 if won else 1),
                                "streak": streak,
                                "updated_at": now,
                            },
                            exists=old is not None,
                        )
                        changes[p] = (me.rating, new.rating)
            data = {
                "sides": [list(s) for s in setup.sides],
                "names": dict(row.setup.get("names", {})),
                "side_names": [setup.side_name(0), setup.side_name(1)],
                "winner": winner,
                "score": list(final.score),
                "games": len(final.results),
                "display_name": setup.variant.display_name,
                "ratings": {p: list(v) for p, v in changes.items()},
                "system": system.name,
            }
            await self.store.put_result(
                conn,
                game_id=row.id,
                guild_id=row.guild_id,
                variant=variant,
                length=length,
                data=data,
                rated=rated,
                finished_at=now,
                won={p: k == winner for k, side in enumerate(setup.sides) for p in side},
            )

        return write

    async def leaderboard(
        self, guild_id: str, variant: str, *, min_matches: int = 1, limit: int = 20
    ) -> list[dict[str, Any]]:
        """This server's best players in a rule set (rated matches only), with ratings and records."""
        cls = self._variant_class(variant)
        rows = await self.store.leaderboard(guild_id, cls.name, self.ratings.name, min_matches=min_matches, limit=limit)
        return [
            {
                "rank": k,
                "player": r["player_id"],
                "name": r["name"] or r["player_id"],
                "rating": r["rating"],
                "wins": r["wins"],
                "losses": r["losses"],
                "streak": r["streak"],
            }
            for k, r in enumerate(rows, 1)
        ]

    async def profile(self, player_id: str, *, recent: int = 5) -> dict[str, Any]:
        """A player's ratings and records by rule set, current streaks and recent matches."""
        name = await self.store.player_name(player_id) or player_id
        by_variant = {
            r["variant"]: {
                "rating": r["rating"],
                "experience": r["experience"],
                "wins": r["wins"],
                "losses": r["losses"],
                "streak": r["streak"],
            }
            for r in await self.store.ratings_of(player_id, self.ratings.name)
        }
        matches = await self.store.results_of(player_id=player_id, limit=recent)
        return {
            "player": player_id,
            "name": name,
            "ratings": by_variant,
            "recent": [_result_line(m, player_id) for m in matches],
        }

    async def history(
        self, *, guild_id: str | None = None, player_id: str | None = None, limit: int = 20
    ) -> list[dict[str, Any]]:
        """Finished matches, newest first, with their threads (for links)."""
        rows = await self.store.results_of(guild_id=guild_id, player_id=player_id, limit=limit)
        return [_result_line(r, player_id) for r in rows]

    async def ids_at(self, game_id: int, after_actions: int | None = None) -> tuple[str, str]:
        """GNU Backgammon Position ID and Match ID of a position of a match (default: the current one)."""
        from engine.matchid import match_id

        loaded = await self._load(game_id)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started")
        if not loaded.state.variant.gnubg_compatible:
            raise Refused(f"{loaded.state.variant.display_name} positions have no GNU Backgammon IDs")
        n = len(loaded.actions) if after_actions is None else after_actions
        if not 0 <= n <= len(loaded.actions):
            raise Refused(f"game #{game_id} has {len(loaded.actions)} actions; pick a number from 0 to that")
        state = m.replay(loaded.state.setup, loaded.actions[:n])
        pos = state.position if state.position is not None else state.variant.start_position()
        return encode_position_id(state.variant, pos), match_id(state)

    async def watch(self, game_id: int, player: PlayerRef, on: bool = True) -> GameView:
        """Follow (or stop following) a match's turn updates; anyone may watch a public match."""
        loaded = await self._load(game_id)
        if loaded.row.status not in ("active", "challenge"):
            raise Refused(f"game #{game_id} is {loaded.row.status}: there is nothing to watch")
        await self.store.save_player(player.id, player.name)
        await self.store.watch(game_id, player.id, on)
        return self._view(loaded)

    async def watchers(self, game_id: int) -> list[str]:
        return await self.store.watchers_of(game_id)

    async def forget(self, guild_id: str, player_id: str, *, admin: bool) -> int:
        """Server admins: remove a player's personal data; their matches stay, under a neutral name."""
        if not admin:
            raise Refused("only a server admin can remove a player's data")
        changed = await self.store.forget_player(player_id, "a former player")
        self._cache.clear()
        return changed

    # --- views ----------------------------------------------------------------------------------
    async def view(self, game_id: int) -> GameView:
        """The game as it stands."""
        return self._view(await self._load(game_id))

    async def state(self, game_id: int) -> MatchState:
        """The engine state of a started game."""
        loaded = await self._load(game_id)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started: it is a challenge")
        return loaded.state

    async def board(self, game_id: int, viewer: str | None = None, *, home: str | None = None) -> Any:
        """The board image as ``viewer`` sees it (a participant id, or None for side 0): RenderedBoard."""
        loaded = await self._load(game_id)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started yet")
        state = loaded.state
        side: int = 0
        if viewer is not None:
            for k, members in enumerate(state.setup.sides):
                if viewer in members:
                    side = k
        if home is None and viewer is not None:
            home = (await self.player_settings(PlayerRef(viewer, viewer)))["home"]
        snapshot = m.board_snapshot(state, side, home="left" if home == "left" else "right")
        from render import render_board

        return await asyncio.to_thread(render_board, snapshot, self.theme)

    async def my_games(self, player_id: str, guild_id: str | None = None) -> list[GameView]:
        """The player's challenges and running games: those waiting for them first, then the rest."""
        rows = await self.store.games_of(player_id, guild_id=guild_id)
        views = []
        for row in rows:
            views.append(self._view(await self._load(row.id)))

        def waiting(v: GameView) -> int:
            if v.to_act == player_id:
                return 0
            if v.to_act is None and v.acting is not None and player_id in v.acting:
                return 0
            if v.status == "challenge" and player_id in v.invited:
                return 0
            return 1

        # Waiting for me first, the least time left first; then the rest, most recently moved first.
        return sorted(
            views, key=lambda v: (waiting(v), v.deadline if v.deadline is not None else float("inf"), -v.version)
        )

    async def export(self, game_id: int) -> str:
        """The match so far as a ``.mat`` file (GNU Backgammon, XG and Jellyfish read it)."""
        loaded = await self._load(game_id)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started: nothing to export")
        return export_mat(loaded.state.setup, loaded.actions)

    # --- internals ------------------------------------------------------------------------------
    def _remember(self, loaded: _Loaded) -> None:
        self._cache[loaded.row.id] = loaded
        self._cache.move_to_end(loaded.row.id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _forget(self, game_id: int) -> None:
        self._cache.pop(game_id, None)

    async def _load(self, game_id: int) -> _Loaded:
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache.move_to_end(game_id)
            return cached
        try:
            row, logged = await self.store.load_game_and_actions(game_id)
        except NotFound:
            raise Refused(f"there is no game #{game_id}") from None
        if row.status == "challenge" or "match" not in row.setup:
            loaded = _Loaded(row, None, [])
        else:
            setup = setup_from_data(row.setup["match"])
            acts = [action_from_data(a.action) for a in logged]
            try:
                state = m.replay(setup, acts)
            except (ActionError, RecordError) as exc:
                log.error("game %s: its stored log does not replay: %s", game_id, exc)
                raise Refused(f"game #{game_id} failed its integrity check; an admin has been told") from None
            if row.snapshot is not None and _summary(state) != row.snapshot:
                log.error("game %s: replaying its log does not reproduce its snapshot", game_id)
                raise Refused(f"game #{game_id} failed its integrity check; an admin has been told")
            loaded = _Loaded(row, state, acts)
        self._remember(loaded)
        return loaded

    def _draft(self, loaded: _Loaded, state: MatchState) -> Any:
        draft = state.draft()
        for s, t in loaded.row.draft or []:
            draft = draft.add(s, t)
        return draft

    @staticmethod
    def _require_mover(state: MatchState, player: PlayerRef, what: str, names: Mapping[str, str] | None = None) -> None:
        if state.phase is not Phase.MOVE:
            if state.phase in (Phase.ROLL, Phase.OPENING):
                raise Refused(f"you cannot {what} yet: roll first")
            raise Refused(f"there is no roll to play now ({_phase_words(state)})")
        assert state.roller is not None
        mover = state.acting_member(state.roller)
        if player.id != mover:
            if player.id in state.setup.sides[state.roller]:
                raise Refused(
                    f"only the acting member of your team, {(names or {}).get(mover, mover)}, moves this game; "
                    "consult in your team thread"
                )
            raise Refused("it is not your turn")

    async def _simple(self, game_id: int, player: PlayerRef, cls: Callable[[str], Action]) -> Outcome:
        return await self._change(game_id, player, lambda _l, _s: [cls(player.id)])

    def _check_participant(self, loaded: _Loaded, player: PlayerRef) -> MatchState:
        row = loaded.row
        if row.status == "challenge":
            raise Refused(f"game #{row.id} has not started: it is waiting for the challenge to be accepted")
        if loaded.state is None or row.status in ("declined", "expired"):
            raise Refused(f"game #{row.id} is not being played ({row.status})")
        state = loaded.state
        if state.over:
            raise Refused(f"game #{row.id} is over")
        if not any(player.id in members for members in state.setup.sides):
            raise Refused(f"you are not playing in game #{row.id}")
        return state

    async def _change(
        self,
        game_id: int,
        player: PlayerRef,
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
        player: PlayerRef,
        decide: Callable[[_Loaded, MatchState], list[Action]],
        *,
        clear_draft: bool = False,
        expected_actions: int | None = None,
    ) -> Outcome:
        """Judge, apply and store one request (with compare-and-swap and a retry after a conflict)."""
        async with self._lock(game_id):
            for _ in range(5):
                loaded = await self._load(game_id)
                if expected_actions is not None and _timed_length(loaded.actions) != expected_actions:
                    raise Refused(f"game #{game_id} has moved on meanwhile")
                state = self._check_participant(loaded, player)
                now = self.clock()
                tc = _time_control(loaded.row.setup.get("time_control"))
                clock = Clock.from_data(loaded.row.clock) if loaded.row.clock else None
                vacations = await self._vacations(state) if clock is not None else {}
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
                    auto = await self._automatic(game_id, loaded, states[-1], len(loaded.actions) + len(new_actions))
                    for action in auto:
                        states.append(m.apply(states[-1], action))
                except (ActionError, TurnError) as exc:
                    raise Refused(_with_names(str(exc), _names(loaded))) from None
                all_actions = [*new_actions, *auto]
                final = states[-1]
                status = "finished" if final.over else "active"
                # A team naming its acting member moves no deadline and leaves the mover's draft alone (unless it
                # is the mover's own team that changed hands).
                only_choice = bool(all_actions) and all(isinstance(a, m.SetActing) for a in all_actions)
                mover_kept = (
                    only_choice
                    and state.phase is Phase.MOVE
                    and final.acting_member(final.roller) == state.acting_member(state.roller)
                )
                draft_value: Any = (
                    None if (clear_draft or (final is not state and not mover_kept)) else loaded.row.draft
                )
                if tc is not None and clock is not None and not only_choice:
                    for after in states[1:]:
                        clock = advance(tc, clock, after, now, vacations)
                guild = await self.guild_settings(loaded.row.guild_id)
                finished = final.over and not state.over
                changes: dict[str, Any] = {}
                revealed: dict[str, Any] = {}
                if finished and loaded.row.setup.get("dice"):
                    seed = await self.store.secret(game_id)
                    revealed = {"setup": {**loaded.row.setup, "dice": {**loaded.row.setup["dice"], "seed": seed}}}
                summary = _summary(final)
                turn_player = _to_act(final)
                clock_data = None if clock is None else clock.to_data()
                try:
                    version = await self.store.update_game(
                        game_id,
                        loaded.row.version,
                        also=self._result_writer(loaded.row, final, now, changes) if finished else None,
                        new_actions=[action_to_data(a) for a in all_actions],
                        log_length=len(loaded.actions),  # the log as read at this version
                        snapshot=summary,
                        status=status,
                        turn_player=turn_player,
                        draft=draft_value,
                        clock=clock_data,
                        # An untimed game in progress keeps its one archive timer (set at the start), which
                        # judges the game's last change when it comes due: a move writes no timer rows.
                        timers=None
                        if only_choice or (tc is None and not final.over)
                        else self._timers_for(
                            final, tc, clock, now, vacations, guild, _timed_length([*loaded.actions, *all_actions])
                        ),
                        **revealed,
                    )
                except Conflict:
                    self._forget(game_id)
                    continue
                row = replace(
                    loaded.row,
                    setup=revealed.get("setup", loaded.row.setup),
                    version=version,
                    status=status,
                    snapshot=summary,
                    turn_player=turn_player,
                    draft=draft_value,
                    clock=clock_data,
                    updated_at=now,
                )
                new_loaded = _Loaded(row, final, [*loaded.actions, *all_actions])
                self._remember(new_loaded)
                view = self._view(new_loaded)
                events = []
                for before, action, after in zip(states, all_actions, states[1:]):
                    events.extend(_events(game_id, view, before, action, after, auto=action in auto))
                if flag_fell:
                    events.insert(0, Event("flag", game_id, "The flag fell before that request arrived.", player.id))
                if changes:
                    events.append(_ratings_event(game_id, view, changes))
                if revealed:
                    seed_hex = revealed["setup"]["dice"]["seed"]
                    events.append(
                        Event(
                            "dice-revealed",
                            game_id,
                            f"Dice seed revealed: {seed_hex}. Check the rolls with /bg verify.",
                            None,
                        )
                    )
                    self._fair.pop(game_id, None)
                return Outcome(tuple(events), view, len(all_actions))
            raise Refused("the game is busy (several changes at once); try again")

    async def _change_draft(
        self, game_id: int, player: PlayerRef, decide: Callable[[_Loaded, MatchState], list[list[int]]]
    ) -> Outcome:
        """Store a new draft for this turn (a compare-and-swap like any change; nothing enters the log)."""
        async with self._lock(game_id):
            for _ in range(5):
                loaded = await self._load(game_id)
                state = self._check_participant(loaded, player)
                draft_moves = decide(loaded, state)
                try:
                    version = await self.store.update_game(game_id, loaded.row.version, draft=draft_moves or None)
                except Conflict:
                    self._forget(game_id)
                    continue
                row = replace(loaded.row, version=version, draft=draft_moves or None)
                new_loaded = _Loaded(row, state, loaded.actions)
                self._remember(new_loaded)
                view = self._view(new_loaded)
                so_far = view.draft or "nothing moved yet"
                if view.draft_remaining:
                    left = f"dice left: {', '.join(map(str, view.draft_remaining))}"
                else:
                    left = "all dice used: confirm or undo"
                return Outcome(
                    (Event("draft", game_id, f"{view.name(player.id)}: {so_far} ({left}).", player.id),), view
                )
            raise Refused("the game is busy (several changes at once); try again")

    async def _automatic(self, game_id: int, loaded: _Loaded, state: MatchState, n_actions: int) -> list[Action]:
        """Forced plays (player setting ``autoplay``) and greedy race bear-offs (``auto_bearoff``)."""
        out: list[Action] = []
        for _ in range(8):
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
        if loaded.view is None:
            loaded.view = self._make_view(loaded)
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
                tuple(x for x in (*terms["invited"], terms.get("opponent_teammate")) if x),
            )
            return GameView(
                id=row.id,
                guild_id=row.guild_id,
                status=row.status,
                variant=row.variant,
                display_name=cls.display_name if cls else row.variant,
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
            due = deadline(tc, Clock.from_data(row.clock)) if tc is not None else None
        return GameView(
            id=row.id,
            guild_id=row.guild_id,
            status=row.status,
            variant=state.variant.name,
            display_name=state.variant.display_name,
            sides=state.setup.sides,
            names=dict(_names(loaded)),
            length=state.options.length,
            score=state.score,
            game=state.game,
            phase=str(state.phase),
            to_act=_to_act(state),
            acting=acting,
            dice=state.dice,
            cube=state.cube.value,
            cube_owner=state.cube.owner,
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

    async def set_thread(self, game_id: int, thread_id: str) -> None:
        """Remember the transport's thread for a game (Discord: the match thread)."""
        async with self._lock(game_id):
            loaded = await self._load(game_id)
            version = await self.store.update_game(game_id, loaded.row.version, thread_id=thread_id)
            self._remember(
                _Loaded(replace(loaded.row, version=version, thread_id=thread_id), loaded.state, loaded.actions)
            )

    # --- Backgammon Doubles: the acting member, and each team's private thread ---------------------------
    async def choose_acting(self, game_id: int, player: PlayerRef, member: str) -> Outcome:
        """Team choice (match option ``team_choice``): a team member names who acts for the team this game.

        Until the team first moves in the game (so the opponents' opening roll cannot take the choice away). The
        choice is public (everyone sees who acts); it enters the match record as a ``SetActing`` action, which
        moves no deadline.
        """
        loaded = await self._load(game_id)
        state = self._check_participant(loaded, player)
        if state.variant.team_size < 2:
            raise Refused(
                f"choosing the acting member is for team rule sets; {state.variant.display_name} is one against one"
            )
        side = state.side_of(player.id)
        view = self._view(loaded)
        team = state.setup.side_name(side)
        current = state.acting_member(side)
        if not state.options.team_choice:
            raise Refused(
                f"this match rotates the acting member; {view.name(current)} acts for {team} in game {state.game} "
                "(the challenge decides: `acting: choose` lets teams pick before each game)"
            )
        if state.moved[side] or state.phase not in (Phase.OPENING, Phase.ROLL, Phase.MOVE):
            raise Refused(
                f"{team} has moved in game {state.game}: {view.name(current)} acts for {team} until it ends; "
                "your team chooses again before its first move of the next game"
            )
        members = state.setup.sides[side]
        if member not in members:
            raise Refused(
                f"{view.name(member)} is not on your team ({team}): choose {' or '.join(view.name(p) for p in members)}"
            )
        if member == current:
            raise Refused(f"{view.name(member)} already acts for {team} in game {state.game}")
        number = state.game
        out = await self._change(game_id, player, _deciding(m.SetActing(player.id, member)))
        text = f"{team}: {view.name(member)} acts in game {number} (chosen by {view.name(player.id)})."
        event = Event("acting", game_id, text, player.id, {"side": side, "member": member, "game": number})
        return Outcome((event, *out.events), out.game, out.applied)

    async def set_team_thread(self, game_id: int, side: int, thread_id: str | None) -> None:
        """Remember a team's private thread (Discord: where teammates consult), stored with the game.

        Kept in the game's stored setup (``setup["team_threads"]``, by side), so any process, and the bot after a
        restart, finds it again. None forgets it (the thread is gone). It does not move the game's version, so
        the players' boards and buttons stay current.
        """
        if side not in (0, 1):
            raise ValueError(f"a side is 0 or 1, not {side!r}")

        def change(setup: dict[str, Any]) -> dict[str, Any]:
            threads = dict(setup.get("team_threads") or {})
            if thread_id is None:
                threads.pop(str(side), None)
            else:
                threads[str(side)] = thread_id
            return {**setup, "team_threads": threads}

        async with self._lock(game_id):
            loaded = await self._load(game_id)
            if (loaded.row.setup.get("team_threads") or {}).get(str(side)) == thread_id:
                return
            stored = await self.store.update_setup(game_id, change)
            # The cached copy takes the stored threads (its version may be older; the next change reloads it).
            setup = {**loaded.row.setup, "team_threads": stored.get("team_threads", {})}
            self._remember(_Loaded(replace(loaded.row, setup=setup), loaded.state, loaded.actions))

    async def team_threads(self, game_id: int) -> dict[int, str]:
        """The private thread of each team of a game, by side, as remembered with :meth:`set_team_thread`."""
        loaded = await self._load(game_id)
        return {int(k): str(v) for k, v in (loaded.row.setup.get("team_threads") or {}).items()}


DAY = 86400.0


def _time_control(value: str | dict[str, Any] | TimeControl | None) -> TimeControl | None:
    """A preset by name, a custom control from its fields, or None for no clock; Refused if it cannot work."""
    if value is None or isinstance(value, TimeControl):
        return value
    if isinstance(value, str):
        if value.strip().lower() in ("", "none", "off"):
            return None
        try:
            return registry().find_time_control(value)
        except UnknownTimeControl as exc:
            raise Refused(str(exc)) from None
    data = dict(value)
    data.setdefault("name", "custom")
    data.setdefault("display_name", "Custom clock")
    try:
        return TimeControl(**data)
    except (TimeControlError, TypeError) as exc:
        raise Refused(f"that time control cannot work: {exc}") from None


def _tc_data(tc: TimeControl) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(tc):
        value = getattr(tc, f.name)
        out[f.name] = str(value) if isinstance(value, StrEnum) else list(value) if isinstance(value, tuple) else value
    return out


def _deciding(action: Action) -> Callable[[Any, MatchState], list[Action]]:
    """A decision that is already made (a bot player's action, judged again when applied)."""

    def decide(_loaded: Any, _state: MatchState) -> list[Action]:
        return [action]

    return decide


def _deciding_with(make: Callable[[MatchState], Action]) -> Callable[[Any, MatchState], list[Action]]:
    """A decision computed from the state when it is applied."""

    def decide(_loaded: Any, state: MatchState) -> list[Action]:
        return [make(state)]

    return decide


def json_dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _result_line(row: dict[str, Any], viewer: str | None) -> dict[str, Any]:
    data = row["data"]
    winner = data.get("winner")
    side_names = data.get("side_names") or ["?", "?"]
    line = {
        "game_id": row["game_id"],
        "variant": row["variant"],
        "display_name": data.get("display_name", row["variant"]),
        "length": row["length"],
        "score": data.get("score"),
        "sides": side_names,
        "winner": None if winner is None else side_names[winner],
        "rated": bool(row["rated"]),
        "finished_at": row["finished_at"],
        "thread_id": row.get("thread_id"),
    }
    if viewer is not None and winner is not None:
        sides = data.get("sides", [[], []])
        line["won"] = viewer in sides[winner]
        if viewer in data.get("ratings", {}):
            before, after = data["ratings"][viewer]
            line["rating_change"] = after - before
    return line


def _ratings_event(game_id: int, view: GameView, changes: dict[str, Any]) -> Event:
    parts = []
    for player, (before, after) in changes.items():
        parts.append(f"{view.name(player)} {before:.0f} → {after:.0f} ({after - before:+.1f})")
    return Event(
        "ratings", game_id, f"Ratings ({view.display_name}): " + ", ".join(parts) + ".", None, {"changes": changes}
    )


def _to_act(state: MatchState) -> str | None:
    side = state.turn
    if side is None or state.over:
        return None
    return state.acting_member(side)


def _phase_words(state: MatchState) -> str:
    return {
        Phase.OPENING: "the opening roll is due",
        Phase.ROLL: "a roll is due",
        Phase.MOVE: "a play is due",
        Phase.DOUBLED: "a double is waiting for an answer",
        Phase.RESIGNED: "a resignation is waiting for an answer",
        Phase.OVER: "the match is over",
    }[state.phase]


def _race_bearoff(state: MatchState) -> bool:
    """All the mover's checkers are home and no opposing checker can meet them again."""
    pos = state.position
    if pos is None:
        return False
    if pos.bar[0] or any(v > 0 for v in pos.board[6:]):
        return False
    if not state.variant.hitting:
        return True
    if pos.bar[1]:
        return False
    highest_mine = max((i + 1 for i, v in enumerate(pos.board) if v > 0), default=0)
    return all(i + 1 > highest_mine for i, v in enumerate(pos.board) if v < 0)


def _coerce(key: str, value: Any, default: Any) -> Any:
    if isinstance(default, bool):
        if isinstance(value, str):
            low = value.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise Refused(f"{key} is on or off, not {value!r}")
        return bool(value)
    if isinstance(default, int) and not isinstance(default, bool):
        try:
            return int(value)
        except (TypeError, ValueError):
            raise Refused(f"{key} must be a whole number, not {value!r}") from None
    return value if not isinstance(value, str) else value.strip()


def _match_options(raw: dict[str, Any], *, length: int | None = None) -> MatchOptions:
    data = dict(raw)
    if length is not None:
        data["length"] = length
    fields = {f for f in MatchOptions.__dataclass_fields__}
    unknown = sorted(set(data) - fields)
    if unknown:
        raise Refused(f"there is no match option {unknown[0]!r}; options: {', '.join(sorted(fields))}")
    try:
        opts = MatchOptions(**data)
        opts.check()
    except (MatchOptionError, VariantOptionError, TypeError, ValueError) as exc:
        raise Refused(str(exc)) from None
    return opts


def _options_data(opts: MatchOptions) -> dict[str, Any]:
    return {k: (str(v) if isinstance(v, StrEnum) else v) for k, v in opts.__dict__.items()}


def _describe_terms(cls: type[Variant], opts: MatchOptions) -> str:
    what = f"a {opts.length}-point {cls.display_name} match" if opts.length else f"{cls.display_name} for money"
    extras = [
        label
        for flag, label in (
            (opts.jacoby, "Jacoby"),
            (opts.beavers, "beavers"),
            (opts.auto_doubles > 0, "automatic doubles"),
            (opts.holland, "Holland rule"),
            (not opts.crawford and opts.length > 0, "no Crawford rule"),
            (not opts.cube, "no cube"),
        )
        if flag
    ]
    return what + (f" ({', '.join(extras)})" if extras else "")


def _events(
    game_id: int, view: GameView, before: MatchState, action: Action, after: MatchState, *, auto: bool
) -> list[Event]:
    """The events one applied action produced, each with a sentence for the players."""
    name = view.name
    by = action.by
    out: list[Event] = []
    if isinstance(action, m.OpeningRoll):
        a, b = action.dice
        n0, n1 = name(before.acting_member(0)), name(before.acting_member(1))
        if a == b:
            out.append(
                Event(
                    "opening", game_id, f"Opening roll: {n0} {a}, {n1} {b} — a tie, roll again.", by, {"dice": [a, b]}
                )
            )
        else:
            starter = n0 if a > b else n1
            out.append(
                Event(
                    "opening",
                    game_id,
                    f"Opening roll: {n0} {a}, {n1} {b}. {starter} plays {max(a, b)}-{min(a, b)}.",
                    by,
                    {"dice": [a, b]},
                )
            )
    elif isinstance(action, m.Roll):
        text = f"{name(by)} rolled {action.dice[0]}-{action.dice[1]}."
        if after.roller != before.roller and not after.over:
            text += " No legal play: the turn passes."
        out.append(Event("roll", game_id, text, by, {"dice": list(action.dice)}))
    elif isinstance(action, m.Move):
        from engine.notation import format_play

        notation = format_play(action.moves) or "no move"
        prefix = "(automatic) " if auto else ""
        out.append(
            Event("move", game_id, f"{prefix}{name(by)} played {notation}.", by, {"play": notation, "auto": auto})
        )
    elif isinstance(action, m.Double):
        out.append(Event("double", game_id, f"{name(by)} doubles to {before.cube.value * 2}.", by))
    elif isinstance(action, m.Take):
        out.append(Event("take", game_id, f"{name(by)} takes; the cube is at {after.cube.value}.", by))
    elif isinstance(action, m.Pass):
        out.append(Event("pass", game_id, f"{name(by)} passes.", by))
    elif isinstance(action, m.Beaver):
        out.append(Event("beaver", game_id, f"{name(by)} beavers, redoubling to {after.cube.value * 2}.", by))
    elif isinstance(action, m.Raccoon):
        out.append(Event("raccoon", game_id, f"{name(by)} raccoons, redoubling to {after.cube.value * 2}.", by))
    elif isinstance(action, m.Resign):
        level = m.RESIGN_LEVELS[action.level]
        out.append(Event("resign", game_id, f"{name(by)} offers to resign a {level}.", by, {"level": action.level}))
    elif isinstance(action, m.AcceptResignation):
        out.append(Event("resign-accepted", game_id, f"{name(by)} accepts the resignation.", by))
    elif isinstance(action, m.RejectResignation):
        out.append(Event("resign-rejected", game_id, f"{name(by)} rejects the resignation; play on.", by))
    elif isinstance(action, m.Timeout):
        out.append(Event("timeout", game_id, f"{name(by)} ran out of time.", by))
    elif isinstance(action, m.Forfeit):
        out.append(Event("forfeit", game_id, f"{name(by)} forfeits the match.", by))
    if isinstance(action, m.Resign) and after.phase is not Phase.RESIGNED and len(after.results) > len(before.results):
        out.append(
            Event(
                "resign-accepted",
                game_id,
                "The resignation is accepted automatically: nothing more could be won.",
                None,
            )
        )
    if len(after.results) > len(before.results):
        result = after.results[-1]
        winner = after.setup.side_name(result.winner)
        kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}.get(result.level, "the game")
        points = f"{result.points} point{'s' if result.points != 1 else ''}"
        text = f"{winner} wins {kind} ({points}, {result.reason}). Score {after.score[0]}-{after.score[1]}"
        text += f" in a {after.options.length}-point match." if after.options.length else " (money)."
        out.append(Event("game-over", game_id, text, None, {"winner": result.winner, "points": result.points}))
    if after.over and not before.over:
        winner = after.setup.side_name(after.winner) if after.winner is not None else "nobody"
        out.append(
            Event(
                "match-over",
                game_id,
                f"Match over: {winner} wins {after.score[0]}-{after.score[1]}.",
                None,
                {"winner": after.winner},
            )
        )
    elif not after.over:
        actor = _to_act(after)
        if actor is not None and (before.turn != after.turn or before.phase != after.phase):
            out.append(
                Event("turn", game_id, f"{name(actor)} to {_verb(after.phase)}.", actor, {"phase": str(after.phase)})
            )
        elif after.phase is Phase.OPENING and before.phase is not Phase.OPENING:
            out.append(Event("turn", game_id, f"Game {after.game}: roll the opening dice.", None, {"phase": "opening"}))
    return out


def _verb(phase: Phase) -> str:
    return {
        Phase.ROLL: "roll (or double)",
        Phase.MOVE: "play",
        Phase.DOUBLED: "take or pass",
        Phase.RESIGNED: "accept or reject the resignation",
        Phase.OPENING: "roll the opening dice",
        Phase.OVER: "rest",
    }[phase]
