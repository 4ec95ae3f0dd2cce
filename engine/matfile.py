"""``.mat`` match files (Jellyfish / GNU Backgammon "match text", rules.md §6.5): export and import.

Export writes what GNU Backgammon's own ``export match mat`` writes: a header of ``; [Tag "value"]`` lines,
``<N> point match`` (0 = a money session), and per game ``Game k``, the score line and numbered move lines,
side 0 in the left column and side 1 in the right, each entry either ``dd: <submoves>`` (plain form,
mover's numbering, 25 = bar, 0 = off; nothing after the colon = a dance), `` Doubles => v``, `` Takes``,
`` Drops``, `` Beavers => v``, `` Raccoons => v``, and finally ``Wins n point(s)`` in the winner's column.
As in GNU Backgammon's files, the doubler's acceptance of a beaver is not written: his next roll implies it.

Import reads the same grammar (and GNU Backgammon's and XG's files, which use it) back into a setup and an
action list, replaying every action through the match state machine, so an imported match is checked
move by move. Tags written: ``Player 1``/``Player 2``, ``Variation`` (the rule set's ``mat_variation``),
``Crawford`` (matches), ``Jacoby`` and ``Beaver`` (money), ``CubeLimit``, our own ``RuleSet`` (the
registered name, for rule sets other than standard backgammon) and, only when set, ``BeaverLimit``,
``Holland``, ``Games``, ``AutoDoubles`` and ``Opening`` (other programs keep unknown tags as a comment).

Not representable in ``.mat`` (so not round-tripped): opening-roll ties (and the automatic doubles they
cause), the deciding throw of a non-IBF opening, rejected resignations, and why a game was lost on time
or forfeited: such a game is written as ``Wins n points`` and read back as a resignation when n is 1, 2
or 3 times the cube, otherwise as a timeout (or, when it ends the match early, a forfeit) crediting n
points.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .match import (
    AcceptResignation,
    Action,
    ActionError,
    Beaver,
    Double,
    Forfeit,
    MatchOptionError,
    MatchOptions,
    MatchSetup,
    MatchState,
    Move,
    OpeningRoll,
    OpeningRule,
    Pass,
    Phase,
    Raccoon,
    Resign,
    Roll,
    SetActing,
    Take,
    Timeout,
    apply,
    replay,
)
from .notation import format_plain
from .position import BAR, OFF
from .variant import Variant

__all__ = ["MatFileError", "export_mat", "import_mat"]

_LEFT = 28  # width of the left column (GNU Backgammon: "%3d) %-28s")


class MatFileError(ValueError):
    """A ``.mat`` file that cannot be read or replayed; the message names the line and the problem."""


def _roll_text(dice: tuple[int, int], moves: Sequence[tuple[int, int, bool]] | None) -> str:
    hi, lo = max(dice), min(dice)
    text = f"{hi}{lo}:"
    if moves:
        text += " " + format_plain(moves)
    return text


def _wins(points: int) -> str:
    return f" Wins {points} point{'s' if points != 1 else ''}"


@dataclass
class _Game:
    number: int
    score: tuple[int, int]
    entries: list[tuple[int, str]]
    wins: tuple[int, int] | None = None  # (winner, points)


def export_mat(setup: MatchSetup, actions: Sequence[Action]) -> str:
    """The ``.mat`` text of a match record (the record must replay without error)."""
    opts = setup.options
    variant = setup.variant
    names = (setup.side_name(0), setup.side_name(1))
    header = [f'; [Player 1 "{names[0]}"]', f'; [Player 2 "{names[1]}"]']
    if variant.mat_variation:
        header.append(f'; [Variation "{variant.mat_variation}"]')
    if variant.name != "backgammon":
        header.append(f'; [RuleSet "{variant.name}"]')
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
    if setup.cube_in_use:
        header.append(f'; [CubeLimit "{opts.max_cube}"]')
    else:
        header.append('; [CubeLimit "1"]')

    state = replay(setup, ())
    games: list[_Game] = [_Game(1, (0, 0), [])]
    pending_roll: tuple[int, tuple[int, int]] | None = None

    def flush() -> None:
        nonlocal pending_roll
        if pending_roll is not None:
            games[-1].entries.append((pending_roll[0], _roll_text(pending_roll[1], None)))
            pending_roll = None

    for action in actions:
        before = state
        state = apply(state, action)
        game = games[-1]
        if isinstance(action, OpeningRoll | Roll):
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
            if before.responder != before.roller:
                game.entries.append((before.responder, " Takes"))
            # else: the doubler taking a beaver is implied, as GNU Backgammon writes it (his roll follows)
        elif isinstance(action, Pass):
            assert before.responder is not None
            game.entries.append((before.responder, " Drops"))
        elif isinstance(action, Beaver):
            assert before.responder is not None
            game.entries.append((before.responder, f" Beavers => {before.cube.value * 4}"))
        elif isinstance(action, Raccoon):
            assert before.responder is not None
            game.entries.append((before.responder, f" Raccoons => {before.cube.value * 4}"))
        elif isinstance(action, SetActing):
            pass  # who acts for a team is not a .mat event (a team may change it after the opening roll)
        else:
            flush()
        if len(state.results) > len(before.results):
            flush()
            result = state.results[-1]
            game.wins = (result.winner, result.points)
            if not state.over:
                games.append(_Game(state.game, state.score, []))

    lines = [*header, "", f" {opts.length} point match", ""]
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
        out = [f"{n:3d}) " + (left or "").ljust(_LEFT) + (right or "") for n, (left, right) in enumerate(rows, 1)]
        if game.wins is not None:
            winner, points = game.wins
            if winner == 1 and rows and rows[-1][1] is None:
                out[-1] = out[-1] + _wins(points)
            elif winner == 1:
                out.append(" " * 5 + " " * _LEFT + _wins(points))
            else:
                out.append(" " * 5 + _wins(points))
        lines.extend(line.rstrip() for line in out)
        lines.append("")
    return "\n".join(lines) + "\n"


# --- import --------------------------------------------------------------------------------------------------
_TAG = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9 ]*?)\s+"([^"]*)"\s*\]')
_LENGTH = re.compile(r"^\s*(\d+)\s+[Pp]oint\s+[Mm]atch\s*$")
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$")
_SCORE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(\d+)\)")
_ENTRY = re.compile(
    r"(?P<roll>[1-6][1-6]):(?P<moves>(?:\s+\d{1,2}/\d{1,2}\*?)*)"
    r"|(?P<double>Doubles)\s*=>\s*\d+"
    r"|(?P<take>Takes)"
    r"|(?P<drop>Drops|Passes)"
    r"|(?P<beaver>Beavers)\s*=>\s*\d+"
    r"|(?P<raccoon>Raccoons)\s*=>\s*\d+"
    r"|(?P<wins>Wins)\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?",
    re.IGNORECASE,
)
_SUBMOVE = re.compile(r"(\d{1,2})/(\d{1,2})(\*?)")


def _find_variant(name: str | None, rule_set: str | None = None) -> Variant:
    from .plugins import UnknownVariant, get_variant, registry

    if rule_set:
        try:
            return get_variant(rule_set)
        except UnknownVariant:
            if name is None:
                raise MatFileError(f'[RuleSet "{rule_set}"] is not a rule set here') from None

    if name is None or name.strip().lower() in ("", "standard", "backgammon"):
        return get_variant("backgammon")
    key = name.strip().lower()
    reg = registry()
    for cls in reg.variants.values():
        if cls.mat_variation and cls.mat_variation.lower() == key:
            return cls()
    have = ", ".join(sorted(c.mat_variation for c in reg.variants.values() if c.mat_variation)) or "none"
    raise MatFileError(f'[Variation "{name}"] is not a rule set here (known variations: Backgammon, {have})')


def _on(value: str) -> bool:
    return value.strip().lower() in ("on", "yes", "true", "1")


def import_mat(text: str) -> tuple[MatchSetup, list[Action]]:
    """Read ``.mat`` text into a setup and the action list that replays it; :class:`MatFileError` names the
    line and the problem (an unreadable line, or a recorded action the rules do not allow)."""
    tags: dict[str, str] = {}
    length: int | None = None
    games: list[tuple[int, tuple[str, str], list[tuple[int, int, re.Match[str]]]]] = []
    expect_score = False
    for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.lstrip().startswith((";", "#")):
            for key, value in _TAG.findall(line):
                tags[key.strip().lower()] = value
            continue
        if length is None:
            m = _LENGTH.match(line)
            if not m:
                raise MatFileError(f"line {lineno}: expected '<N> point match', got {line.strip()!r}")
            length = int(m.group(1))
            continue
        m = _GAME.match(line)
        if m:
            games.append((lineno, ("", ""), []))
            expect_score = True
            continue
        if not games:
            raise MatFileError(f"line {lineno}: expected ' Game 1', got {line.strip()!r}")
        if expect_score:
            m = _SCORE.match(line)
            if not m:
                raise MatFileError(f"line {lineno}: expected the score line 'name : score   name : score'")
            start, _, entries = games[-1]
            games[-1] = (start, (m.group(1).split(",")[0].strip(), m.group(3).split(",")[0].strip()), entries)
            expect_score = False
            continue
        body_at = 0
        m = _NUMBERED.match(line)
        if m:
            body_at = m.end()
        found = list(_ENTRY.finditer(line, body_at))
        rest = line[body_at:]
        for em in reversed(found):
            rest = rest[: em.start() - body_at] + " " * (em.end() - em.start()) + rest[em.end() - body_at :]
        if rest.strip():
            raise MatFileError(f"line {lineno}: cannot read {rest.strip()!r}")
        for k, em in enumerate(found):
            # The left column (side 0) starts at column 5; the right one at 33 (later if the left overflows).
            side = 0 if k == 0 and em.start() < 20 else 1
            games[-1][2].append((lineno, side, em))
    if expect_score:
        raise MatFileError(f"line {games[-1][0]}: game {len(games)} has no score line 'name : score   name : score'")
    if length is None:
        raise MatFileError("no '<N> point match' line: this is not a .mat file")
    if not games:
        raise MatFileError("the file holds no games")

    variant = _find_variant(tags.get("variation"), tags.get("ruleset"))
    # GNU Backgammon writes no Beaver tag: a money file with a beaver in it was played with beavers.
    redoubled = any(em.group("beaver") or em.group("raccoon") for _, _, entries in games for _, _, em in entries)
    names = games[0][1]
    if variant.team_size > 1:
        sides = tuple(tuple(part.strip() for part in n.split("&")) for n in names)
    else:
        sides = ((names[0],), (names[1],))
    try:
        cube_limit = int(tags.get("cubelimit", "64"))
    except ValueError:
        raise MatFileError(f'[CubeLimit "{tags["cubelimit"]}"] is not a number') from None
    try:
        options = MatchOptions(
            length=length,
            games=int(tags.get("games", "0")) if length == 0 else 0,
            crawford=_on(tags.get("crawford", "On")) if length else True,
            cube=cube_limit > 1,
            max_cube=min(max(cube_limit, 1), 1 << 15) if cube_limit > 1 else 64,
            jacoby=_on(tags.get("jacoby", "Off")) if length == 0 else False,
            beavers=length == 0 and (_on(tags["beaver"]) if "beaver" in tags else redoubled),
            beaver_limit=int(tags.get("beaverlimit", "3")),
            auto_doubles=int(tags.get("autodoubles", "0")) if length == 0 else 0,
            holland=_on(tags.get("holland", "Off")) if length else False,
            opening=OpeningRule(tags.get("opening", "ibf").strip().lower()),
        )
        setup = MatchSetup(variant, (sides[0], sides[1]), options, names)
        setup.check()
    except (MatchOptionError, ValueError) as exc:
        raise MatFileError(f"the header describes a match that cannot be played: {exc}") from None

    player = _Importer(setup)
    for start, gnames, entries in games:
        player.game(start, gnames, entries)
    return setup, player.actions


class _Importer:
    """Replays the entries of a .mat file through the state machine, collecting the actions."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.state: MatchState = replay(setup, ())
        self.actions: list[Action] = []

    def do(self, action: Action, lineno: int) -> None:
        try:
            self.state = apply(self.state, action)
        except ActionError as exc:
            raise MatFileError(f"line {lineno}: {exc}") from None
        self.actions.append(action)

    def game(self, start: int, gnames: tuple[str, str], entries: list[tuple[int, int, re.Match[str]]]) -> None:
        if self.state.over:
            raise MatFileError(f"line {start}: a game after the match has ended")
        number = len(self.state.results) + 1
        for lineno, side, em in entries:
            state = self.state
            by = state.acting_member(side)
            if em.group("roll"):
                self.roll(lineno, side, by, em)
            elif em.group("double"):
                self.do(Double(by), lineno)
            elif em.group("take"):
                self.do(Take(by), lineno)
            elif em.group("drop"):
                self.do(Pass(by), lineno)
            elif em.group("beaver"):
                self.do(Beaver(by), lineno)
            elif em.group("raccoon"):
                self.do(Raccoon(by), lineno)
            else:
                points = int(em.group("points"))
                if len(state.results) >= number:
                    got = state.results[number - 1]
                    if got.winner != side or got.points != points:
                        who = gnames[side] or f"side {side + 1}"
                        raise MatFileError(
                            f"line {lineno}: the file says {who} wins {points}, "
                            f"but the moves give {self.setup.side_name(got.winner)} {got.points}"
                        )
                    continue
                self.finish(side, points, lineno)

    def roll(self, lineno: int, side: int, by: str, em: re.Match[str]) -> None:
        d = (int(em.group("roll")[0]), int(em.group("roll")[1]))
        moves = tuple((int(a), int(b), bool(h)) for a, b, h in _SUBMOVE.findall(em.group("moves") or ""))
        for s, t, _ in moves:
            if not (OFF <= t < s <= BAR):
                raise MatFileError(f"line {lineno}: {s}/{t} is not a submove (points 25 = bar to 0 = off)")
        if self.state.phase is Phase.OPENING and self.setup.options.opening is OpeningRule.REROLL:
            # The file keeps only the starter's first roll; the deciding opening throw is not recorded.
            self.do(OpeningRoll(by, (2, 1) if side == 0 else (1, 2)), lineno)
        if self.state.phase is Phase.OPENING:
            if d[0] == d[1]:
                raise MatFileError(f"line {lineno}: an opening roll cannot be a doublet ({d[0]}{d[1]})")
            hi, lo = max(d), min(d)
            self.do(OpeningRoll(by, (hi, lo) if side == 0 else (lo, hi)), lineno)
        else:
            self._implied_take(side, lineno)
            self.do(Roll(by, d), lineno)
        state = self.state
        if state.phase is Phase.MOVE and state.roller == side:
            if moves:
                self.do(Move(by, moves), lineno)
            # no moves although some are legal: GNU Backgammon reads this as a roll followed by a resignation
        elif moves:
            raise MatFileError(f"line {lineno}: {d[0]}{d[1]} has no legal play, but the file lists moves")

    def _implied_take(self, side: int, lineno: int) -> None:
        """GNU Backgammon writes no "Takes" when the doubler accepts a beaver: his next action implies it."""
        state = self.state
        if state.phase is Phase.DOUBLED and state.responder == side == state.roller:
            self.do(Take(state.acting_member(side)), lineno)

    def finish(self, winner: int, points: int, lineno: int) -> None:
        """A game won without bearing off or a pass: a resignation, or else a timeout or forfeit."""
        self._implied_take(1 - winner, lineno)
        state = self.state
        loser = 1 - winner
        cube = state.cube.value
        by = state.acting_member(loser)
        if (
            points % cube == 0
            and 1 <= points // cube <= 3
            and state.phase in (Phase.ROLL, Phase.MOVE)
            and state.roller == loser
        ):
            self.do(Resign(by, points // cube), lineno)
            if self.state.phase is Phase.RESIGNED:
                self.do(AcceptResignation(self.state.acting_member(winner)), lineno)
            return
        if state.turn == loser and not state.options.money and points == state.needs(winner):
            self.do(Timeout(by), lineno)
            return
        if state.turn == loser and state.options.money and points == cube:
            self.do(Timeout(by), lineno)
            return
        if points == (cube if state.options.money else state.needs(winner)):
            self.do(Forfeit(by), lineno)
            return
        raise MatFileError(
            f"line {lineno}: {self.setup.side_name(winner)} cannot win {points} points here: no resignation, "
            "timeout or forfeit gives that"
        )
