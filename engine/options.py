"""Match options and rule-set options as players write them: one options string, checked together.

A challenge, a server's defaults and the console all write options the same way::

    jacoby beavers max_cube=16 holland koks=on games=5 opening=reroll first_turn_doublets=6,4

A word alone turns an on/off option on (``no-x`` turns it off); ``x=value`` sets any option: on/off as
``on``/``off``, ``yes``/``no``, ``true``/``false``; whole numbers; a choice by its value (``opening=reroll``); a
list of whole numbers separated by commas. Names ignore case, ``-`` and ``_`` (``max-cube``, ``maxcube``).

The options are every field of :class:`~engine.match.MatchOptions` but the length (a challenge names the length
apart) and every option of the rule set (:attr:`~engine.variant.Variant.option_defaults`), found from the
dataclass and the rule set: a field added to either appears here by itself. A rule-set option may be written with
its rule set's name (``longgammon.koks``); a server's defaults, which are for every rule set, store it that way.

:func:`parse` reads text (or a mapping) into :class:`Chosen` (canonical values, :meth:`Chosen.text` writes them
back so that ``parse(chosen.text()) == chosen``). :func:`settle` checks a challenge's options together with the
rule set, the length and the server's defaults and makes the :class:`~engine.match.MatchOptions` and rule-set
options; :func:`check_defaults` checks a server's defaults. Every refusal is an :class:`OptionError` of one line
that names the option and what it accepts. :func:`describe` says the terms of a match in words; :func:`suggest`
completes a half-typed options string.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any

from .i18n import N_, _
from .match import MatchOptionError, MatchOptions
from .variant import Variant

__all__ = [
    "OptionError",
    "Option",
    "Chosen",
    "EMPTY",
    "match_option_specs",
    "rule_set_option_specs",
    "parse",
    "settle",
    "check_defaults",
    "format_value",
]

#: MatchOptions fields that are not options: the length is named apart (``length``, ``money``).
NOT_OPTIONS = frozenset({"length"})
#: The longest options text read (longer text is refused unread).
MAX_TEXT = 1000
#: The most digits a number may have.
MAX_DIGITS = 9
ON = ("on", "yes", "true", "1")
OFF = ("off", "no", "false", "0")

#: What each known match option does, for suggestions (a field not listed here is named by its name). In English:
#: :meth:`Option.words` says it in the active language.
HELP: dict[str, str] = {
    "games": N_("money: how many games the session lasts (0 = no limit)"),
    "session_hours": N_("money: the session ends between games once this many hours have passed (0 = never)"),
    "dead_cube": N_("matches: no double where it cannot gain (a dead cube)"),
    "crawford": N_("matches: no doubling in the game after a side reaches match point minus one"),
    "cube": N_("play with the doubling cube"),
    "max_cube": N_("the highest cube value, a power of two"),
    "jacoby": N_("money: gammons count single while the cube is centred"),
    "beavers": N_("money: a doubled player may take and redouble at once"),
    "beaver_limit": N_("money: beavers plus raccoons allowed after one double"),
    "auto_doubles": N_("money: opening ties double the cube, at most this many times a game"),
    "holland": N_("matches: after the Crawford game the trailer waits before doubling"),
    "holland_rolls": N_("Holland rule: rolls each side makes before the trailer may double"),
    "holland_counts_opening": N_("Holland rule: the opening roll counts as a roll"),
    "holland_counts_dances": N_("Holland rule: a roll with no legal play counts as a roll"),
    "team_choice": N_("team rule sets: each side picks its acting member before each game"),
    "auto_accept_resign": N_("accept at once a resignation that concedes the most that could be won"),
    "timeout_policy": N_("what a timeout costs: ibf (the match) or game (only the game)"),
    "opening": N_("how each game starts: ibf, reroll, winner or winner-reroll (Tavli: reroll, then the winner starts)"),
}
#: Options that apply only to money play, or only to matches (a field not listed is probed: see _scope).
SCOPES: dict[str, str] = {
    **dict.fromkeys(("games", "session_hours", "jacoby", "beavers", "beaver_limit", "auto_doubles"), "money"),
    **dict.fromkeys(
        ("crawford", "dead_cube", "holland", "holland_rolls", "holland_counts_opening", "holland_counts_dances"),
        "match",
    ),
}
#: Options that mean nothing unless another (on/off) option is on.
NEEDS: dict[str, str] = {
    "beaver_limit": "beavers",
    "holland_rolls": "holland",
    "holland_counts_opening": "holland",
    "holland_counts_dances": "holland",
}
#: Options that need the doubling cube.
CUBE_RULES = ("jacoby", "beavers", "auto_doubles", "holland")


class OptionError(ValueError):
    """Options that cannot be read or cannot work together; ``str()`` is one line naming the option."""


@dataclass(frozen=True)
class Option:
    """One option players may set: its name, what kind of value it takes, and its default."""

    name: str
    #: ``bool``, ``int``, ``float``, ``choice`` (one of ``choices``), ``ints`` (whole numbers) or ``text``.
    kind: str
    default: Any
    choices: tuple[str, ...] = ()
    #: Whether ``none`` is a value.
    optional: bool = False
    #: The registered name of the rule set it belongs to; None for a match option.
    rule_set: str | None = None
    rule_set_name: str = ""
    #: What it does, in English (the catalog's words: :meth:`words` says it in the active language); empty for a
    #: rule-set option its rule set does not describe.
    help: str = ""
    #: ``money`` or ``match`` when it applies to one kind of play only.
    scope: str | None = None

    @property
    def key(self) -> str:
        """How a server's defaults store it: the name, with the rule set's name first for a rule-set option."""
        return f"{self.rule_set}.{self.name}" if self.rule_set else self.name

    def words(self) -> str:
        """What it does, in the active language."""
        if self.help:
            return _(self.help)
        if self.rule_set is not None:
            owner = _(self.rule_set_name) if self.rule_set_name else self.rule_set
            return _("{rule_set}: {option}").format(rule_set=owner, option=self.name.replace("_", " "))
        return self.name.replace("_", " ")

    def accepts(self) -> str:
        """The values it accepts, in words (the active language; the values themselves are written as typed)."""
        if self.kind == "bool":
            return _("on or off (yes/no, true/false)")
        if self.kind == "int":
            return _("a whole number (or none)") if self.optional else _("a whole number")
        if self.kind == "float":
            return _("a number (or none)") if self.optional else _("a number")
        if self.kind == "choice":
            choices = ", ".join(self.choices)
            if self.optional:
                return _("one of {choices} (or none)").format(choices=choices)
            return _("one of {choices}").format(choices=choices)
        if self.kind == "ints":
            if self.optional:
                return _("whole numbers separated by commas, like 6,4,3 (or none)")
            return _("whole numbers separated by commas, like 6,4,3")
        return _("a word (or none)") if self.optional else _("a word")


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name.strip().lower())


def _kind(tp: Any, default: Any) -> tuple[str, tuple[str, ...], bool]:
    """(kind, choices, optional) of a type annotation, or of the default value where the type says nothing."""
    optional = False
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        optional = len(args) < len(typing.get_args(tp))
        tp = args[0] if len(args) == 1 else None
    if tp is None or tp is Any:
        tp = type(default) if default is not None else None
    if tp is bool:
        return "bool", (), optional
    if isinstance(tp, type) and issubclass(tp, Enum):
        return "choice", tuple(str(e.value) for e in tp), optional
    if tp is int:
        return "int", (), optional
    if tp is float:
        return "float", (), optional
    if tp in (tuple, list) or typing.get_origin(tp) in (tuple, list):
        return "ints", (), optional
    return "text", (), optional


def _nondefault(kind: str, default: Any, choices: tuple[str, ...]) -> Any:
    if kind == "bool":
        return not default
    if kind == "int":
        return (default or 0) + 1
    if kind == "choice":
        return next((c for c in choices if c != str(getattr(default, "value", default))), default)
    return default


def _scope(name: str, kind: str, default: Any, choices: tuple[str, ...]) -> str | None:
    """``money``/``match`` for an option that applies to one kind of play: known, or found by trying it."""
    if name in SCOPES:
        return SCOPES[name]
    value = _nondefault(kind, default, choices)
    fits = []
    for length in (0, 1):
        try:
            MatchOptions(length=length, **{name: value}).check()
            fits.append(True)
        except (MatchOptionError, TypeError, ValueError):
            fits.append(False)
    return {(True, False): "money", (False, True): "match"}.get((fits[0], fits[1]))


@lru_cache(maxsize=1)
def _match_specs() -> tuple[Option, ...]:
    try:
        hints = typing.get_type_hints(MatchOptions)
    except (NameError, TypeError):  # an annotation only a type checker can resolve: go by the defaults
        hints = {}
    out = []
    for f in dataclasses.fields(MatchOptions):
        if f.name in NOT_OPTIONS or not f.init:
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        kind, choices, optional = _kind(hints.get(f.name), default)
        if isinstance(default, Enum):
            default = str(default.value)
        help_ = HELP.get(f.name, f.name.replace("_", " "))
        out.append(
            Option(f.name, kind, default, choices, optional, None, "", help_, _scope(f.name, kind, default, choices))
        )
    return tuple(out)


def match_option_specs() -> list[Option]:
    """Every match option (each field of MatchOptions but the length), in the dataclass's order."""
    return list(_match_specs())


