"""The terms of a match in words (``/bg-info rules`` for a game), and completions of a half-typed options string.

Both work over the same option descriptions as :mod:`engine.options`: a match option or rule-set option added
later is described (by its name and value) and suggested without a change here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .i18n import N_, _, ngettext, pgettext
from .match import MatchOptionError, MatchOptions, OpeningRule, TimeoutPolicy
from .options import (
    MAX_TEXT,
    Option,
    OptionError,
    _match_specs,
    _Names,
    _norm,
    format_value,
    parse,
    read_value,
    rule_set_option_specs,
)
from .variant import Variant

__all__ = ["describe", "suggest"]

#: The match options :func:`describe` says in words of its own; any other is said as its name and value.
_SAID = frozenset(
    {
        "games", "crawford", "cube", "max_cube", "jacoby", "beavers", "beaver_limit", "auto_doubles", "holland",
        "holland_rolls", "holland_counts_opening", "holland_counts_dances", "team_choice", "auto_accept_resign",
        "timeout_policy", "opening", "session_hours", "dead_cube",
    }
)  # fmt: skip
_OPENINGS = {
    OpeningRule.IBF: N_("each side throws one die and the higher plays both numbers (ties throw again)"),
    OpeningRule.REROLL: N_("one die each decides who starts, and the starter rolls both dice afresh"),
    OpeningRule.PREVIOUS_WINNER: N_("the winner of the previous game starts by rolling both dice"),
    OpeningRule.WINNER_REROLL: N_(
        "in the first game one die each decides who starts, and the starter rolls both dice afresh; every later game "
        "is started by the winner of the game before, rolling both dice (after a draw, as in the first game)"
    ),
}
_TIMEOUTS = {
    TimeoutPolicy.IBF: N_("the side whose time runs out loses the match (in money play, the game at the cube value)"),
    TimeoutPolicy.GAME: N_("the side whose time runs out loses the game at the cube value, and play goes on"),
}


def describe(variant: Variant, opts: MatchOptions, game: int | None = None) -> list[str]:
    """The terms of a match or money session in words, one line each: length, cube rules, how games start and end,
    and the rule set's options. ``game``: the number of the game under way (a match that plays its games by other
    rule sets, Tavli, says which one it is)."""
    name = variant.local_name()
    if opts.money:
        hours = getattr(opts, "session_hours", 0)
        if opts.games:
            # Translators: the first line of a money session's terms; {ending} is empty or the next message.
            head = ngettext(
                "{rule_set} for money, a session of {count} game{ending}",
                "{rule_set} for money, a session of {count} games{ending}",
                opts.games,
            )
        else:
            # Translators: the first line of a money session's terms; {ending} is empty or the next message.
            head = _("{rule_set} for money, no set number of games{ending}")
        ending = (
            ngettext(
                ", ending between games once {hours} hour has passed",
                ", ending between games once {hours} hours have passed",
                hours,
            ).format(hours=hours)
            if hours
            else ""
        )
        lines = [head.format(rule_set=name, count=opts.games, ending=ending)]
    else:
        lines = [_("{rule_set}, a {length}-point match").format(rule_set=name, length=opts.length)]
    cycle = variant.games_cycle()
    if len(cycle) > 1:
        # Translators: joins the rule sets a match plays in turn: "Portes, then Plakoto, then Fevga".
        names = pgettext("list of games", ", then ").join(v.local_name() for v in cycle)
        if game:
            lines.append(
                _("Games: {names}, and round again; game {game} is {rule_set}").format(
                    names=names, game=game, rule_set=variant.for_game(game - 1).local_name()
                )
            )
        else:
            lines.append(_("Games: {names}, and round again").format(names=names))
    cube = variant.uses_cube and opts.cube and opts.max_cube >= 2
    lines.append(
        _("Doubling cube: in use, up to {limit}").format(limit=opts.max_cube) if cube else _("Doubling cube: not used")
    )
    if cube and not opts.money:
        lines.append(
            _("Crawford rule: on (no doubling in the game after a side reaches match point minus one)")
            if opts.crawford
            else _("Crawford rule: off")
        )
        if not getattr(opts, "dead_cube", True):
            lines.append(_("Dead cube: doubles are allowed even where they cannot gain"))
        elif hasattr(opts, "dead_cube"):
            lines.append(_("Dead cube: no double where it cannot gain (winning the game already wins the match)"))
        if opts.holland:
            opening = (
                _("the opening roll counts") if opts.holland_counts_opening else _("the opening roll does not count")
            )
            dances = (
                _("a roll with no play counts") if opts.holland_counts_dances else _("a roll with no play does not")
            )
            lines.append(
                ngettext(
                    "Holland rule: on (after the Crawford game the trailer may not double until both sides have rolled "
                    "{count} time; {opening}, {dances})",
                    "Holland rule: on (after the Crawford game the trailer may not double until both sides have rolled "
                    "{count} times; {opening}, {dances})",
                    opts.holland_rolls,
                ).format(count=opts.holland_rolls, opening=opening, dances=dances)
            )
        else:
            lines.append(_("Holland rule: off"))
    if cube and opts.money:
        lines.append(
            _("Jacoby rule: on (gammons and backgammons count single while the cube is centred)")
            if opts.jacoby
            else _("Jacoby rule: off")
        )
        if opts.beavers:
            lines.append(
                ngettext(
                    "Beavers: on (at most {count} beavers and raccoons after one double)",
                    "Beavers: on (at most {count} beavers and raccoons after one double)",
                    opts.beaver_limit,
                ).format(count=opts.beaver_limit)
            )
        else:
            lines.append(_("Beavers: off"))
        if opts.auto_doubles:
            lines.append(
                _("Automatic doubles: each opening tie doubles the cube, at most {count} a game").format(
                    count=opts.auto_doubles
                )
            )
    opening_rule = _OPENINGS.get(opts.opening)
    lines.append(_("Opening: {rule}").format(rule=_(opening_rule) if opening_rule else str(opts.opening)))
    timeouts = _TIMEOUTS.get(opts.timeout_policy)
    lines.append(_("Timeouts: {rule}").format(rule=_(timeouts) if timeouts else str(opts.timeout_policy)))
    lines.append(
        _("Resignations: accepted at once when they concede the most that could be won")
        if opts.auto_accept_resign
        else _("Resignations: always wait for the opponent's answer")
    )
    if variant.team_size > 1:
        lines.append(
            _("Acting member: each team chooses before every game")
            if opts.team_choice
            else _("Acting member: changes from game to game")
        )
    for opt in _match_specs():
        if opt.name in _SAID or opt.scope == ("match" if opts.money else "money"):
            continue
        value = getattr(opts, opt.name, opt.default)
        words = opt.words()
        lines.append(
            _("{option}: {value}").format(option=f"{words[:1].upper()}{words[1:]}", value=format_value(opt, value))
        )
    specs = rule_set_option_specs(type(variant))
    if specs:
        said = [f"{o.name.replace('_', ' ')} {format_value(o, variant.options.get(o.name))}" for o in specs]
        lines.append(_("{rule_set} options: {options}").format(rule_set=name, options="; ".join(said)))
    return lines


# --- suggestions ----------------------------------------------------------------------------------------------
_EXAMPLE_NUMBERS = (0, 1, 2, 3, 4, 5, 7, 8, 10, 16, 32, 64)


def _kw(name: str, value: Any) -> dict[str, Any]:
    return {name: value}


def _numbers(opt: Option, cls: type[Variant] | None) -> list[int]:
    """Whole numbers worth suggesting: the default, then small values the option accepts."""
    out = [opt.default] if isinstance(opt.default, int) and not isinstance(opt.default, bool) else []
    for n in _EXAMPLE_NUMBERS:
        try:
            if opt.rule_set is None:
                ok = False
                for length in (0, 1):
                    try:
                        MatchOptions(length=length, **_kw(opt.name, n)).check()
                        ok = True
                    except (MatchOptionError, TypeError, ValueError):
                        pass
            else:
                ok = cls is not None and bool(cls(**{opt.name: n}))
        except (TypeError, ValueError):
            ok = False
        if ok and n not in out:
            out.append(n)
    return out


def _values(opt: Option, cls: type[Variant] | None, typed: str) -> list[str]:
    if opt.kind == "bool":
        values = ["on", "off"]
    elif opt.kind == "choice":
        values = list(opt.choices)
    elif opt.kind == "int":
        values = [str(n) for n in _numbers(opt, cls)]
    else:
        values = [format_value(opt, opt.default)]
    if opt.optional:
        values.append("none")
    key = typed.strip().lower()
    starts = [v for v in values if v.lower().startswith(key)]
    if key and not starts:
        try:
            starts = [format_value(opt, read_value(opt, typed))]
        except OptionError:
            starts = []
    return starts


def suggest(
    text: str,
    rule_sets: Sequence[type[Variant]],
    *,
    rule_set: type[Variant] | None = None,
    money: bool | None = None,
    limit: int = 25,
    width: int = 100,
) -> list[tuple[str, str]]:
    """Completions of a half-typed options string, as (label, whole new text): at most ``limit``, none longer than
    ``width``. The last word is completed (a name, or the value after ``=``); options already given, and (with
    ``money`` known) those for the other kind of play, are left out. If what is typed before cannot be read, the
    one suggestion says why and keeps the text as it is."""
    text = text[:MAX_TEXT]
    found = re.match(r"^(.*?)(\S*)$", text, re.S)
    assert found is not None
    head, last = found[1], found[2]
    names = _Names(rule_sets, rule_set)
    try:
        used = parse(head, rule_sets, rule_set=rule_set)
    except OptionError as exc:
        return [(f"⚠ {exc}"[:width], text[:width])]
    done = set(used.match) | {f"{r}.{k}" for r, values in used.rules.items() for k in values}
    prefix = head if not head or head.endswith(" ") else head + " "
    out: list[tuple[str, str]] = []

    def add(opt: Option, token: str) -> None:
        value = prefix + token
        if len(value) <= width and len(out) < limit and value not in (v for _label, v in out):
            out.append((f"{token} — {opt.words()}"[:width], value))

    name_part, sep, value_part = re.split(r"([=:])", last, maxsplit=1) if re.search("[=:]", last) else (last, "", "")
    if sep:
        try:
            opt = names.find(name_part)
        except OptionError as exc:
            return [(f"⚠ {exc}"[:width], text[:width])]
        for value in _values(opt, rule_set, value_part):
            add(opt, f"{name_part}={value}")
        return out
    candidates = [*names.match.values()]
    for cls in names.rule_sets if rule_set is None else [rule_set]:
        candidates += names.by_set[cls.name].values()
    key = _norm(last)
    ranked = [o for o in candidates if _norm(o.name).startswith(key)]
    ranked += [o for o in candidates if key in _norm(o.name) and o not in ranked]
    for opt in ranked:
        if opt.key in done or money is not None and opt.scope == ("match" if money else "money"):
            continue
        if opt.name == "team_choice" and rule_set is not None and rule_set.team_size < 2:
            continue
        written = opt.name
        if opt.rule_set is not None and rule_set is None:
            owners = [c for c in names.rule_sets if _norm(opt.name) in names.by_set[c.name]]
            written = opt.name if len(owners) == 1 else opt.key
        if opt.kind == "bool":
            add(opt, written if not opt.default else f"{written}=off")
        elif opt.kind == "choice":
            for choice in opt.choices:
                if choice != opt.default:
                    add(opt, f"{written}={choice}")
        else:
            add(opt, f"{written}={format_value(opt, opt.default)}")
    return out
