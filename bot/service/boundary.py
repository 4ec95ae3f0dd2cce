"""What every call of the service refuses before it runs: values no transport can mean.

Text with an unpaired surrogate (JSON may carry one: ``"\\ud800"``) or a NUL (PostgreSQL refuses it) cannot be
stored; a float that is not finite (NaN, infinity) and an integer past 64 bits are never a game's number, a length
or a count of days. Each is refused in words that name the argument, instead of failing deep inside with a
traceback.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

from engine.i18n import _

from .types import PlayerRef, Refused

__all__ = ["refuse_malformed"]

#: Integers a call may carry: what a 64-bit database column holds.
_INT_LIMIT = 2**63
#: How deep mappings and lists of an argument are looked into (options, a custom time control, settings).
_DEPTH = 4


@functools.lru_cache(maxsize=512)
def _parameters(method: Callable[..., Any]) -> tuple[str, ...]:
    try:
        return tuple(inspect.signature(method).parameters)[1:]  # without self
    except (TypeError, ValueError):
        return ()


def refuse_malformed(method: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """Raise :class:`Refused` naming the first argument of a call of ``method`` that holds text with a surrogate,
    a NaN or infinite float, or an integer past 64 bits."""
    names = _parameters(method)
    for k, value in enumerate(args):
        _check(names[k] if k < len(names) else "argument", value, 0)
    for name, value in kwargs.items():
        _check(str(name), value, 0)


def _check(what: str, value: Any, depth: int) -> None:
    if isinstance(value, str):
        bad = "\x00" if "\x00" in value else None
        if bad is None and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                bad = value[exc.start]
        if bad is not None:
            raise Refused(
                _("{what} has a character that cannot be stored ({code}): send it without that character").format(
                    what=_words(what), code=f"U+{ord(bad):04X}"
                )
            )
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not -_INT_LIMIT < value < _INT_LIMIT:
            raise Refused(_("{what} is too large a number (more than 18 digits)").format(what=_words(what)))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise Refused(_("{what} must be a finite number, not {value}").format(what=_words(what), value=value))
    elif isinstance(value, PlayerRef):
        _check(f"{what} id", value.id, depth)
        _check(f"{what} name", value.name, depth)
        _check(f"{what} server", getattr(value, "guild_id", None), depth)
    elif depth < _DEPTH and isinstance(value, Mapping):
        for key, item in value.items():
            _check(what, key, depth + 1)
            _check(f"{what} {key}" if isinstance(key, str) and key.isascii() else what, item, depth + 1)
    elif depth < _DEPTH and isinstance(value, (list, tuple)):
        for item in value:
            _check(what, item, depth + 1)


def _words(name: str) -> str:
    """An argument's name as words ("approval_seconds": "approval seconds")."""
    return name.replace("_", " ")