def rule_set_option_specs(cls: type[Variant]) -> list[Option]:
    """The options of a rule set, from its ``option_defaults`` (and ``option_help``, if it has one)."""
    helps: Mapping[str, str] = getattr(cls, "option_help", {}) or {}
    out = []
    for name, default in cls.option_defaults.items():
        kind, choices, optional = _kind(None, default)
        value = tuple(default) if kind == "ints" else str(default.value) if isinstance(default, Enum) else default
        words = helps.get(name, "")
        out.append(Option(name, kind, value, choices, optional, cls.name, cls.display_name or cls.name, words))
    return out


# --- values ---------------------------------------------------------------------------------------------------
def read_value(opt: Option, raw: Any) -> Any:
    """The canonical value of ``raw`` (text, or a value already typed) for ``opt``; OptionError if it does not fit."""
    shown = raw if not isinstance(raw, str) else raw.strip()
    bad = OptionError(
        _("{option} is {accepts}, not {value}").format(option=opt.name, accepts=opt.accepts(), value=repr(_clip(shown)))
    )
    if opt.optional and (raw is None or (isinstance(raw, str) and raw.strip().lower() in ("none", "null"))):
        return None
    if isinstance(raw, Enum):
        raw = raw.value
    if opt.kind == "bool":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ON + OFF:
            return raw.strip().lower() in ON
        raise bad
    if opt.kind == "int":
        if isinstance(raw, int) and not isinstance(raw, bool) and len(str(abs(raw))) <= MAX_DIGITS:
            return raw
        if isinstance(raw, str) and re.fullmatch(rf"[+-]?\d{{1,{MAX_DIGITS}}}", raw.strip()):
            return int(raw.strip())
        raise bad
    if opt.kind == "float":
        try:
            value = float(raw) if not isinstance(raw, bool) and len(str(raw)) <= 30 else math.nan
        except (TypeError, ValueError):
            raise bad from None
        if not math.isfinite(value):
            raise bad
        return value
    if opt.kind == "choice":
        key = raw.strip().lower() if isinstance(raw, str) else None
        for choice in opt.choices:
            if key == choice.lower():
                return choice
        raise bad
    if opt.kind == "ints":
        items = re.split(r"[,/+]", raw.strip()) if isinstance(raw, str) else raw
        if not isinstance(items, list | tuple) or len(items) > 64:
            raise bad
        out = []
        for item in items:
            if isinstance(item, str) and re.fullmatch(r"\s*\d{1,6}\s*", item):
                out.append(int(item))
            elif isinstance(item, int) and not isinstance(item, bool) and abs(item) < 10**6:
                out.append(item)
            elif not (isinstance(item, str) and not item.strip()):
                raise bad
        return tuple(out)
    if isinstance(raw, str) and raw.strip() and len(raw) <= 100 and not re.search(r"\s", raw.strip()):
        return raw.strip()
    raise bad


