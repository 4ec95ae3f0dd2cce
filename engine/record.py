"""Match records as plain JSON-ready data: the setup and every action, losslessly.

Storage, exports and audits keep a match as ``{"setup": ..., "actions": [...]}``; :func:`load_record`
rebuilds the setup (looking the rule set up by name among the registered plugins) and the action values,
so replaying them with :func:`engine.match.replay` reproduces every state.

Loading a game must not cost a replay of its whole history, so the state itself is data too:
:func:`state_to_data` writes every field of a :class:`~engine.match.MatchState` (the setup apart, which is
stored once with :func:`setup_to_data`) and :func:`state_from_data` reads it back, equal to the original.
The format (version 1) is a JSON object whose keys are left out while their field has its default value::

    {"v": 1, "score": [2, 1], "game": 3, "phase": "move", "pos": "24:2 19:-5 ... 1:-2", "roller": 1,
     "dice": [5, 3], "cube": [2, 0], "moved": [true, false], "rolls": [2, 1], "begun": true,
     "results": [[0, 2, 1, "pass", 2], [1, 1, 1, "borne off", 1]],
     "last": [0, [6, 4], "24/18 13/9"]}

========== ====================== ==========================================================================
key        field                  value
========== ====================== ==========================================================================
v          (format version)       1; always present
score      score                  [side 0, side 1]
game       game                   the game number (from 1)
phase      phase                  :class:`~engine.match.Phase` value: "roll", "move", "doubled", ...
pos        position               the position's one-line text form (roller's frame), ``Position.parse``
roller     roller                 0 or 1
dice       dice                   [die, die]
cube       cube                   [value, owner]; owner null while centred
responder  responder              0 or 1
redoubles  redoubles              beavers and raccoons since the pending double
resign     resign_level           a result level of the rule set (1, 2 or 3 in backgammon)
resume     resume                 the phase a rejected resignation returns to
declined   declined               [level, level] of rejected resignations this game
crawford   crawford_game          true
post       post_crawford          true
moved      moved                  [bool, bool]
rolls      rolls                  [count, count] (this game, for the Holland rule)
ties       opening_ties           count
begun      begun                  true
autos      auto_doubles           count
acting     acting                 [member index, member index]
results    results                one entry per finished game: ``[winner, points, level, reason, cube]``,
                                  with a sixth item ``true`` for the Crawford game; the game number and the
                                  score before it follow from the entries before it. An entry where they
                                  do not is written in full: ``{"game", "winner", "points", "level",
                                  "reason", "cube", "before": [s0, s1], "crawford"}``.
winner     winner                 0 or 1 (null is the default: no winner, or a tied money session)
last       last_move              [side, [die, die], submoves] with the submoves written ``src/dst`` (``*``
                                  for a hit) in the order made, space-separated, ``29`` the source of a
                                  checker entering from the reserve; "" for a roll with no play
stage      stage                  :class:`~engine.match.Stage` value: "named" (a named doublet is being
                                  played), "again" (a roll again within the turn), "fixed" (dice the rule
                                  set fixed), "handed" (dice the opponent handed over)
turns      turns                  [count, count]: each side's turns begun in this game
stages     stages                 the stages played in the turn under way: ``[[die, die], count, used]`` each
                                  (count null: the roll's two or four dice)
count      count                  the dice of the stage being played when fewer than its roll's (1 to 3)
========== ====================== ==========================================================================

Phase ``"name double"`` (:attr:`~engine.match.Phase.NAME_DOUBLE`) is a turn waiting for its doublet to be named.

Some figures a service needs are not part of the state: how many actions and rolls the record holds. They
are counters kept beside the state (:func:`log_counters`, :func:`advance_counters`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from . import match as m
from .i18n import N_, _
from .movegen import Submove
from .plugins import get_variant
from .position import BAR, OFF, RESERVE, Position

__all__ = [
    "RecordError",
    "action_to_data",
    "action_from_data",
    "setup_to_data",
    "setup_from_data",
    "STATE_VERSION",
    "STATE_KEYS",
    "state_to_data",
    "state_from_data",
    "log_counters",
    "advance_counters",
    "COUNTER_KEYS",
]

_ACTIONS: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        m.OpeningRoll,
        m.Roll,
        m.Move,
        m.Double,
        m.Take,
        m.Pass,
        m.Beaver,
        m.Raccoon,
        m.Resign,
        m.AcceptResignation,
        m.RejectResignation,
        m.NameDouble,
        m.Timeout,
        m.Forfeit,
        m.EndSession,
        m.SetActing,
    )
}


class RecordError(ValueError):
    """Data that does not describe a match setup or action."""


def action_to_data(action: m.Action) -> dict[str, Any]:
    """``{"type": "Roll", "by": "...", "dice": [3, 1]}`` and so on."""
    data: dict[str, Any] = {"type": type(action).__name__}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        if f.name == "moves":
            value = [[s, t, bool(h)] for s, t, h in value]
        elif isinstance(value, tuple):
            value = list(value)
        data[f.name] = value
    return data


def action_from_data(data: Mapping[str, Any]) -> m.Action:
    """The action value ``data`` describes; :class:`RecordError` if it describes none."""
    kind = data.get("type")
    cls = _ACTIONS.get(str(kind))
    if cls is None:
        raise RecordError(_("unknown action type {kind}").format(kind=repr(kind)))
    kwargs: dict[str, Any] = {}
    try:
        for f in dataclasses.fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if f.name == "moves":
                value = tuple((int(s), int(t), bool(h)) for s, t, h in value)
            elif f.name == "dice":
                value = (int(value[0]), int(value[1]))
            kwargs[f.name] = value
        action: m.Action = cls(**kwargs)
    except (TypeError, ValueError, IndexError) as exc:
        raise RecordError(
            _("bad {kind} action {data}: {error}").format(kind=kind, data=repr(dict(data)), error=exc)
        ) from None
    return action


def setup_to_data(setup: m.MatchSetup) -> dict[str, Any]:
    """The match setup as data: rule set by name with its options, sides, names and match options."""
    options = {}
    for f in dataclasses.fields(setup.options):
        value = getattr(setup.options, f.name)
        options[f.name] = str(value) if isinstance(value, StrEnum) else value
    return {
        "variant": setup.variant.name,
        "variant_options": dict(setup.variant.options),
        "sides": [list(s) for s in setup.sides],
        "names": None if setup.names is None else list(setup.names),
        "options": options,
    }


def setup_from_data(data: Mapping[str, Any]) -> m.MatchSetup:
    """Rebuild a setup; the rule set must be registered (UnknownVariant otherwise)."""
    try:
        variant_options = data.get("variant_options") or {}
        if not isinstance(variant_options, Mapping) or not all(isinstance(k, str) for k in variant_options):
            raise RecordError(_('not a match setup: "variant_options" must be an object'))
        variant = get_variant(str(data["variant"]), **dict(variant_options))
        options = m.MatchOptions(**_typed_options(data.get("options") or {}))  # it reads its enums' text forms
        sides = data["sides"]
        names = data.get("names")
        if not (
            isinstance(sides, list | tuple)
            and len(sides) == 2
            and all(isinstance(s, list | tuple) and all(isinstance(p, str) for p in s) for s in sides)
        ):
            raise RecordError(_('not a match setup: "sides" must be two lists of player ids (text)'))
        if names is not None and not (isinstance(names, list | tuple) and len(names) == 2):
            raise RecordError(_('not a match setup: "names" must be the two sides\' names'))
        return m.MatchSetup(
            variant,
            (tuple(sides[0]), tuple(sides[1])),
            options,
            None if names is None else (str(names[0]), str(names[1])),
        )
    except (KeyError, TypeError, IndexError) as exc:
        raise RecordError(_("not a match setup: {error}").format(error=exc)) from None


#: The kinds of value each match option takes, in words for a refusal.
_OPTION_KINDS = {bool: N_("true or false"), int: N_("a whole number")}


def _typed_options(raw: Any) -> dict[str, Any]:
    """A stored setup's match options, each of its field's type (enums as their text forms): RecordError naming
    the first that is not (a traceback from a comparison deep in the rules, else)."""
    if not isinstance(raw, Mapping):
        raise RecordError(_('not a match setup: "options" must be an object'))
    defaults = {f.name: f.default for f in dataclasses.fields(m.MatchOptions)}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in defaults:
            raise RecordError(_("not a match setup: there is no match option {key}").format(key=repr(key)[:40]))
        default = defaults[key]
        if isinstance(default, StrEnum):
            ok = isinstance(value, str)
        elif isinstance(default, bool):
            ok = isinstance(value, bool)
        else:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok:
            kind = _(_OPTION_KINDS[type(default)]) if type(default) in _OPTION_KINDS else _("text")
            raise RecordError(
                _("not a match setup: the match option {key} must be {kind}, not {value}").format(
                    key=key, kind=kind, value=repr(value)[:40]
                )
            )
        out[key] = value
    return out


def actions_from_data(items: Iterable[Mapping[str, Any]]) -> list[m.Action]:
    return [action_from_data(item) for item in items]


# --- match states -----------------------------------------------------------------------------------------
#: The version of the state format :func:`state_to_data` writes (the ``"v"`` key).
STATE_VERSION = 1

#: Every field of :class:`~engine.match.MatchState` but the setup (stored apart) and the play cache, with its key.
STATE_KEYS: dict[str, str] = {
    "score": "score",
    "game": "game",
    "phase": "phase",
    "position": "pos",
    "roller": "roller",
    "dice": "dice",
    "cube": "cube",
    "responder": "responder",
    "redoubles": "redoubles",
    "resign_level": "resign",
    "resume": "resume",
    "declined": "declined",
    "crawford_game": "crawford",
    "post_crawford": "post",
    "moved": "moved",
    "rolls": "rolls",
    "opening_ties": "ties",
    "begun": "begun",
    "auto_doubles": "autos",
    "acting": "acting",
    "results": "results",
    "winner": "winner",
    "last_move": "last",
    "stage": "stage",
    "turns": "turns",
    "stages": "stages",
    "count": "count",
}
_KNOWN_KEYS = frozenset({"v", *STATE_KEYS.values()})
#: The highest result level a state may carry (a rule set scoring by checkers left counts up to its checkers).
MAX_LEVEL = 64
_SUBMOVE = re.compile(r"(\d{1,2})/(\d{1,2})(\*?)")
_REASONS = {r.value: r for r in m.EndReason}
_RESULT_KEYS = frozenset({"game", "winner", "points", "level", "reason", "cube", "before", "crawford"})


def _moves_text(moves: Iterable[Submove]) -> str:
    return " ".join(f"{s}/{t}*" if h else f"{s}/{t}" for s, t, h in moves)


def state_to_data(state: m.MatchState) -> dict[str, Any]:
    """Every field of ``state`` but its setup, as compact JSON-ready data (see the module docstring).

    :func:`state_from_data` with the same setup reads it back equal to ``state``.
    """
    data: dict[str, Any] = {"v": STATE_VERSION}
    if state.score != (0, 0):
        data["score"] = list(state.score)
    if state.game != 1:
        data["game"] = state.game
    if state.phase is not m.Phase.OPENING:
        data["phase"] = state.phase.value
    if state.position is not None:
        data["pos"] = str(state.position)
    if state.roller is not None:
        data["roller"] = state.roller
    if state.dice is not None:
        data["dice"] = list(state.dice)
    cube = state.cube
    if cube.value != 1 or cube.owner is not None:
        data["cube"] = [cube.value, cube.owner]
    if state.responder is not None:
        data["responder"] = state.responder
    if state.redoubles:
        data["redoubles"] = state.redoubles
    if state.resign_level:
        data["resign"] = state.resign_level
    if state.resume is not None:
        data["resume"] = state.resume.value
    if state.declined != (0, 0):
        data["declined"] = list(state.declined)
    if state.crawford_game:
        data["crawford"] = True
    if state.post_crawford:
        data["post"] = True
    if state.moved != (False, False):
        data["moved"] = [bool(state.moved[0]), bool(state.moved[1])]
    if state.rolls != (0, 0):
        data["rolls"] = list(state.rolls)
    if state.opening_ties:
        data["ties"] = state.opening_ties
    if state.begun:
        data["begun"] = True
    if state.auto_doubles:
        data["autos"] = state.auto_doubles
    if state.acting != (0, 0):
        data["acting"] = list(state.acting)
    if state.results:
        items: list[Any] = []
        before = (0, 0)
        for k, r in enumerate(state.results, 1):
            if r.game == k and r.score_before == before:
                item: Any = [r.winner, r.points, r.level, r.reason.value, r.cube]
                if r.crawford:
                    item.append(True)
            else:
                item = {
                    "game": r.game,
                    "winner": r.winner,
                    "points": r.points,
                    "level": r.level,
                    "reason": r.reason.value,
                    "cube": r.cube,
                    "before": list(r.score_before),
                    "crawford": r.crawford,
                }
            items.append(item)
            after = list(r.score_before)
            after[r.winner] += r.points
            before = (after[0], after[1])
        data["results"] = items
    if state.winner is not None:
        data["winner"] = state.winner
    if state.last_move is not None:
        side, dice, moves = state.last_move
        data["last"] = [side, list(dice), _moves_text(moves)]
    if state.stage is not m.Stage.NONE:
        data["stage"] = state.stage.value
    if state.turns != (0, 0):
        data["turns"] = list(state.turns)
    if state.stages:
        data["stages"] = [[list(dice), count, used] for dice, count, used in state.stages]
    if state.count is not None:
        data["count"] = state.count
    return data


def state_from_data(setup: m.MatchSetup, data: Mapping[str, Any]) -> m.MatchState:
    """The match state :func:`state_to_data` wrote for a match with this setup.

    :class:`RecordError` says what is wrong when ``data`` is not such a state (an unknown format version, an
    unknown key, a value of the wrong type or out of range, a position the rule set cannot have, fields that
    contradict each other): never any other exception.
    """
    if not isinstance(data, Mapping):
        raise RecordError(f"a match state is a JSON object, not {type(data).__name__}")
    version = data.get("v")
    if type(version) is not int or version != STATE_VERSION:
        raise RecordError(f"unknown match state format version {version!r}: this engine reads version {STATE_VERSION}")
    unknown = [k for k in data if k not in _KNOWN_KEYS]
    if unknown:
        raise RecordError(f"a match state has no key {unknown[0]!r}")
    try:
        state = _decode_state(setup, data)
        _check_state(state)
    except RecordError:
        raise
    except (ValueError, TypeError, LookupError, AttributeError, ArithmeticError) as exc:
        raise RecordError(f"not a match state: {exc}") from None
    return state


def _int(key: str, value: Any, lo: int = 0, hi: int | None = None) -> int:
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        span = f"from {lo}" if hi is None else f"from {lo} to {hi}"
        raise RecordError(f"match state {key!r}: expected a whole number {span}, got {value!r}")
    return value


def _flag(key: str, value: Any) -> bool:
    if type(value) is not bool:
        raise RecordError(f"match state {key!r}: expected true or false, got {value!r}")
    return value


def _pair(key: str, value: Any) -> tuple[Any, Any]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise RecordError(f"match state {key!r}: expected a list of two, got {value!r}")
    return value[0], value[1]


def _int_pair(key: str, value: Any, lo: int = 0, hi: int | None = None) -> tuple[int, int]:
    a, b = _pair(key, value)
    return _int(key, a, lo, hi), _int(key, b, lo, hi)


def _side(key: str, value: Any) -> int:
    return _int(key, value, 0, 1)


def _phase(key: str, value: Any) -> m.Phase:
    if not isinstance(value, str) or value not in m.Phase._value2member_map_:
        have = ", ".join(p.value for p in m.Phase)
        raise RecordError(f"match state {key!r}: expected one of {have}; got {value!r}")
    return m.Phase(value)


def _cube_value(key: str, value: Any) -> int:
    v = _int(key, value, 1, m.MAX_CUBE_LIMIT)
    if v & (v - 1):
        raise RecordError(f"match state {key!r}: a cube value is a power of two, not {v}")
    return v


def _position(setup: m.MatchSetup, value: Any, game: int) -> Position:
    if not isinstance(value, str):
        raise RecordError(f"match state 'pos': expected a position's text form, got {value!r}")
    try:
        pos = Position.parse(value)
        setup.variant.for_game(game - 1).validate_position(pos)  # the rule set this game is played by
    except ValueError as exc:  # PositionError
        raise RecordError(f"match state 'pos': {exc}") from None
    return pos


def _submoves(value: Any) -> tuple[Submove, ...]:
    if not isinstance(value, str):
        raise RecordError(f"match state 'last': expected the submoves as text, got {value!r}")
    moves: list[Submove] = []
    for token in value.split():
        found = _SUBMOVE.fullmatch(token)
        src, dst = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
        if not found or not (BAR >= src > dst >= OFF or (src == RESERVE and BAR > dst > OFF)):
            raise RecordError(
                f"match state 'last': cannot read the submove {token!r} (expected SRC/DST or SRC/DST*, "
                f"from a higher point to a lower one, {BAR} the bar, {RESERVE} the reserve and {OFF} off)"
            )
        moves.append((src, dst, bool(found.group(3))))
    return tuple(moves)


def _result(item: Any, game: int, before: tuple[int, int]) -> m.GameResult:
    if isinstance(item, list) and len(item) in (5, 6):
        winner, points, level, reason, cube = item[:5]
        crawford = _flag("results", item[5]) if len(item) == 6 else False
    elif isinstance(item, Mapping) and set(item) == _RESULT_KEYS:
        winner, points, level, reason, cube = (item[k] for k in ("winner", "points", "level", "reason", "cube"))
        game = _int("results", item["game"], 1)
        before = _int_pair("results", item["before"])
        crawford = _flag("results", item["crawford"])
    else:
        raise RecordError(
            f"match state 'results': an entry is [winner, points, level, reason, cube(, crawford)] "
            f"or an object with the keys {', '.join(sorted(_RESULT_KEYS))}; got {item!r}"
        )
    end = _REASONS.get(reason) if type(reason) is str else None
    if end is None:
        raise RecordError(f"match state 'results': unknown end reason {reason!r}")
    if not (
        type(winner) is int
        and 0 <= winner <= 1
        and type(points) is int
        and points >= 0
        and type(level) is int
        and 0 <= level <= MAX_LEVEL
        and type(cube) is int
        and 1 <= cube <= m.MAX_CUBE_LIMIT
        and not cube & (cube - 1)
    ):  # the fast test of a long list of results; the calls below say what is wrong
        _side("results", winner)
        _int("results", points)
        _int("results", level, 0, MAX_LEVEL)
        _cube_value("results", cube)
    return m.GameResult(game, winner, points, level, end, cube, before, crawford)


def _decode_state(setup: m.MatchSetup, data: Mapping[str, Any]) -> m.MatchState:
    f: dict[str, Any] = {}
    get = data.get
    if (v := get("score")) is not None:
        f["score"] = _int_pair("score", v)
    if (v := get("game")) is not None:
        f["game"] = _int("game", v, 1)
    if (v := get("phase")) is not None:
        f["phase"] = _phase("phase", v)
    if (v := get("pos")) is not None:
        f["position"] = _position(setup, v, f.get("game", 1))
    if (v := get("roller")) is not None:
        f["roller"] = _side("roller", v)
    if (v := get("dice")) is not None:
        f["dice"] = _int_pair("dice", v, 1, 6)
    if (v := get("cube")) is not None:
        value, owner = _pair("cube", v)
        f["cube"] = m.Cube(_cube_value("cube", value), None if owner is None else _side("cube", owner))
    if (v := get("responder")) is not None:
        f["responder"] = _side("responder", v)
    if (v := get("redoubles")) is not None:
        f["redoubles"] = _int("redoubles", v)
    if (v := get("resign")) is not None:
        f["resign_level"] = _int("resign", v, 0, MAX_LEVEL)
    if (v := get("resume")) is not None:
        f["resume"] = _phase("resume", v)
    if (v := get("declined")) is not None:
        f["declined"] = _int_pair("declined", v, 0, MAX_LEVEL)
    if (v := get("crawford")) is not None:
        f["crawford_game"] = _flag("crawford", v)
    if (v := get("post")) is not None:
        f["post_crawford"] = _flag("post", v)
    if (v := get("moved")) is not None:
        a, b = _pair("moved", v)
        f["moved"] = (_flag("moved", a), _flag("moved", b))
    if (v := get("rolls")) is not None:
        f["rolls"] = _int_pair("rolls", v)
    if (v := get("ties")) is not None:
        f["opening_ties"] = _int("ties", v)
    if (v := get("begun")) is not None:
        f["begun"] = _flag("begun", v)
    if (v := get("autos")) is not None:
        f["auto_doubles"] = _int("autos", v)
    if (v := get("acting")) is not None:
        f["acting"] = _int_pair("acting", v, 0, setup.variant.team_size - 1)
    if (v := get("results")) is not None:
        if not isinstance(v, list):
            raise RecordError(f"match state 'results': expected a list, got {v!r}")
        results: list[m.GameResult] = []
        before = (0, 0)
        for k, item in enumerate(v, 1):
            r = _result(item, k, before)
            results.append(r)
            after = list(r.score_before)
            after[r.winner] += r.points
            before = (after[0], after[1])
        f["results"] = tuple(results)
    if (v := get("winner")) is not None:
        f["winner"] = _side("winner", v)
    if (v := get("last")) is not None:
        if not isinstance(v, list | tuple) or len(v) != 3:
            raise RecordError(f"match state 'last': expected [side, [die, die], submoves], got {v!r}")
        f["last_move"] = (_side("last", v[0]), _int_pair("last", v[1], 1, 6), _submoves(v[2]))
    if (v := get("stage")) is not None:
        if not isinstance(v, str) or v not in m.Stage._value2member_map_:
            have = ", ".join(st.value for st in m.Stage)
            raise RecordError(f"match state 'stage': expected one of {have}; got {v!r}")
        f["stage"] = m.Stage(v)
    if (v := get("turns")) is not None:
        f["turns"] = _int_pair("turns", v)
    if (v := get("stages")) is not None:
        if not isinstance(v, list) or len(v) > 64:
            raise RecordError(f"match state 'stages': expected a list of stages, got {v!r}")
        stages = []
        for item in v:
            if not isinstance(item, list) or len(item) != 3:
                raise RecordError(f"match state 'stages': expected [[die, die], count, used], got {item!r}")
            count = None if item[1] is None else _int("stages", item[1], 1, 4)
            stages.append((_int_pair("stages", item[0], 1, 6), count, _int("stages", item[2], 0, 4)))
        f["stages"] = tuple(stages)
    if (v := get("count")) is not None:
        f["count"] = _int("count", v, 1, 3)
    return m.MatchState(setup, **f)


#: The fields each phase cannot do without.
_NEEDS: dict[m.Phase, tuple[str, ...]] = {
    m.Phase.OPENING: ("position",),
    m.Phase.ROLL: ("position", "roller"),
    m.Phase.MOVE: ("position", "roller", "dice"),
    m.Phase.DOUBLED: ("position", "roller", "responder"),
    m.Phase.RESIGNED: ("position", "roller", "responder", "resume"),
    m.Phase.OVER: (),
    m.Phase.NAME_DOUBLE: ("position", "roller"),
}


def _check_state(s: m.MatchState) -> None:
    """Refuse fields that contradict each other (a state no record can reach in a way that matters)."""
    missing = [STATE_KEYS[name] for name in _NEEDS[s.phase] if getattr(s, name) is None]
    if missing:
        raise RecordError(f"a match state in phase {s.phase.value!r} needs {', '.join(map(repr, missing))}")
    if s.phase is m.Phase.RESIGNED:
        if s.resume not in (m.Phase.ROLL, m.Phase.MOVE, m.Phase.NAME_DOUBLE) or not s.resign_level:
            raise RecordError(
                "a pending resignation needs its level and the phase it interrupted (roll, move or name double)"
            )
        if s.resume is m.Phase.MOVE and s.dice is None:
            raise RecordError("a resignation offered after rolling needs the dice")
    expected = len(s.results) + (0 if s.phase is m.Phase.OVER else 1)
    # A money session ended before its first game keeps game number 1.
    if s.game != expected and not (s.phase is m.Phase.OVER and not s.results and s.game == 1):
        raise RecordError(f"a match state in game {s.game} lists {len(s.results)} finished games")
    if s.winner is not None and s.phase is not m.Phase.OVER:
        raise RecordError("a match state names a winner before the match is over")
    turn = s.resume if s.phase is m.Phase.RESIGNED else s.phase
    named = s.stage in (m.Stage.NAMED, m.Stage.FIXED, m.Stage.HANDED)
    again = s.stage is m.Stage.AGAIN
    if (named and turn is not m.Phase.MOVE) or (again and turn is not m.Phase.ROLL):
        raise RecordError(f"a match state in stage {s.stage.value!r} cannot be in phase {s.phase.value!r}")


# --- record counters ----------------------------------------------------------------------------------------
#: The counters :func:`log_counters` keeps: actions in the record, rolls (opening throws included) among them,
#: and actions other than :class:`~engine.match.SetActing` (the record's length as deadlines count it).
COUNTER_KEYS = ("actions", "rolls", "timed")
_ROLL_TYPES = frozenset({m.OpeningRoll.__name__, m.Roll.__name__})
_UNTIMED_TYPES = frozenset({m.SetActing.__name__})


def _action_type(action: m.Action | Mapping[str, Any]) -> str:
    if isinstance(action, Mapping):
        return str(action.get("type"))
    return type(action).__name__


def log_counters(actions: Iterable[m.Action | Mapping[str, Any]]) -> dict[str, int]:
    """What the service needs of a record besides the state, which does not hold it (counts reset each game).

    ``{"actions": n, "rolls": r, "timed": t}``: ``n`` actions; ``r`` of them rolls or opening throws, which is
    :func:`engine.fairdice.roll_number`, the number of the next fair roll; ``t`` of them not ``SetActing``.
    ``actions`` may be action values or their :func:`action_to_data` dicts.
    """
    return advance_counters(dict.fromkeys(COUNTER_KEYS, 0), actions)


def advance_counters(
    counters: Mapping[str, Any], new_actions: Iterable[m.Action | Mapping[str, Any]]
) -> dict[str, int]:
    """The counters of a record after appending ``new_actions`` (O(new actions)); :class:`RecordError` if
    ``counters`` is not what :func:`log_counters` returns."""
    if not isinstance(counters, Mapping) or set(counters) != set(COUNTER_KEYS):
        raise RecordError(f"record counters are an object with the keys {', '.join(COUNTER_KEYS)}; got {counters!r}")
    n, rolls, timed = (_counter(counters, k) for k in COUNTER_KEYS)
    for action in new_actions:
        kind = _action_type(action)
        n += 1
        if kind in _ROLL_TYPES:
            rolls += 1
        if kind not in _UNTIMED_TYPES:
            timed += 1
    return {"actions": n, "rolls": rolls, "timed": timed}


def _counter(counters: Mapping[str, Any], key: str) -> int:
    value = counters[key]
    if type(value) is not int or value < 0:
        raise RecordError(f"record counter {key!r}: expected a whole number from 0, got {value!r}")
    return value
