"""Reading ``.mat`` match files (the format is described in :mod:`engine.matfile`): a token-by-token reader, in
time linear in the length of the file, and a replay of every entry through the match state machine, so an
imported match is checked move by move, hit marks included.

It reads everything GNU Backgammon 1.07 writes: a raccoon written as a second ``Beavers``, the take of a raccoon
left blank (the next roll implies it), the doubler's take of a beaver left out, a roll followed by ``Wins`` (a
resignation after the roll), and the score lines it checks against the games before them. It also reads the
files older gammonbot versions wrote with a long play glued to the next roll (``15/911: 25/24``).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .i18n import _
from .match import (
    AcceptResignation,
    Action,
    ActionError,
    Beaver,
    Double,
    EndReason,
    EndSession,
    Forfeit,
    MatchOptionError,
    MatchOptions,
    MatchSetup,
    MatchState,
    Move,
    NameDouble,
    OpeningRoll,
    OpeningRule,
    Pass,
    Phase,
    Raccoon,
    Resign,
    Roll,
    Stage,
    Take,
    Timeout,
    apply,
    replay,
)
from .position import BAR, OFF, RESERVE
from .variant import Variant, VariantOptionError

__all__ = ["MatFileError", "MatImport", "OWN_TAGS", "read_mat", "import_mat"]

#: Entries that start at or right of this column are in the right column (GNU Backgammon's start at 33).
_RIGHT_FROM = 30
#: Match options written under their own tags (or implied by the match line); the rest go into ``Options``.
OWN_TAGS = frozenset(
    ("length", "games", "crawford", "cube", "max_cube", "jacoby", "beavers", "beaver_limit", "auto_doubles")
    + ("holland", "opening")
)
_SHOWN = 40  # longest piece of a file quoted in a message


class MatFileError(ValueError):
    """A ``.mat`` file that cannot be read or replayed; the message names the line and the problem."""


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "\u2026"


_TOKEN = re.compile(r"\S+")  # one blank-separated token (linear: no backtracking)
_DIE = frozenset("123456")
_CUBE_WORDS = {"doubles": "double", "double": "double", "beavers": "beaver", "raccoons": "raccoon"}
_ANSWER_WORDS = {"takes": "take", "take": "take", "drops": "drop", "drop": "drop", "passes": "drop"}


@dataclass
class _Entry:
    """One event of a move line: a roll and its submoves, a cube action, or ``Wins``."""

    line: int
    col: int
    kind: str  # roll, double, beaver, raccoon, take, drop, wins
    dice: tuple[int, int] = (0, 0)
    moves: list[tuple[int, int, bool]] = field(default_factory=list)
    value: int | None = None  # the cube value written, or the points won
    side: int = 0


@dataclass
class _GameText:
    line: int
    names: tuple[str, str]
    score: tuple[int, int]
    entries: list[_Entry] = field(default_factory=list)


@dataclass(frozen=True)
class MatImport:
    """A ``.mat`` file read and replayed: the setup, the actions and the state they lead to."""

    setup: MatchSetup
    actions: list[Action]
    state: MatchState


def _number(text: str, lineno: int) -> int:
    """A count or score written in the file: at most 9 digits."""
    if len(text) > 9:
        raise MatFileError(
            _("line {line}: {number} is too large a number for a match").format(line=lineno, number=_cut(text))
        )
    return int(text)


def _hit_problem(
    moves: tuple[tuple[int, int, bool], ...], made: tuple[tuple[int, int, bool], ...], lineno: int
) -> MatFileError | None:
    """Where the ``*`` marks of a play say otherwise than the board (GNU Backgammon marks every hit)."""
    for (s, t, marked), (_s, _t, hit) in zip(moves, made):
        if marked and not hit:
            return MatFileError(
                _("line {line}: {move} marks a hit, but there is no lone opposing checker on {point} to hit").format(
                    line=lineno, move=f"{s}/{t}*", point=t
                )
            )
        if hit and not marked:
            return MatFileError(
                _("line {line}: {move} hits the opposing checker on {point}: write it {marked}").format(
                    line=lineno, move=f"{s}/{t}", point=t, marked=f"{s}/{t}*"
                )
            )
    return None


def _is_roll(tok: str) -> bool:
    return len(tok) >= 3 and tok[0] in _DIE and tok[1] in _DIE and tok[2] == ":"


def _read_tags(line: str, tags: dict[str, str]) -> None:
    """``[Name "value"]`` tags of a comment line, found by a forward scan."""
    pos = 0
    while True:
        start = line.find("[", pos)
        q1 = line.find('"', start + 1) if start >= 0 else -1
        q2 = line.find('"', q1 + 1) if q1 >= 0 else -1
        end = line.find("]", q2 + 1) if q2 >= 0 else -1
        if end < 0:
            return
        key = " ".join(line[start + 1 : q1].lower().split())
        if key:
            tags[key] = line[q1 + 1 : q2]
        pos = end + 1


def _score_line(line: str, lineno: int) -> tuple[tuple[str, str], tuple[int, int]]:
    """`` name0 : score0   name1 : score1`` (a comma in a name starts a rating, as GamesGrid writes)."""
    bad = MatFileError(_("line {line}: expected the score line 'name : score   name : score'").format(line=lineno))
    a = line.find(":")
    rest = line[a + 1 :].lstrip() if a >= 0 else ""
    i = 0
    while i < len(rest) and rest[i].isdecimal():
        i += 1
    b = rest.find(":", i)
    tail = rest[b + 1 :].strip() if b >= 0 else ""
    if a < 0 or not i or b < 0 or not tail.isdecimal() or not rest[i : i + 1].isspace():
        raise bad
    names = (line[:a].split(",")[0].strip(), rest[i:b].split(",")[0].strip())
    return names, (_number(rest[:i], lineno), _number(tail, lineno))


def _submove(tok: str, lineno: int) -> tuple[int, int, bool]:
    hit = tok.endswith("*")
    src, slash, dst = (tok[:-1] if hit else tok).partition("/")
    points = []
    for part in (src, dst):
        word = part.lower()
        if word in ("bar", "off", "in"):
            points.append(BAR if word == "bar" else OFF if word == "off" else RESERVE)
        elif 1 <= len(part) <= 2 and part.isdecimal():
            points.append(int(part))
        else:
            raise MatFileError(
                _("line {line}: cannot read {text}: a submove is FROM/TO, e.g. 13/7 or 25/21*").format(
                    line=lineno, text=repr(_cut(tok))
                )
            )
    s, t = points
    if not slash or not (OFF <= t < s <= BAR or (s == RESERVE and OFF < t < BAR)):
        raise MatFileError(
            _("line {line}: {text} is not a submove (points 25 = bar to 0 = off, high to low; in = entering)").format(
                line=lineno, text=_cut(tok)
            )
        )
    return s, t, hit


def _line_entries(line: str, lineno: int) -> list[_Entry]:
    """The entries of one move line, each with its side (left column: side 0)."""
    i = len(line) - len(line.lstrip())
    j = i
    while j < len(line) and line[j].isdecimal():
        j += 1
    body = j + 1 if j > i and line[j : j + 1] == ")" else 0
    toks = [(m.start(), m.group()) for m in _TOKEN.finditer(line, body)]
    entries: list[_Entry] = []
    k = 0
    while k < len(toks):
        col, tok = toks[k]
        k += 1
        low = tok.lower()
        if _is_roll(tok) or "/" in tok:
            if _is_roll(tok):
                entries.append(_Entry(lineno, col, "roll", (int(tok[0]), int(tok[1]))))
                tok, col = tok[3:], col + 3
            if not tok:
                continue
            # An export of an older gammonbot could glue the next roll to a long play: "15/911: 25/24".
            glued = len(tok) > 3 and _is_roll(tok[-3:])
            if not entries or entries[-1].kind != "roll":
                raise MatFileError(
                    _("line {line}: {text} is not after a roll").format(line=lineno, text=repr(_cut(tok)))
                )
            entries[-1].moves.append(_submove(tok[:-3] if glued else tok, lineno))
            if glued:
                entries.append(_Entry(lineno, col + len(tok) - 3, "roll", (int(tok[-3]), int(tok[-2]))))
        elif low in _CUBE_WORDS:
            value = None
            if k < len(toks) and toks[k][1].startswith("=>"):
                arrow = toks[k][1][2:]
                k += 1
                if not arrow and k < len(toks) and toks[k][1].isdecimal():
                    arrow = toks[k][1]
                    k += 1
                if not arrow.isdecimal():
                    raise MatFileError(
                        _("line {line}: {word} => needs the new cube value, e.g. {word} => 2").format(
                            line=lineno, word=tok
                        )
                    )
                value = _number(arrow, lineno)
            entries.append(_Entry(lineno, col, _CUBE_WORDS[low], value=value))
        elif low in _ANSWER_WORDS:
            entries.append(_Entry(lineno, col, _ANSWER_WORDS[low]))
        elif low in ("wins", "win"):
            if k >= len(toks) or not toks[k][1].isdecimal():
                raise MatFileError(
                    _("line {line}: 'Wins' needs the points won, e.g. Wins 2 points").format(line=lineno)
                )
            entries.append(_Entry(lineno, col, "wins", value=_number(toks[k][1], lineno)))
            k += 1
            for word in ("points", "and", "the", "match"):  # "Wins 1 point", XG: "... and the match"
                if k < len(toks) and toks[k][1].lower() in (word, "point"):
                    k += 1
        else:
            raise MatFileError(_("line {line}: cannot read {text}").format(line=lineno, text=repr(_cut(tok))))
    for n, entry in enumerate(entries):
        if entry.col >= _RIGHT_FROM:
            entry.side = 1
        elif n == 0:
            entry.side = 0
        else:
            # GNU Backgammon writes "43:       Wins 2 points" when the player not on roll resigned after the
            # roll: the Wins is the roller's. Otherwise a second entry left of column 30 is a narrow right column.
            prev = entries[n - 1]
            entry.side = 0 if entry.kind == "wins" and prev.kind == "roll" and not prev.moves else 1
    return entries


def _parse(text: str) -> tuple[dict[str, str], int, list[_GameText]]:
    tags: dict[str, str] = {}
    length: int | None = None
    games: list[_GameText] = []
    expect_score = False
    for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.rstrip()
        words = line.split(None, 3)
        if not words:
            continue
        if words[0][0] in ";#":
            _read_tags(line, tags)
            continue
        if length is None:
            if len(words) != 3 or not words[0].isdecimal() or [w.lower() for w in words[1:]] != ["point", "match"]:
                raise MatFileError(
                    _("line {line}: expected '<N> point match', got {text}").format(
                        line=lineno, text=repr(_cut(line.strip()))
                    )
                )
            length = _number(words[0], lineno)
            continue
        if len(words) == 2 and words[0].lower() == "game" and words[1].isdecimal():
            games.append(_GameText(lineno, ("", ""), (0, 0)))
            expect_score = True
            continue
        if not games:
            raise MatFileError(
                _("line {line}: expected ' Game 1', got {text}").format(line=lineno, text=repr(_cut(line.strip())))
            )
        if expect_score:
            games[-1].names, games[-1].score = _score_line(line, lineno)
            expect_score = False
            continue
        games[-1].entries.extend(_line_entries(line, lineno))
    if expect_score:
        raise MatFileError(
            _("line {line}: game {game} has no score line 'name : score   name : score'").format(
                line=games[-1].line, game=len(games)
            )
        )
    if length is None:
        raise MatFileError(_("no '<N> point match' line: this is not a .mat file"))
    if not games and "sessionend" not in tags:
        raise MatFileError(_("the file holds no games"))
    return tags, length, games


def _find_variant(name: str | None, rule_set: str | None, options: str | None) -> Variant:
    from .plugins import UnknownVariant, find_variant, registry

    cls: type[Variant] | None = None
    reg = registry()
    if rule_set:
        try:
            cls = find_variant(rule_set)
        except UnknownVariant:
            if name is None:
                raise MatFileError(_("{tag} is not a rule set here").format(tag=f'[RuleSet "{rule_set}"]')) from None
    if cls is None and (name is None or name.strip().lower() in ("", "standard", "backgammon")):
        cls = find_variant("backgammon")
    key = (name or "").strip().lower()
    for found in reg.variants.values():
        if cls is None and found.mat_variation and found.mat_variation.lower() == key:
            cls = found
    if cls is None:
        known = ", ".join(["Backgammon", *sorted(c.mat_variation for c in reg.variants.values() if c.mat_variation)])
        raise MatFileError(
            _("{tag} is not a rule set here (known variations: {known})").format(
                tag=f'[Variation "{name}"]', known=known
            )
        )
    try:
        return cls(**_read_options(options or "", dict(cls.option_defaults), "RuleSetOptions"))
    except VariantOptionError as exc:
        raise MatFileError(f"[RuleSetOptions]: {exc}") from None


def _read_options(text: str, defaults: dict[str, Any], tag: str) -> dict[str, Any]:
    """``name=value`` pairs, each read as the type of its default."""
    out: dict[str, Any] = {}
    for pair in text.split():
        key, _eq, value = pair.partition("=")
        if key not in defaults:
            raise MatFileError(
                _("{tag}: there is no option {option} (options: {options})").format(
                    tag=f"[{tag}]", option=repr(key), options=", ".join(sorted(defaults))
                )
            )
        default = defaults[key]
        try:
            if isinstance(default, bool):
                if value.lower() not in ("on", "off"):
                    raise ValueError(value)
                out[key] = value.lower() == "on"
            elif isinstance(default, Enum | int | str):
                out[key] = type(default)(value)
            else:
                out[key] = tuple(int(v) for v in value.split(",") if v)
        except ValueError:
            raise MatFileError(
                _("{tag}: {option}={value} is not a value this option takes").format(
                    tag=f"[{tag}]", option=key, value=repr(value)
                )
            ) from None
    return out


def _on(value: str) -> bool:
    return value.strip().lower() in ("on", "yes", "true", "1")


def _setup(tags: dict[str, str], length: int, games: list[_GameText]) -> MatchSetup:
    variant = _find_variant(tags.get("variation"), tags.get("ruleset"), tags.get("rulesetoptions"))
    # GNU Backgammon writes no Beaver tag: a money file with a beaver in it was played with beavers.
    redoubled = any(e.kind in ("beaver", "raccoon") for g in games for e in g.entries)
    # Nor a cube or beaver limit: no smaller than what the file holds.
    chain = longest = 0
    top = 64
    for entry in (e for g in games for e in g.entries):
        chain = chain + 1 if entry.kind in ("beaver", "raccoon") else 0
        longest = max(longest, chain)
        if entry.kind in ("double", "beaver", "raccoon") and entry.value:
            top = max(top, 1 << (entry.value - 1).bit_length())
    names = games[0].names if games else (tags.get("player 1", "Player 1"), tags.get("player 2", "Player 2"))
    if variant.team_size > 1:
        sides = tuple(tuple(part.strip() for part in n.split("&")) for n in names)
    else:
        sides = ((names[0],), (names[1],))
    try:
        cube_limit = int(tags.get("cubelimit", str(top)))
        money = length == 0
        options = MatchOptions(
            length=length,
            games=int(tags.get("games", "0")) if money else 0,
            crawford=_on(tags.get("crawford", "On")) if length else True,
            cube=cube_limit > 1,
            max_cube=min(max(cube_limit, 1), 1 << 15) if cube_limit > 1 else 64,
            jacoby=_on(tags.get("jacoby", "Off")) if money else False,
            beavers=money and (_on(tags["beaver"]) if "beaver" in tags else redoubled),
            beaver_limit=int(tags.get("beaverlimit", str(max(3, longest)))),
            auto_doubles=int(tags.get("autodoubles", "0")) if money else 0,
            holland=_on(tags.get("holland", "Off")) if length else False,
            opening=OpeningRule(tags.get("opening", "ibf").strip().lower()),
        )
        defaults = {f.name: getattr(options, f.name) for f in dataclasses.fields(options) if f.name not in OWN_TAGS}
        options = dataclasses.replace(options, **_read_options(tags.get("options", ""), defaults, "Options"))
        setup = MatchSetup(variant, (sides[0], sides[1]), options, names)
        setup.check()
    except (MatchOptionError, ValueError) as exc:
        if isinstance(exc, MatFileError):
            raise
        raise MatFileError(_("the header describes a match that cannot be played: {error}").format(error=exc)) from None
    return setup


def read_mat(text: str) -> MatImport:
    """Read ``.mat`` text and replay it; :class:`MatFileError` names the line and the problem (an unreadable
    line, or a recorded action the rules do not allow)."""
    tags, length, games = _parse(text)
    # GNU Backgammon writes neither a Jacoby nor a Crawford tag: it plays money with the Jacoby rule by default
    # and may play a match without the Crawford rule. Where the tag is missing, the other reading is tried too.
    other = {"jacoby": "On"} if not length and "jacoby" not in tags else {}
    if length and "crawford" not in tags:
        other = {"crawford": "Off"}
    try:
        return _replay(_setup(tags, length, games), tags, games)
    except MatFileError as exc:
        if not other:
            raise
        first = exc
    try:
        return _replay(_setup({**tags, **other}, length, games), tags, games)
    except MatFileError:
        raise first from None


def _replay(setup: MatchSetup, tags: dict[str, str], games: list[_GameText]) -> MatImport:
    player = _Importer(setup)
    for k, game in enumerate(games):
        player.game(game, last=k == len(games) - 1)
    if "sessionend" in tags:
        player.end_session(tags["sessionend"])
    return MatImport(player.setup, player.actions, player.state)


def import_mat(text: str) -> tuple[MatchSetup, list[Action]]:
    """Read ``.mat`` text into a setup and the action list that replays it (see :func:`read_mat`)."""
    done = read_mat(text)
    return done.setup, done.actions


class _Importer:
    """Replays the entries of a .mat file through the state machine, collecting the actions."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.state: MatchState = replay(setup, ())
        self.actions: list[Action] = []
        self.before_move: tuple[MatchState, int] | None = None  # the state before the last Move, and its index

    def do(self, action: Action, lineno: int) -> None:
        try:
            self.state = apply(self.state, action)
        except ActionError as exc:
            if lineno:
                raise MatFileError(_("line {line}: {error}").format(line=lineno, error=exc)) from None
            raise MatFileError(f"[SessionEnd]: {exc}") from None
        self.actions.append(action)

    def game(self, text: _GameText, last: bool) -> None:
        state = self.state
        if state.over:
            raise MatFileError(_("line {line}: a game after the match has ended").format(line=text.line))
        if state.begun:
            raise MatFileError(
                _("line {line}: game {game} before it has no result (no 'Wins' line)").format(
                    line=text.line, game=state.game
                )
            )
        if text.score != state.score:
            raise MatFileError(
                _("line {line}: the score line says {written}, but the games before it give {score}").format(
                    line=text.line + 1,
                    written=f"{text.score[0]}-{text.score[1]}",
                    score=f"{state.score[0]}-{state.score[1]}",
                )
            )
        number = len(state.results) + 1
        first = text.entries[:2]
        shape = [(e.kind, e.side, e.line, bool(e.moves)) for e in first]
        if len(shape) == 2 and shape[0] == ("roll", 0, shape[1][2], False) and shape[1][:2] == ("wins", 0):
            # GNU Backgammon 1.07 writes the first roll of a game in the left column even when the right player
            # threw it ("  1) 52:       Wins 3 points": he rolled and resigned); the Wins column is the winner's.
            first[0].side = 1
        for entry in text.entries:
            state = self.state
            lineno, side = entry.line, entry.side
            by = state.acting_member(side)
            kind = entry.kind
            if kind == "roll":
                self.roll(entry, by)
            elif kind == "wins":
                assert entry.value is not None
                if len(state.results) >= number:
                    got = state.results[number - 1]
                    # GNU Backgammon writes a gammon's points even where the Jacoby rule made it a single game.
                    jacoby = self.setup.options.jacoby and got.reason is EndReason.BORNE_OFF and got.level == 1
                    jacoby = jacoby and entry.value in (2 * got.cube, 3 * got.cube)
                    if got.winner != side or (got.points != entry.value and not jacoby):
                        who = text.names[side] or _("side {number}").format(number=side + 1)
                        raise MatFileError(
                            _(
                                "line {line}: the file says {player} wins {points}, but the moves give {winner} {won}"
                            ).format(
                                line=lineno,
                                player=who,
                                points=entry.value,
                                winner=self.setup.side_name(got.winner),
                                won=got.points,
                            )
                        )
                    continue
                self.finish(side, entry.value, lineno, final=last and entry is text.entries[-1])
            elif kind in ("take", "drop"):
                self.do(Take(by) if kind == "take" else Pass(by), lineno)
            else:
                self.cube(entry, by)

    def cube(self, entry: _Entry, by: str) -> None:
        state = self.state
        if entry.kind == "double":
            self._starts(entry.side, entry.line)
            action: Action = Double(by)
            value = state.cube.value * 2
        else:
            # GNU Backgammon writes a raccoon as a second "Beavers".
            redoubled = state.phase is Phase.DOUBLED and state.redoubles > 0
            action = Raccoon(by) if entry.kind == "raccoon" or redoubled else Beaver(by)
            value = state.cube.value * 4
        self.do(action, entry.line)
        if entry.value is not None and entry.value != value:
            said = {
                Double: _(
                    "line {line}: the file says the cube goes to {written}, but this double turns it to {value} "
                    "(automatic doubles are not recorded in .mat files)"
                ),
                Beaver: _(
                    "line {line}: the file says the cube goes to {written}, but this beaver turns it to {value} "
                    "(automatic doubles are not recorded in .mat files)"
                ),
                Raccoon: _(
                    "line {line}: the file says the cube goes to {written}, but this raccoon turns it to {value} "
                    "(automatic doubles are not recorded in .mat files)"
                ),
            }[type(action)]
            raise MatFileError(said.format(line=entry.line, written=entry.value, value=value))

    def roll(self, entry: _Entry, by: str) -> None:
        d, side, lineno = entry.dice, entry.side, entry.line
        moves = tuple(entry.moves)
        self._starts(side, lineno)
        if self.state.phase is Phase.OPENING:
            if d[0] == d[1]:
                raise MatFileError(
                    _("line {line}: an opening roll cannot be a doublet ({roll})").format(
                        line=lineno, roll=f"{d[0]}{d[1]}"
                    )
                )
            hi, lo = max(d), min(d)
            self.do(OpeningRoll(by, (hi, lo) if side == 0 else (lo, hi)), lineno)
        elif self.state.phase is Phase.NAME_DOUBLE:
            if d[0] != d[1]:
                raise MatFileError(
                    _("line {line}: here the player names a doublet to play, not {roll}").format(
                        line=lineno, roll=f"{d[0]}{d[1]}"
                    )
                )
            self.do(NameDouble(by, d[0]), lineno)
        elif self.state.phase is Phase.MOVE and self.state.stage in (Stage.FIXED, Stage.HANDED):
            # A stage whose dice the rule set fixed (a cascade's next doublet, dice handed over): nothing is thrown.
            fixed = self.state.dice
            if fixed is None or sorted(d) != sorted(fixed) or self.state.roller != side:
                raise MatFileError(
                    _("line {line}: here the rules give {player} the dice {dice}, not {roll}").format(
                        line=lineno,
                        player=self.state.setup.side_name(self.state.roller or 0),
                        dice=f"{fixed[0]}{fixed[1]}" if fixed else "",
                        roll=f"{d[0]}{d[1]}",
                    )
                )
        else:
            self._implied_take(lineno)
            self.do(Roll(by, d), lineno)
        state = self.state
        if state.phase is Phase.MOVE and state.roller == side:
            if moves:
                self.before_move = (self.state, len(self.actions))
                self._play(by, moves, lineno)
            # no moves although some are legal: GNU Backgammon reads this as a roll followed by a resignation
        elif moves:
            raise MatFileError(
                _("line {line}: {roll} has no legal play, but the file lists moves").format(
                    line=lineno, roll=f"{d[0]}{d[1]}"
                )
            )

    def _starts(self, side: int, lineno: int) -> None:
        """Reroll opening: the file keeps the starter's first roll or double, not the throw that decided who starts."""
        rerolls = self.setup.options.opening in (OpeningRule.REROLL, OpeningRule.WINNER_REROLL)
        if self.state.phase is Phase.OPENING and rerolls:
            self.do(OpeningRoll(self.state.acting_member(side), (2, 1) if side == 0 else (1, 2)), lineno)

    def _play(self, by: str, moves: tuple[tuple[int, int, bool], ...], lineno: int) -> None:
        """The play in the order written, else (as older exports sorted the submoves) in the first order of the same
        submoves that is legal and hits where the file marks hits; refused with what is wrong with the order written.
        """
        refusal: MatFileError | None = None
        orders = dict.fromkeys(itertools.permutations(moves) if len(moves) <= 4 else ())
        for order in (moves, *(o for o in orders if o != moves)):
            try:
                after = apply(self.state, Move(by, order))
            except ActionError as exc:
                refusal = refusal or MatFileError(_("line {line}: {error}").format(line=lineno, error=exc))
                continue
            assert after.last_move is not None
            problem = _hit_problem(order, after.last_move[2], lineno)
            if problem is None:
                self.state = after
                self.actions.append(Move(by, order))
                return
            refusal = refusal or problem
        assert refusal is not None
        raise refusal

    def _implied_take(self, lineno: int) -> None:
        """After a beaver or raccoon GNU Backgammon writes no take (or a blank one): the next roll implies it."""
        state = self.state
        if state.phase is Phase.DOUBLED and state.redoubles > 0 and state.responder is not None:
            self.do(Take(state.acting_member(state.responder)), lineno)

    def finish(self, winner: int, points: int, lineno: int, final: bool) -> None:
        """A game won without bearing off or a pass: a resignation, or else a timeout or (ending the file, as it ends
        the match) a forfeit."""
        self._implied_take(lineno)
        self._starts(1 - winner, lineno)
        state = self.state
        loser = 1 - winner
        saved = self.before_move
        if state.phase is Phase.ROLL and state.roller == winner and saved and saved[1] == len(self.actions) - 1:
            played = saved[0]
            if played.roller == loser and len(played.legal_plays()) == 1:
                # GNU Backgammon reads "roll, Wins" as a roll and a resignation, but plays a forced move first
                # and then writes the move: the resignation came after the roll, before the (only) play.
                self.state, self.actions = played, self.actions[:-1]
                state = played
        cube = state.cube.value
        by = state.acting_member(loser)
        playing = state.phase in (Phase.ROLL, Phase.MOVE, Phase.NAME_DOUBLE)
        multiple = points % cube == 0 and 1 <= points // cube <= state.variant.max_result
        if multiple and playing and state.roller == loser:
            self.do(Resign(by, points // cube), lineno)
            if self.state.phase is Phase.RESIGNED:
                self.do(AcceptResignation(self.state.acting_member(winner)), lineno)
            return
        if state.turn == loser and points == (cube if state.options.money else state.needs(winner)):
            self.do(Timeout(by), lineno)
            return
        if final and points == (cube if state.options.money else state.needs(winner)):
            self.do(Forfeit(by), lineno)
            return
        if multiple and playing:
            raise MatFileError(
                _(
                    "line {line}: the file has {loser} resign while {winner} is on roll; a resignation is offered on "
                    "one's own turn"
                ).format(line=lineno, loser=self.setup.side_name(loser), winner=self.setup.side_name(winner))
            )
        raise MatFileError(
            _(
                "line {line}: {winner} cannot win {points} points here: no resignation, timeout or forfeit gives that"
            ).format(line=lineno, winner=self.setup.side_name(winner), points=points)
        )

    def end_session(self, how: str) -> None:
        """``[SessionEnd "ended by NAME" | "forfeited by NAME" | "deadline"]``: a money session closed between games."""
        state = self.state
        kind, _by, name = how.strip().partition(" by ")
        names = [self.setup.side_name(0), self.setup.side_name(1)]
        if how.strip() == "deadline":
            self.do(EndSession(state.acting_member(0), deadline=True), 0)
        elif kind in ("ended", "forfeited") and name in names:
            by = state.acting_member(names.index(name))
            self.do(EndSession(by) if kind == "ended" else Forfeit(by), 0)
        else:
            raise MatFileError(
                _('{tag}: write "ended by NAME", "forfeited by NAME" or "deadline"').format(tag=f'[SessionEnd "{how}"]')
            )