def format_value(opt: Option, value: Any) -> str:
    """A value as it is written after ``=``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(getattr(value, "value", value))


def _token(opt: Option, value: Any, written: str) -> str:
    if value is True and opt.kind == "bool":
        return written
    return f"{written}={format_value(opt, value)}"


def _clip(value: Any, n: int = 40) -> Any:
    return value[:n] + "…" if isinstance(value, str) and len(value) > n else value


# --- a set of options -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chosen:
    """Options as given: match options by field, and rule-set options by rule set name; canonical values."""

    match: Mapping[str, Any] = field(default_factory=dict)
    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        """JSON-ready, flat: match options by name, rule-set options as ``rule_set.option`` (lists for tuples)."""
        out: dict[str, Any] = {k: _jsonable(v) for k, v in self.match.items()}
        for rule_set, values in self.rules.items():
            out.update({f"{rule_set}.{k}": _jsonable(v) for k, v in values.items()})
        return out

    def text(self, rule_set: str | None = None) -> str:
        """The options string that reads back as these options (rule-set options of ``rule_set`` unprefixed), match
        options in the order of MatchOptions."""
        specs = {o.name: o for o in _match_specs()}
        order = {name: i for i, name in enumerate(specs)}
        ordered = sorted(self.match.items(), key=lambda item: order.get(item[0], len(order)))
        words = [_token(specs[k], v, k) if k in specs else f"{k}={v}" for k, v in ordered]
        for name, values in self.rules.items():
            for k, v in values.items():
                opt = Option(k, "bool" if isinstance(v, bool) else "text", None)
                words.append(_token(opt, v, k if name == rule_set else f"{name}.{k}"))
        return " ".join(words)

    def for_rule_set(self, name: str) -> dict[str, Any]:
        """The options of one rule set."""
        return dict(self.rules.get(name, {}))

    def __bool__(self) -> bool:
        return bool(self.match) or any(self.rules.values())


EMPTY = Chosen()


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _tokens(text: str) -> list[tuple[str, str | None]]:
    """``(name, value or None)`` of each word of an options string (``jacoby, beavers`` reads as two words)."""
    out: list[tuple[str, str | None]] = []
    for word in text.replace(";", " ").split():
        found = re.match(r"^([^=:]*)[=:](.*)$", word)
        if found:
            value = found[2][:-1] if found[2].endswith(",") else found[2]
            out.append((found[1], value))
        else:
            out.extend((part, None) for part in word.split(",") if part)
    return out


class _Names:
    """Which option a typed name means: match options, then the rule set's (or any rule set's, for defaults)."""

    def __init__(self, rule_sets: Sequence[type[Variant]], rule_set: type[Variant] | None) -> None:
        self.rule_set = rule_set
        self.rule_sets = list(rule_sets)
        if rule_set is not None and rule_set not in self.rule_sets:
            self.rule_sets.append(rule_set)
        self.match = {_norm(o.name): o for o in _match_specs()}
        self.by_set = {cls.name: {_norm(o.name): o for o in rule_set_option_specs(cls)} for cls in self.rule_sets}
        self.set_names: dict[str, type[Variant]] = {}
        for cls in self.rule_sets:
            for alias in (cls.name, cls.display_name, *cls.aliases):
                self.set_names.setdefault(_norm(alias), cls)

    def candidates(self) -> list[str]:
        out = [o.name for o in self.match.values()]
        if self.rule_set is not None:
            return out + [o.name for o in self.by_set[self.rule_set.name].values()]
        for specs in self.by_set.values():
            out += [o.name for o in specs.values()]
        return out

    def find(self, typed: str) -> Option:
        prefix, dot, rest = typed.partition(".")
        if dot:
            cls = self.set_names.get(_norm(prefix))
            if cls is None:
                names = ", ".join(c.name for c in self.rule_sets)
                raise OptionError(
                    _("{text} before the dot is not a rule set (rule sets: {names})").format(
                        text=repr(_clip(prefix)), names=names
                    )
                )
            return self._in_set(cls, rest)
        key = _norm(typed)
        if key in self.match:
            return self.match[key]
        if self.rule_set is not None and key in self.by_set[self.rule_set.name]:
            return self.by_set[self.rule_set.name][key]
        owners = [cls for cls in self.rule_sets if key in self.by_set[cls.name]]
        if self.rule_set is not None and owners:
            raise self._elsewhere(owners[0], self.by_set[owners[0].name][key].name)
        if len(owners) == 1:
            return self.by_set[owners[0].name][key]
        if owners:
            spelled = [f"{c.name}.{typed}" for c in owners]
            raise OptionError(
                _("{option} is an option of several rule sets: write {spelled}").format(
                    option=repr(typed),
                    spelled=_("{items} or {last}").format(items=", ".join(spelled[:-1]), last=spelled[-1])
                    if len(spelled) > 1
                    else spelled[0],
                )
            )
        raise OptionError(self._unknown(typed))

    def _in_set(self, cls: type[Variant], typed: str) -> Option:
        if self.rule_set is not None and cls is not self.rule_set:
            raise self._elsewhere(cls, typed)
        found = self.by_set[cls.name].get(_norm(typed))
        if found is None:
            have = ", ".join(o.name for o in self.by_set[cls.name].values())
            if not have:
                raise OptionError(
                    _("{rule_set} has no option {option} (its options: none)").format(
                        rule_set=_local(cls), option=repr(_clip(typed))
                    )
                )
            raise OptionError(
                _("{rule_set} has no option {option} (its options: {options})").format(
                    rule_set=_local(cls), option=repr(_clip(typed)), options=have
                )
            )
        return found

    def _elsewhere(self, owner: type[Variant], name: str) -> OptionError:
        assert self.rule_set is not None
        return OptionError(
            _("{option} is a {owner} option, and this is {rule_set}: choose the rule set {key} to use it").format(
                option=name, owner=_local(owner), rule_set=_local(self.rule_set), key=owner.name
            )
        )

    def _unknown(self, typed: str) -> str:
        names = self.candidates()
        close = difflib.get_close_matches(_norm(typed), {_norm(n): n for n in names}, n=1, cutoff=0.6)
        if close:
            best = next(n for n in names if _norm(n) == close[0])
            return _("unknown option {option} — did you mean {best}?").format(
                option=repr(_clip(typed)), best=repr(best)
            )
        if _norm(typed) in NOT_OPTIONS:
            return _("{option} is not an option here: the match length is given apart (0 for money play)").format(
                option=typed
            )
        return _("unknown option {option}; options: {options}").format(
            option=repr(_clip(typed)), options=", ".join(names)
        )


def _local(cls: type[Variant]) -> str:
    """A rule set's name as players read it, in the active language."""
    return _(cls.display_name) if cls.display_name else cls.name


