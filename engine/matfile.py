"""``.mat`` match files (Jellyfish / GNU Backgammon "match text", rules.md §6.5): export and import.

Export writes what GNU Backgammon's own ``export match mat`` writes: a header of ``; [Tag "value"]`` lines,
``<N> point match`` (0 = a money session), and per game ``Game k``, the score line and numbered move lines,
side 0 in the left column and side 1 in the right. A line is ``%3d) `` + the left entry padded to 27
characters + a blank + the right entry, so an entry always ends with a blank, however long. Entries are
``dd: <submoves>`` (plain form in the order the checkers were moved, mover's numbering, 25 = bar, 0 = off,
``*`` on a hit or, in Plakoto, a pin; nothing after the colon = a dance), `` Doubles => v``, `` Takes``,
`` Drops``, `` Beavers => v`` (a beaver, and a raccoon too, as GNU Backgammon 1.07 and Jellyfish write it; a
raccoon that is dropped is written `` Raccoons => v``, since GNU Backgammon's importer loses the roll after a
dropped ``Beavers``), and finally ``Wins n point(s)`` in the winner's column (no line after a drawn game, which
its last play ends). As in GNU Backgammon's files, the doubler's acceptance of a beaver or raccoon is not
written: his next roll implies it.

Import (:mod:`engine.matread`) reads the same grammar, and everything GNU Backgammon 1.07 writes, back into a
setup and an action list, replaying every action through the match state machine. Dice are written high die
first, as GNU Backgammon writes them.

Tags written: ``Player 1``/``Player 2``, ``Variation`` (the rule set's ``mat_variation``), ``Crawford``
(matches), ``Jacoby`` and ``Beaver`` (money), ``CubeLimit``, and our own, which other programs keep as a
comment: ``RuleSet`` (the registered name, for rule sets other than standard backgammon), ``RuleSetOptions``
(its options that differ from their defaults, ``name=value``) and, only when set, ``BeaverLimit``,
``Holland``, ``Games``, ``AutoDoubles``, ``Opening``, ``Options`` (every other match option that differs from
its default) and ``SessionEnd`` (how a money session ended between games: ``ended by NAME``, ``forfeited by
NAME`` or ``deadline``). A name loses what would end it early: a colon becomes a full-width colon, a double
quote a single one.

Turns with extra steps (our extension; GNU Backgammon reads none of these rule sets): a checker entering from
the reserve is written ``in/22``; after a 1-2 that earns a doublet (Acey-deucey), the doublet the player names is
his next entry, written like a roll (``44: 24/20 24/20 ...``, or ``44:`` alone when it cannot be played), and a
roll again within the turn is the entry after that. A player's consecutive entries take consecutive lines of his
column, the other column left blank::

      3) 21: in/24 in/23                63: in/22 in/19
      4) 66: in/19 in/19 24/18 23/17
      5) 54: 19/14 18/14

Not representable in ``.mat`` (so not round-tripped): opening-roll ties (and the automatic doubles they
cause), the deciding throw of a non-IBF opening, rejected resignations, who threw an opening roll, and why a
game was lost on time or forfeited: such a game is written as ``Wins n points`` and read back as a
resignation when n is 1, 2 or 3 times the cube, otherwise as a timeout (or, when it ends the match early, a
forfeit) crediting n points.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .match import (
    Action,
    Beaver,
    Double,
    EndReason,
    EndSession,
    MatchOptions,
    MatchSetup,
    Move,
    NameDouble,
    OpeningRoll,
    OpeningRule,
    Pass,
    Phase,
    Raccoon,
    Roll,
    SetActing,
    Take,
    apply,
    replay,
)
from .matread import OWN_TAGS, MatFileError, MatImport, import_mat, read_mat
from .position import RESERVE

__all__ = ["MatFileError", "MatImport", "export_mat", "import_mat", "read_mat"]

_LEFT = 27  # GNU Backgammon: "%3d) %-27s " and then the right entry


def _submoves(moves: Sequence[tuple[int, int, bool]]) -> str:
    """Every submove in the order it was made: GNU Backgammon replays them in that order."""
    return " ".join(f"{'in' if s == RESERVE else s}/{t}{'*' if h else ''}" for s, t, h in moves)


def _roll_text(dice: tuple[int, int], moves: Sequence[tuple[int, int, bool]] | None) -> str:
    text = f"{max(dice)}{min(dice)}:"
    return text + " " + _submoves(moves) if moves else text


def _wins(points: int) -> str:
    return f" Wins {points} point{'s' if points != 1 else ''}"


def _name(text: str) -> str:
    """A name as a score line or tag can hold it: no colon (it ends the name), quote or line break."""
    text = " ".join(text.replace(":", "\uff1a").replace('"', "'").split())
    return "_" + text if text[:1] in (";", "#") else text or "_"


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, tuple | list | set | frozenset):
        return ",".join(str(v) for v in value)
    return str(value)


def _options_text(values: dict[str, Any], defaults: dict[str, Any]) -> str:
    return " ".join(f"{k}={_value_text(v)}" for k, v in values.items() if k in defaults and v != defaults[k])


@dataclass
class _Game:
    number: int
    score: tuple[int, int]
    entries: list[tuple[int, str]]
    wins: tuple[int, int] | None = None  # (winner, points)


def export_mat(setup: MatchSetup, actions: Sequence[Action]) -> str:
    """The ``.mat`` text of a match record (the record must replay without error)."""
    opts = setup.options
    names = (_name(setup.side_name(0)), _name(setup.side_name(1)))
    state = replay(setup, ())
    games: list[_Game] = [_Game(1, (0, 0), [])]
    pending_roll: tuple[int, tuple[int, int]] | None = None
    session_end = ""
    raccoon: tuple[_Game, int] | None = None  # where the last raccoon was written
    implied = False  # the last action was the doubler's take of a beaver or raccoon

    def flush() -> None:
        nonlocal pending_roll
        if pending_roll is not None:
            games[-1].entries.append((pending_roll[0], _roll_text(pending_roll[1], None)))
            pending_roll = None

    for action in actions:
        before = state
        state = apply(state, action)
        game = games[-1]
        if implied and isinstance(action, Roll):
            game.entries.pop()
        implied = False
        if isinstance(action, OpeningRoll | Roll | NameDouble):
            if state.phase is Phase.MOVE:
                assert state.roller is not None and state.dice is not None
                pending_roll = (state.roller, state.dice)
            elif state.last_move is not None and state.last_move is not before.last_move:
                side, dice, _ = state.last_move  # a dance: the turn passed at once
                game.entries.append((side, _roll_text(dice, None)))
        elif isinstance(action, Move):
            assert state.last_move is not None
            side, dice, moves = state.last_move
            game.entries.append((side, _roll_text(dice, moves)))
            pending_roll = None
        elif isinstance(action, Double):
            flush()
            assert before.roller is not None
            game.entries.append((before.roller, f" Doubles => {before.cube.value * 2}"))
        elif isinstance(action, Take):
            assert before.responder is not None
            game.entries.append((before.responder, " Takes"))
            # The doubler taking a beaver or raccoon is implied when his roll follows, as GNU Backgammon writes it;
            # before anything else (a resignation) it is written, or GNU Backgammon reads the redouble as pending.
            implied = before.responder == before.roller
        elif isinstance(action, Pass):
            assert before.responder is not None
            if raccoon is not None and before.redoubles > 1:
                # A dropped raccoon written "Beavers" makes GNU Backgammon's importer lose the next roll.
                side, text = raccoon[0].entries[raccoon[1]]
                raccoon[0].entries[raccoon[1]] = (side, text.replace("Beavers", "Raccoons"))
            game.entries.append((before.responder, " Drops"))
        elif isinstance(action, Beaver):
            assert before.responder is not None
            game.entries.append((before.responder, f" Beavers => {before.cube.value * 4}"))
        elif isinstance(action, Raccoon):
            assert before.responder is not None
            raccoon = (game, len(game.entries))  # written "Beavers", as GNU Backgammon and Jellyfish write it
            game.entries.append((before.responder, f" Beavers => {before.cube.value * 4}"))
        elif isinstance(action, SetActing):
            pass  # who acts for a team is not a .mat event (a team may change it after the opening roll)
        else:
            flush()
        if len(state.results) > len(before.results):
            flush()
            result = state.results[-1]
            if result.reason is not EndReason.DRAW:  # a drawn game has no "Wins" line: the moves end it
                game.wins = (result.winner, result.points)
            if not state.over:
                games.append(_Game(state.game, state.score, []))
        elif state.over and not before.over:  # a money session closed between games
            who = names[0 if getattr(action, "by", "") in setup.sides[0] else 1]
            if isinstance(action, EndSession):
                session_end = "deadline" if action.deadline else f"ended by {who}"
            else:
                session_end = f"forfeited by {who}"

    lines = [*_header(setup, names, session_end), "", f" {opts.length} point match", ""]
    for game in games:
        if not game.entries and game.wins is None:
            continue
        lines.append(f" Game {game.number}")
        lines.append(" " + f"{names[0]} : {game.score[0]}".ljust(31) + f"{names[1]} : {game.score[1]}")
        rows: list[list[str | None]] = []
        for side, text in game.entries:
            if side == 0:
                rows.append([text, None])
            elif rows and rows[-1][1] is None:
                rows[-1][1] = text
            else:
                rows.append([None, text])
        out = [f"{n:3d}) " + (left or "").ljust(_LEFT) + " " + (right or "") for n, (left, right) in enumerate(rows, 1)]
        if game.wins is not None:
            winner, points = game.wins
            if winner == 1 and rows and rows[-1][1] is None:
                out[-1] = out[-1] + _wins(points)
            elif winner == 1:
                out.append(" " * (5 + _LEFT + 1) + _wins(points))
            else:
                out.append(" " * 5 + _wins(points))
        lines.extend(line.rstrip() for line in out)
        lines.append("")
    return "\n".join(lines) + "\n"


def _header(setup: MatchSetup, names: tuple[str, str], session_end: str) -> list[str]:
    opts = setup.options
    variant = setup.variant
    header = [f'; [Player 1 "{names[0]}"]', f'; [Player 2 "{names[1]}"]']
    if variant.mat_variation:
        header.append(f'; [Variation "{variant.mat_variation}"]')
    if variant.name != "backgammon":
        header.append(f'; [RuleSet "{variant.name}"]')
    extra = _options_text(dict(variant.options), dict(variant.option_defaults))
    if extra:
        header.append(f'; [RuleSetOptions "{extra}"]')
    if opts.money:
        header.append(f'; [Jacoby "{"On" if opts.jacoby else "Off"}"]')
        header.append(f'; [Beaver "{"On" if opts.beavers else "Off"}"]')
        if opts.beavers:
            header.append(f'; [BeaverLimit "{opts.beaver_limit}"]')
        if opts.games:
            header.append(f'; [Games "{opts.games}"]')
        if opts.auto_doubles:
            header.append(f'; [AutoDoubles "{opts.auto_doubles}"]')
    else:
        header.append(f'; [Crawford "{"On" if opts.crawford else "Off"}"]')
        if opts.holland:
            header.append('; [Holland "On"]')
    if opts.opening is not OpeningRule.IBF:
        header.append(f'; [Opening "{opts.opening.value}"]')
    header.append(f'; [CubeLimit "{opts.max_cube if setup.cube_in_use else 1}"]')
    fields = {f.name: getattr(opts, f.name) for f in dataclasses.fields(opts) if f.name not in OWN_TAGS}
    extra = _options_text(fields, {k: getattr(MatchOptions(), k) for k in fields})
    if extra:
        header.append(f'; [Options "{extra}"]')
    if session_end:
        header.append(f'; [SessionEnd "{session_end}"]')
    return header
