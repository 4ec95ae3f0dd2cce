"""The ``gammonbot`` command line: run the bot, and tools for players and analysts.

Every error a user can cause is one line on standard error and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from engine import Position, PositionError, decode_position_id, encode_position_id
from engine.plugins import PluginError, UnknownVariant, get_variant, registry
from engine.variant import Variant, VariantOptionError

__all__ = ["main"]


class UsageError(Exception):
    """A problem with what the user typed; printed as one line."""


def parse_dice(text: str) -> tuple[int, int]:
    """``31``, ``3-1``, ``3,1`` or ``3 1`` as a pair of dice."""
    digits = re.sub(r"[\s,\-:]", "", text)
    if not re.fullmatch(r"\d\d", digits):
        raise UsageError(f"dice {text!r}: write two numbers from 1 to 6, like 31 or 3-1")
    a, b = int(digits[0]), int(digits[1])
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise UsageError(f"dice {text!r}: each die shows 1 to 6")
    return a, b


def _variant(name: str) -> Variant:
    try:
        return get_variant(name)
    except (UnknownVariant, VariantOptionError) as exc:
        raise UsageError(str(exc)) from None


def cmd_plays(args: argparse.Namespace, out: TextIO) -> int:
    if args.jsonl:
        return _plays_jsonl(sys.stdin, out)
    if args.position is None or args.dice is None:
        raise UsageError("give a Position ID and dice (e.g. gammonbot plays 4HPwATDgc/ABMA 31), or --jsonl")
    variant = _variant(args.variant)
    try:
        pos = decode_position_id(variant, args.position)
    except PositionError as exc:
        raise UsageError(str(exc)) from None
    dice = parse_dice(args.dice)
    plays = variant.legal_plays(pos, dice, args.first_move)
    if plays.no_move:
        out.write(f"no legal play with {dice[0]}-{dice[1]}\t{encode_position_id(variant, variant.flip(pos))}\n")
        return 0
    for play in sorted(plays, key=lambda p: p.notation):
        out.write(f"{play.notation}\t{encode_position_id(variant, variant.flip(play.position))}\n")
    return 0


def _row_error(lineno: int, message: str) -> UsageError:
    return UsageError(f"line {lineno}: {message}")


def _plays_jsonl(inp: TextIO, out: TextIO) -> int:
    variants: dict[str, Variant] = {}
    for lineno, line in enumerate(inp, 1):
        if not line.strip():
            continue
        try:
            row: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _row_error(lineno, f"not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise _row_error(lineno, "each line must be a JSON object")
        name = row.get("variant")
        if not isinstance(name, str):
            raise _row_error(lineno, 'the row has no "variant"')
        if name not in variants:
            try:
                variants[name] = get_variant(name)
            except UnknownVariant as exc:
                raise _row_error(lineno, str(exc)) from None
        variant = variants[name]
        try:
            pos = Position.from_frame(row.get("position") or {})
            variant.validate_position(pos)
        except PositionError as exc:
            raise _row_error(lineno, f"bad position: {exc}") from None
        dice = row.get("dice")
        if not (isinstance(dice, list) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
            raise _row_error(lineno, f'"dice" must be two numbers from 1 to 6, got {dice!r}')
        plays = variant.legal_plays(pos, (dice[0], dice[1]), bool(row.get("first_move", False)))
        row["plays"] = [p.position.to_frame() for p in plays]
        out.write(json.dumps(row, separators=(",", ":")) + "\n")
    return 0


def cmd_variants(args: argparse.Namespace, out: TextIO) -> int:
    reg = registry()
    for name in reg.names():
        cls = reg.variants[name]
        aliases = f" (also: {', '.join(cls.aliases)})" if cls.aliases else ""
        out.write(f"{name}: {cls.display_name}{aliases} — plugin {reg.owners[name]}\n")
    return 0


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    import os

    if not os.environ.get("DISCORD_TOKEN"):
        raise UsageError(
            "DISCORD_TOKEN is not set: create a bot token in the Discord developer portal and export it, "
            "or try the game without Discord using `gammonbot plays`"
        )
    raise UsageError("the Discord transport is not built yet (issue 7); `gammonbot plays` works today")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gammonbot", description="Backgammon for Discord servers, and its tools.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("plays", help="list every legal play for a position and roll")
    p.add_argument("position", nargs="?", help="GNU Backgammon Position ID of the position (player on roll)")
    p.add_argument("dice", nargs="?", help="the roll, e.g. 31 or 3-1")
    p.add_argument("--variant", default="backgammon", help="rule set (default: backgammon)")
    p.add_argument("--first-move", action="store_true", help="this is the roller's first turn of the game")
    p.add_argument(
        "--jsonl", action="store_true", help="read oracle-format rows from stdin and write them back with plays"
    )
    p.set_defaults(func=cmd_plays)

    p = sub.add_parser("variants", help="list the registered rule sets")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("run", help="run the Discord bot (token from DISCORD_TOKEN)")
    p.add_argument("--config", default="config.toml", help="settings file (default: config.toml)")
    p.set_defaults(func=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args, out or sys.stdout))
    except (UsageError, PluginError) as exc:
        sys.stderr.write(f"gammonbot: {exc}\n")
        return 2
    except BrokenPipeError:
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