def parse(
    given: str | Mapping[str, Any] | Chosen | None,
    rule_sets: Sequence[type[Variant]] = (),
    *,
    rule_set: type[Variant] | None = None,
    lenient: bool = False,
) -> Chosen:
    """Read options: an options string, or a mapping of names (``rule_set.option`` too) to values.

    With ``rule_set`` (a challenge), a rule-set option is that rule set's; without it (a server's defaults), it is
    the one rule set of ``rule_sets`` that has it. ``lenient`` skips what cannot be read (stored defaults written by
    an older version) instead of refusing it.
    """
    if given is None:
        return EMPTY
    if isinstance(given, Chosen):
        given = given.to_data()
    names = _Names(rule_sets, rule_set)
    pairs: list[tuple[str, Any, bool]] = []  # (name, value, written without a value)
    if isinstance(given, str):
        if len(given) > MAX_TEXT:
            raise OptionError(
                _("that options text is {length} characters long; at most {limit} are read").format(
                    length=len(given), limit=MAX_TEXT
                )
            )
        for name, value in _tokens(given):
            pairs.append((name, value, value is None))
    else:
        pairs = [(str(k), v, False) for k, v in given.items()]
    match: dict[str, Any] = {}
    rules: dict[str, dict[str, Any]] = {}
    seen: dict[str, str] = {}
    for typed, raw, bare in pairs:
        try:
            opt, value = _one(names, typed, raw, bare)
        except OptionError:
            if lenient:
                continue
            raise
        if opt.key in seen:
            if lenient:
                continue
            if seen[opt.key] != typed:
                raise OptionError(
                    _("{option} is given twice ({first} and {second}): give each option once").format(
                        option=opt.name, first=seen[opt.key], second=typed
                    )
                )
            raise OptionError(_("{option} is given twice: give each option once").format(option=opt.name))
        seen[opt.key] = typed
        if opt.rule_set is None:
            match[opt.name] = value
        else:
            rules.setdefault(opt.rule_set, {})[opt.name] = value
    return Chosen(match, rules)


