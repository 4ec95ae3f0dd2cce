"""The console's words typed as values: players, points, proposal numbers, ``key=value`` settings and the option words
of ``play``. Each refuses what it cannot read in words (:class:`~bot.service.Refused`)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from engine.i18n import _
from engine.options import match_option_specs, rule_set_option_specs
from engine.plugins import registry

from .service import PlayerRef, Refused

__all__ = [
    "player_ref",
    "proposal_number",
    "point",
    "option_word",
    "server_changes",
    "pairs",
    "write_file",
    "typed_pairs",
    "boards_problem",
    "boards_unwritable",
]


def player_ref(name: str) -> PlayerRef:
    name = name.lstrip("@")
    return PlayerRef(name.lower(), name)


def proposal_number(args: list[str]) -> int:
    if not args or not args[0].lstrip("#").isdigit():
        raise Refused(_("adopt NUMBER: the proposal's number (proposals lists your team's)"))
    return int(args[0].lstrip("#"))


def point(text: str) -> int:
    low = text.strip().lower()
    if low in ("bar", "b"):
        return 25
    if low in ("off", "o"):
        return 0
    try:
        return int(low.rstrip("*"))
    except ValueError:
        raise Refused(_("{text} is not a point: use 1..24, bar or off").format(text=repr(text))) from None


def typed_value(text: str) -> Any:
    low = text.lower()
    if low in ("on", "true", "yes"):
        return True
    if low in ("off", "false", "no"):
        return False
    if low.lstrip("-").isdigit():
        return int(low)
    return text


def option_word(word: str) -> bool:
    """Whether a word of ``play`` names an option (``jacoby``, ``no-crawford``) rather than a rule set."""
    names = {o.name for o in match_option_specs()} | {
        o.name for cls in registry().variants.values() for o in rule_set_option_specs(cls)
    }
    key = word.lower().replace("-", "_")
    return key in names or key.removeprefix("no_") in names


def server_changes(line: str) -> dict[str, Any]:
    """``server key=value ...``: ``default_options=`` takes the rest of the line as typed (an options string such as
    ``jacoby beavers koks=on``, or a JSON object such as ``{"jacoby": true}``)."""
    words = line.split(None, 1)
    head, sep, rest = (words[1] if len(words) > 1 else "").partition("default_options=")
    changes = pairs(shlex.split(head))
    if sep:
        text = rest.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
        changes["default_options"] = text
    return changes


def pairs(args: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for word in args:
        if "=" not in word:
            raise Refused(_("write settings as key=value, not {word}").format(word=repr(word)))
        key, value = word.split("=", 1)
        out[key] = typed_value(value) if value.lower() not in ("none", "all") else None
    return out


def typed_pairs(settings: dict[str, Any]) -> str:
    """Settings as ``key=value`` the way they are typed (``autoplay=on``, ``allowed_variants=all``), never Python's
    ``True``/``None``."""

    def typed(key: str, value: Any) -> str:
        if isinstance(value, bool):
            return "on" if value else "off"
        if value is None:
            return "all" if key.startswith("allowed") else "none"
        if isinstance(value, list | tuple):
            return ",".join(str(v) for v in value)
        return str(value)

    return " ".join(f"{key}={typed(key, value)}" for key, value in settings.items())


def write_file(name: str, text: str) -> None:
    """Write ``text`` to the file ``name`` (``export FILE``), or refuse in one line naming the file and the fix."""
    path = Path(name)
    if path.is_dir():
        raise Refused(
            _("{file} is a folder: give a file name, e.g. {example}").format(file=name, example=str(path / "match.mat"))
        )
    try:
        path.write_text(text, encoding="utf-8")
    except FileNotFoundError:
        raise Refused(
            _("cannot write {file}: the folder {folder} does not exist (make it, or give another file)").format(
                file=name, folder=str(path.parent)
            )
        ) from None
    except OSError as exc:
        raise Refused(_("cannot write {file}: {reason}").format(file=name, reason=exc.strerror or exc)) from None


def boards_problem(folder: Path) -> str | None:
    """Why ``--boards FOLDER`` cannot take the boards' pictures (None when it can, or can be made)."""
    if folder.exists() and not folder.is_dir():
        return _("--boards {folder} is a file: give a folder (it is made if it does not exist)").format(
            folder=str(folder)
        )
    return None


def boards_unwritable(folder: Path, exc: OSError) -> str:
    """The one line said when the boards' folder cannot be written during a session (which goes on without them)."""
    return _("! cannot write boards to {folder}: {reason}; the session goes on without pictures").format(
        folder=str(folder), reason=exc.strerror or exc
    )
