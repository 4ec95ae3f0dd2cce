"""Match records as plain JSON-ready data: the setup and every action, losslessly.

Storage, exports and audits keep a match as ``{"setup": ..., "actions": [...]}``; :func:`load_record`
rebuilds the setup (looking the rule set up by name among the registered plugins) and the action values,
so replaying them with :func:`engine.match.replay` reproduces every state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from . import match as m
from .plugins import get_variant

__all__ = ["RecordError", "action_to_data", "action_from_data", "setup_to_data", "setup_from_data"]

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
        m.Timeout,
        m.Forfeit,
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
        raise RecordError(f"unknown action type {kind!r}")
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
        raise RecordError(f"bad {kind} action {dict(data)!r}: {exc}") from None
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
        variant = get_variant(str(data["variant"]), **dict(data.get("variant_options") or {}))
        options = m.MatchOptions(**dict(data.get("options") or {}))  # it reads its enums' text forms
        sides = data["sides"]
        names = data.get("names")
        return m.MatchSetup(
            variant,
            (tuple(sides[0]), tuple(sides[1])),
            options,
            None if names is None else (str(names[0]), str(names[1])),
        )
    except (KeyError, TypeError, IndexError) as exc:
        raise RecordError(f"not a match setup: {exc}") from None


def actions_from_data(items: Iterable[Mapping[str, Any]]) -> list[m.Action]:
    return [action_from_data(item) for item in items]