def _one(names: _Names, typed: str, raw: Any, bare: bool) -> tuple[Option, Any]:
    if not typed.strip():
        raise OptionError(_("an option is missing its name before ={value}").format(value=_clip(str(raw))))
    negated = False
    try:
        opt = names.find(typed)
    except OptionError:
        stripped = re.sub(r"^no[-_]", "", typed, flags=re.IGNORECASE)
        if not bare or stripped == typed:
            raise
        opt, negated = names.find(stripped), True
        if opt.kind != "bool":
            raise OptionError(
                _("{option} is {accepts}: write {option}=VALUE").format(option=opt.name, accepts=opt.accepts())
            ) from None
    if bare:
        if opt.kind != "bool":
            example = opt.choices[0] if opt.choices else format_value(opt, opt.default)
            raise OptionError(
                _("{option} needs a value, {accepts}: like {option}={example}").format(
                    option=opt.name, accepts=opt.accepts(), example=example
                )
            )
        return opt, not negated
    return opt, read_value(opt, raw)


# --- checking them together -----------------------------------------------------------------------------------
def _words(exc: BaseException) -> str:
    """An engine message as players read it: one line, without references to documents."""
    text = re.sub(r"\s*\((?:see )?rules\.md[^)]*\)", "", str(exc))
    text = re.sub(r"\s*rules\.md\s*§[\d.]+", "", text)
    return " ".join(text.split())


