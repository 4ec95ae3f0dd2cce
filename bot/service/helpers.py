"""Small pure helpers of the service: match options, time controls, snapshots and decisions."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine import i18n
from engine import match as m
from engine.fairdice import tally_rolls
from engine.i18n import N_, _, pgettext
from engine.match import Action, MatchOptionError, MatchOptions, MatchState
from engine.plugins import UnknownPlayer, UnknownTimeControl, find_player, registry
from engine.record import log_counters, state_to_data
from engine.snapshot import BoardSnapshot, Home, board_snapshot
from engine.timecontrol import TimeControl, TimeControlError
from engine.turn import TurnError
from engine.variant import VariantOptionError

from ..storage import GameRow
from .types import FORGOTTEN, GameView, Refused, Request


@dataclass
class _Loaded:
    """A game as the service holds it: its row, its state and what it needs of its record (never the record itself,
    so neither loading a game nor keeping it costs more for a long history)."""

    row: GameRow
    state: MatchState | None  # None while the game is a challenge
    #: engine.record.log_counters of the record: actions, rolls (the next fair roll's number), timed actions.
    counters: dict[str, int] = field(default_factory=lambda: log_counters([]))
    #: The game's view, made once (a change makes a new _Loaded): listing the legal plays is not free.
    view: GameView | None = None
    #: The language the view's words were made in (made again when asked in another one).
    view_language: str | None = None

    @property
    def n_actions(self) -> int:
        """How many actions the match record holds."""
        return self.counters["actions"]

    @property
    def timed(self) -> int:
        """The record's length as timers count it: a team naming its acting member moves no deadline."""
        return self.counters["timed"]

    def setup_as_named_by(self, player: Request) -> dict[str, Any]:
        """The game's setup, with ``player``'s name as they are called now when they act from the game's own server
        under a new name (a changed nickname): the same dict when nothing changes. An erased name is never brought
        back, and the service's own requests (timers, bot players) rename nobody."""
        setup: dict[str, Any] = self.row.setup
        names = setup.get("names") or {}
        old = names.get(player.id)
        new = player.name.strip()
        if old in (None, new, FORGOTTEN) or not new or player.guild_id != self.row.guild_id:
            return setup
        if player.transport in ("service", "bot"):
            return setup
        return {**setup, "names": {**names, player.id: new}}


#: The name the bot players go by; each is shown with its strength: "Gammonbot (casual)".
BOT_NAME = "Gammonbot"


def bot_name(spec_name: str, seat: int = 1) -> str:
    """How a bot player (by its registered name) is shown: ``Gammonbot (casual)``; a second seat of the same bot
    (the bots' team in Doubles) is ``Gammonbot 2 (casual)`` (its strength in the active language)."""
    return _bot_name(spec_name, seat, i18n.language())


@functools.lru_cache(maxsize=256)
def _bot_name(spec_name: str, seat: int, language: str) -> str:
    try:
        strength = _(find_player(spec_name).strength)
    except UnknownPlayer:
        strength = spec_name
    bot = f"{BOT_NAME} {seat}" if seat > 1 else BOT_NAME
    # Translators: a bot player's name and its strength: "Gammonbot (casual)".
    return _("{bot} ({strength})").format(bot=bot, strength=strength)


def bot_label(player_id: str) -> str | None:
    """The name a bot player's seat (``bot:casual``, its second seat ``bot:casual:2``) is shown by; None for anyone
    else."""
    kind, _sep, rest = player_id.partition(":")
    if kind != "bot" or not rest:
        return None
    spec, _sep, seat = rest.partition(":")
    return bot_name(spec, 2 if seat == "2" else 1)


def challenge_awaiting(terms: Mapping[str, Any]) -> tuple[str, ...]:
    """Who must still accept a challenge (its stored terms). A team challenge starts once every player it names but
    the challenger has accepted (the challenger's teammate too: nobody is seated without being asked), bots
    excepted; one against one, the invited player (any of them) accepts; () for an open challenge."""
    bots = terms.get("bots") or {}
    if terms.get("teammate"):
        accepted = set(terms.get("accepted") or ())
        named = dict.fromkeys((terms["teammate"], *terms["invited"], terms.get("opponent_teammate")))
        return tuple(p for p in named if p and p not in bots and p not in accepted)
    return tuple(p for p in terms["invited"] if p not in bots)


def _names(loaded: _Loaded) -> Mapping[str, str]:
    """The players' display names by id, as the game stores them (the same as its view's, without making one); a
    bot player by its name and strength (:func:`bot_label`)."""
    setup = loaded.row.setup
    names: Mapping[str, str] = setup.get("names", {})
    bots = setup.get("bots") or (setup.get("terms") or {}).get("bots")  # a challenge's setup is its terms
    if not bots:
        return names
    return {**names, **{pid: bot_label(pid) or name for pid, name in names.items() if pid in bots}}


def _ended_state(before: MatchState, action: Action, after: MatchState) -> MatchState:
    """The board of the game ``action`` ended, as it was left: what ``engine.snapshot.board_snapshot(state, side,
    ended=after.results[-1])`` draws with its result. The match's own state when the match is over (it keeps its
    last position); otherwise the state before the action with its final position, the last play and the new score.
    """
    if after.over:
        return after
    last_move, position, moved = before.last_move, before.position, before.moved
    if isinstance(action, m.Move) and after.last_move is not None and position is not None:
        last_move = after.last_move
        position = before.variant.apply(position, last_move[2])
        moved = (True, moved[1]) if last_move[0] == 0 else (moved[0], True)
    return dataclasses.replace(
        before,
        position=position,
        last_move=last_move,
        moved=moved,
        score=after.score,
        results=after.results,
        _plays=None,
    )