def _fit(
    cls: type[Variant], length: int, match: Mapping[str, Any], rules: Mapping[str, Any], strict: Iterable[str] = ()
) -> tuple[MatchOptions, dict[str, Any]]:
    """MatchOptions and rule-set options that work together, or OptionError naming the first problem; ``strict``:
    the options given on purpose, refused also where they could never apply."""
    try:
        opts = MatchOptions(length=length, **match)
        opts.check()
        variant = cls(**rules)
    except (MatchOptionError, TypeError, ValueError) as exc:
        raise OptionError(_words(exc)) from None
    if opts.holland and not opts.money and not opts.crawford:
        raise OptionError(
            _(
                "the Holland rule applies after the Crawford game, so it needs the Crawford rule: "
                "turn crawford on, or leave holland out"
            )
        )
    cube = variant.uses_cube and opts.cube and opts.max_cube >= 2
    if not cube:
        for name in CUBE_RULES:
            if getattr(opts, name, False):
                if not variant.uses_cube:
                    text = _("{option} needs the doubling cube, but {rule_set} is played without it")
                elif not opts.cube:
                    text = _("{option} needs the doubling cube, but cube is off")
                else:
                    text = _("{option} needs the doubling cube, but max_cube=1 allows no double")
                raise OptionError(text.format(option=name, rule_set=_local(cls)))
    if opts.team_choice and cls.team_size < 2:
        raise OptionError(
            _("{rule_set} is played one against one: choosing the acting member is for team rule sets").format(
                rule_set=_local(cls)
            )
        )
    specs = {o.name: o for o in _match_specs()}
    for name in strict:
        opt = specs.get(name)
        if opt is None or match.get(name) == opt.default:
            continue  # an option left at its default changes nothing, wherever it is given
        if opt.scope == "money" and not opts.money:
            raise OptionError(_("{option} is for money play, and this is a match").format(option=name))
        if opt.scope == "match" and opts.money:
            raise OptionError(_("{option} is for matches, and this is money play").format(option=name))
        needed = NEEDS.get(name)
        if needed is not None and not getattr(opts, needed, True):
            raise OptionError(
                _("{option} applies only with {needed}: add {needed}, or leave {option} out").format(
                    option=name, needed=needed
                )
            )
    return opts, dict(variant.options)


def settle(
    cls: type[Variant], length: int, chosen: Chosen, defaults: Chosen = EMPTY
) -> tuple[MatchOptions, dict[str, Any]]:
    """The match options and rule-set options of a challenge: what the player chose, checked strictly, and each
    of the server's defaults that can apply with it (a default for money play is left out of a match, one the
    player's choice contradicts is left out, and so is one that would change nothing here).

    Returns (MatchOptions, the rule-set options that differ from the rule set's defaults); OptionError names the
    first problem of the player's own choice."""
    match = dict(chosen.match)
    rules = chosen.for_rule_set(cls.name)
    _fit(cls, length, match, rules, strict=match)
    # A default that needs another (beaver_limit needs beavers) is tried after the others.
    for key, value in sorted(defaults.match.items(), key=lambda item: item[0] in NEEDS):
        if key not in match:
            try:
                _fit(cls, length, {**match, key: value}, rules, strict=[key])
                match[key] = value
            except OptionError:
                continue
    for key, value in defaults.for_rule_set(cls.name).items():
        if key not in rules:
            try:
                _fit(cls, length, match, {**rules, key: value})
                rules[key] = value
            except OptionError:
                continue
    opts, full = _fit(cls, length, match, rules, strict=chosen.match)
    changed = {k: _jsonable(v) for k, v in full.items() if _jsonable(cls.option_defaults.get(k)) != _jsonable(v)}
    return opts, changed


def check_defaults(defaults: Chosen, rule_sets: Sequence[type[Variant]], match_length: int) -> None:
    """Refuse server defaults that contradict each other. Each applies where it can (see :func:`settle`), so they are
    checked in money play (the options for money play and for both) and in a match of ``match_length`` points (those
    for matches and for both): refused if they fit no rule set there. A rule set's own options must fit that rule
    set."""
    specs = {o.name: o for o in _match_specs()}
    for cls in rule_sets:
        if cls.name in defaults.rules:
            try:
                _fit(cls, max(1, match_length), {}, defaults.for_rule_set(cls.name))
            except OptionError as exc:
                raise OptionError(_("{rule_set}: {error}").format(rule_set=_local(cls), error=exc)) from None
    for length, where, skip in ((0, "money", "match"), (max(1, match_length), "match", "money")):
        kept = {k: v for k, v in defaults.match.items() if k not in specs or specs[k].scope != skip}
        first: OptionError | None = None
        for cls in rule_sets:
            mine = {k: v for k, v in kept.items() if k != "team_choice" or cls.team_size > 1}
            try:
                _fit(cls, length, mine, defaults.for_rule_set(cls.name))
                break
            except OptionError as exc:
                first = first or exc
        else:
            if first is not None:
                if where == "money":
                    raise OptionError(_("in money play: {error}").format(error=first))
                raise OptionError(_("in matches: {error}").format(error=first))