def _board_of(
    loaded: _Loaded, state: MatchState, side: int, home: str, ended: m.GameResult | None = None
) -> BoardSnapshot:
    """The board ``side`` sees (its home board on the ``home`` side), with the players' names and, while the game's
    stored draft is being entered, that play so far; ``ended``: ``state`` is the final position of that game
    (:func:`_ended_state`)."""
    draft = None
    if loaded.row.draft and ended is None and state is loaded.state and state.phase is m.Phase.MOVE:
        try:
            draft = state.draft()
            for src, dst in loaded.row.draft:
                draft = draft.add(src, dst)
        except TurnError:  # a draft that no longer fits the roll is not drawn
            draft = None
    where: Home = "left" if home == "left" else "right"
    return board_snapshot(state, side, home=where, names=dict(_names(loaded)), draft=draft, ended=ended)


def _timed_length(actions: list[Action]) -> int:
    """The record's length as timers count it: a team naming its acting member moves no deadline."""
    return sum(1 for a in actions if not isinstance(a, m.SetActing))


#: The format of the stored snapshot: the whole match state and the record's counters, so that loading a game
#: costs the same whatever its history (the log is checked against it when the match ends: see records.py).
SNAPSHOT_VERSION = 2


def _snapshot(state: MatchState, counters: Mapping[str, int]) -> dict[str, Any]:
    """The stored snapshot of a game: its state after the last action, and the counters of its record."""
    return {"v": SNAPSHOT_VERSION, "state": state_to_data(state), "counters": dict(counters)}


def _summary(state: MatchState) -> dict[str, Any]:
    """The snapshot of the first format (before SNAPSHOT_VERSION 2): what replaying the log must reproduce."""
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
    data.setdefault("display_name", N_("Custom clock"))  # stored in English: translated where shown
    try:
        return TimeControl(**data)
    except (TimeControlError, TypeError) as exc:
        raise Refused(_("that time control cannot work: {reason}").format(reason=exc)) from None


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


def _to_act(state: MatchState) -> str | None:
    side = state.turn
    if side is None or state.over:
        return None
    return state.acting_member(side)


def _race_bearoff(state: MatchState) -> bool:
    """All the mover's checkers are home and no opposing checker can meet them again (the rule set says: a Plakoto
    straggler can still pin, a Fevga runner still block)."""
    pos = state.position
    if pos is None:
        return False
    if pos.bar[0] or pos.reserve[0] or any(v > 0 for v in pos.board[6:]):
        return False
    return state.variant.race(pos)


def _coerce(key: str, value: Any, default: Any) -> Any:
    if isinstance(default, bool):
        if isinstance(value, str):
            low = value.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise Refused(_("{setting} is on or off, not {value}").format(setting=key, value=repr(value)))
        return bool(value)
    if isinstance(default, int) and not isinstance(default, bool):
        try:
            return int(value)
        except (TypeError, ValueError):
            raise Refused(
                _("{setting} must be a whole number, not {value}").format(setting=key, value=repr(value))
            ) from None
    return value if not isinstance(value, str) else value.strip()


def _match_options(raw: dict[str, Any], *, length: int | None = None) -> MatchOptions:
    data = dict(raw)
    if length is not None:
        data["length"] = length
    fields = {f for f in MatchOptions.__dataclass_fields__}
    unknown = sorted(set(data) - fields)
    if unknown:
        raise Refused(
            _("there is no match option {option}; options: {options}").format(
                option=repr(unknown[0]), options=", ".join(sorted(fields))
            )
        )
    try:
        opts = MatchOptions(**data)
        opts.check()
    except (MatchOptionError, VariantOptionError, TypeError, ValueError) as exc:
        raise Refused(str(exc)) from None
    return opts


def _options_data(opts: MatchOptions) -> dict[str, Any]:
    return {k: (str(v) if isinstance(v, StrEnum) else v) for k, v in opts.__dict__.items()}


def _mover_word(what: str) -> str:
    """What a player tried before rolling, as ``_require_mover`` is told it ("you cannot play yet: roll first"): the
    engine's table of these phrases (:func:`engine.match.action_words`)."""
    return m.action_words(what, "tried before rolling")


def status_word(status: str) -> str:
    """A game's stored status (``declined``, ``expired``…) in the active language (for "game #7 is not being
    played (declined)")."""
    words = {
        "challenge": pgettext("game status", "a challenge"),
        "active": pgettext("game status", "being played"),
        "finished": pgettext("game status", "finished"),
        "declined": pgettext("game status", "declined"),
        "expired": pgettext("game status", "expired"),
        "archived": pgettext("game status", "archived"),
    }
    return words.get(status, status)


#: Analyses of finished matches a service keeps (ServiceCore._analyses).
ANALYSES_KEPT = 32


def keep_analysis(memo: dict[tuple[int, int], Any], key: tuple[int, int], analysis: Any) -> None:
    """Keep a finished match's analysis by (game, version): its match card's is reused by its report, and a second
    ``/bg analyse`` is answered at once. Only the newest :data:`ANALYSES_KEPT` are kept."""
    memo[key] = analysis
    while len(memo) > ANALYSES_KEPT:
        del memo[next(iter(memo))]


def dice_after(loaded: _Loaded, actions: Sequence[Action]) -> dict[str, list[int]] | None:
    """Each player's rolls after ``actions`` (engine.fairdice.tally_rolls), kept with the game as it is played; None
    for a game played before tallies were kept (it is counted once, when someone asks: RecordsMixin.dice_stats)."""
    kept = loaded.row.dice if loaded.row.dice is not None or loaded.n_actions else {}
    return None if kept is None else tally_rolls(actions, kept)
