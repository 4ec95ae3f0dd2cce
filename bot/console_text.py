"""The console's words: its help (every command with an example, move notation, the cube, resigning), the line that
says whose turn it is, and how it writes games, dice statistics and dice checks.

What a player may do now is asked of the engine (:func:`engine.controls.allowed_actions`), never decided here.
"""

from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass
from typing import Any

from engine.controls import allowed_actions
from engine.match import MatchState, Phase, Stage

from .service import GameView
from .service.helpers import listed


@dataclass(frozen=True)
class Command:
    """One console command: how it is written, an example, and what it does (one line each)."""

    name: str
    usage: str
    example: str
    what: str
    aliases: tuple[str, ...] = ()


#: Every console command, in the order the help lists them.
COMMANDS: tuple[Command, ...] = (
    Command("as", "as NAME", "as alice", "type as NAME from now on (or start one line with NAME:, e.g. bob: roll)"),
    Command(
        "play",
        "play OPPONENT|open|bot[:STRENGTH] [RULE SET] [LENGTH|money] [key=value ...]",
        "play bob backgammon 5",
        "challenge someone (open: anyone; bot: the computer); LENGTH in points, or money for a money session",
    ),
    Command(
        "play",
        "play OPPONENT doubles LENGTH teammate=NAME partner=NAME [consult=agree]",
        "play bob doubles 3 teammate=carol partner=dave",
        "Backgammon Doubles: your teammate and your opponent's partner are asked too",
    ),
    Command("accept", "accept [GAME]", "accept", "accept a challenge (everyone it names accepts) or a resignation"),
    Command("decline", "decline [GAME]", "decline 4", "decline a challenge (the challenger withdraws it this way)"),
    Command("roll", "roll [GAME]", "roll", "roll the dice (the opening roll too: either player throws it)"),
    Command("move", "move PLAY", "move 13/7 8/7", "play your whole roll at once (see help notation)"),
    Command("sub", "sub FROM/TO", "sub 13/7", "move one checker by one die; then confirm (or undo)"),
    Command("undo", "undo", "undo", "take back the last checker moved with sub"),
    Command("confirm", "confirm", "confirm", "play the checkers moved with sub"),
    Command("plays", "plays [GAME]", "plays", "list every legal play of the roll"),
    Command("hint", "hint", "hint", "the computer's best plays (in matches that allow hints: money, or against a bot)"),
    Command("double", "double [GAME]", "double", "offer the cube before rolling (see help cube)"),
    Command("name", "name N", "name 6", "Acey-deucey, after a 1-2: name the doublet to play, 1 to 6 (double 6 too)"),
    Command("take", "take [GAME]", "take", "take a double: play on for twice the stake, owning the cube"),
    Command("pass", "pass [GAME]", "pass", "pass a double: lose the game at the stake before it", ("drop",)),
    Command("beaver", "beaver [GAME]", "beaver", "money play with beavers: take and redouble at once"),
    Command("raccoon", "raccoon [GAME]", "raccoon", "answer a beaver by redoubling once more"),
    Command("resign", "resign [single|gammon|backgammon]", "resign gammon", "offer to resign (see help resign)"),
    Command("reject", "reject [GAME]", "reject", "reject an offered resignation: play on"),
    Command("forfeit", "forfeit [GAME]", "forfeit", "give up the whole match (or money session) at once"),
    Command("end", "end [GAME]", "end", "end a money session between games: the score stands, the leader wins"),
    Command("propose", "propose PLAY|DECISION", "propose 13/7 8/7", "Doubles: suggest a play or double/take/pass..."),
    Command("proposals", "proposals [GAME]", "proposals", "Doubles: your team's proposals for the decision at hand"),
    Command("adopt", "adopt NUMBER", "adopt 2", "Doubles, acting member: play a teammate's proposal"),
    Command("approve", "approve [no]", "approve no", "Doubles, consult=agree: let your teammate's play stand (or not)"),
    Command("board", "board [GAME]", "board", "draw the board (and write a PNG with --boards)"),
    Command("games", "games", "games", "your games and challenges"),
    Command("use", "use GAME", "use 2", "make a game your current one (commands without a number act on it)"),
    Command("ids", "ids [GAME]", "ids", "GNU Backgammon Position ID and Match ID of the position", ("id",)),
    Command("export", "export [FILE]", "export match.mat", "the match as a .mat file (GNU Backgammon, XG read it)"),
    Command("verify", "verify [GAME]", "verify 1", "check a match's dice against the commitment shown at the start"),
    Command("dice", "dice [NAME]", "dice bob", "how a player's dice fell: each number, doublets, a fairness test"),
    Command("variants", "variants", "variants", "the rule sets you can play"),
    Command("rules", "rules RULE SET", "rules longgammon", "the rules of a rule set"),
    Command("bots", "bots [RULE SET]", "bots", "the computer players (play bot:NAME ...)"),
    Command("clocks", "clocks", "clocks", "the time controls (play ... clock=NAME)"),
    Command("settings", "settings [key=value ...]", "settings autoplay=off", "your settings"),
    Command("server", "server key=value ...", "server default_length=3", "this server's settings (admins)"),
    Command("vacation", "vacation DAYS", "vacation 3", "stop your clocks for some days"),
    Command("leaderboard", "leaderboard [RULE SET]", "leaderboard", "ratings of this server"),
    Command("profile", "profile [NAME]", "profile bob", "a player's ratings"),
    Command(
        "tour",
        "tour create NAME FORMAT [RULE SET] [LENGTH] [key=value ...]",
        'tour create "Club Cup" knockout sprintgammon 1 hours=48',
        "open a tournament's sign-ups (admins): FORMAT knockout, swiss or league; keys rounds, hours (a round's "
        "deadline), rule=recent|pips|admin, seeding=rating|signup|shuffle, double=on, divisions, legs, max, clock",
    ),
    Command(
        "tour",
        "tour join|leave|info|standings [#ID]",
        "tour join",
        "sign up (Doubles: with teammate=NAME), take your name off, see a tournament, its bracket or standings",
    ),
    Command(
        "tour",
        "tour start|pause|resume|check [#ID]",
        "tour start",
        "admins: start it, pause, resume, apply the deadlines that have passed (the console runs no scheduler)",
    ),
    Command(
        "tour",
        "tour dq|replace|extend|decide ...",
        "tour decide R1-1 bob",
        "admins: dq NAME, replace NAME NEW, extend HOURS [MATCH], decide MATCH WINNER [walkover]",
    ),
    Command("help", "help [COMMAND|notation|cube|resign]", "help cube", "this help, or one part of it"),
    Command("quit", "quit", "quit", "leave the console (so do Ctrl-D and Ctrl-C)", ("exit",)),
)

#: The width the help is written for.
HELP_WIDTH = 116

#: Every word that is a command, aliases included.
NAMES: frozenset[str] = frozenset(n for c in COMMANDS for n in (c.name, *c.aliases)) | {"join"}

TOPICS: dict[str, str] = {
    "notation": """\
Notation: each side counts the points from its own side: 24 where its back checkers start, down to 1; you move
down and bear off from your home board (points 6 to 1). Write each checker's move as FROM/TO:
  move 13/7 8/7      two checkers (a 6 and a 1 here)       move 24/18/13   one checker, through 18
  move bar/22        enter from the bar                    move 6/off 5/off  bear off
  move 8/5(2)        the same move twice (doublets)        move 13/9*      the * marks a hit (optional)
Moves may be written in any order that can be played. You must use both dice when you can (all four of a
doublet), else the higher one. With no legal play the turn passes by itself. plays lists every legal play.""",
    "cube": """\
Cube: before rolling, the player on roll may double (double). The opponent takes (take: the game goes on for
twice the stake, and the taker owns the cube: only they may redouble) or passes (pass: they lose the game at
the stake before the double). The cube is out of play in the Crawford game (the first game after a player gets
within one point of winning the match), in rule sets and matches without a cube, and once it reaches its highest
value; then only roll is offered. In money play with beavers the taker may beaver (take and redouble at once)
and the doubler may then raccoon.""",
    "resign": """\
Resigning: resign offers the game at a level: single (1, the default), gammon (2) or backgammon (3) times the
cube (resign 2 works in every rule set; Longgammon calls its levels by its own names). The opponent types accept
(the game ends with that result) or reject (play goes on). An offer that concedes the most the opponent could win
is accepted at once. forfeit gives up the whole match.""",
}


def help_text(topic: str | None = None) -> str:
    """The whole help, or the part about one command or topic."""
    if topic:
        key = topic.lower()
        if key in TOPICS:
            return TOPICS[key]
        found = [c for c in COMMANDS if key in (c.name, *c.aliases)]
        if not found:
            near = difflib.get_close_matches(key, sorted(NAMES | set(TOPICS)), n=1, cutoff=0.6)
            tip = f"; did you mean {near[0]}?" if near else ""
            return f"no command or topic {key!r}{tip} (topics: notation, cube, resign; help lists the commands)"
        return "\n".join(f"{c.usage}\n  {c.what}\n  example: {c.example}" for c in found)
    width = max(len(c.usage) for c in COMMANDS if len(c.usage) <= 36)
    lines = ["Commands (start a line with NAME: to type it as NAME for that line only, e.g. bob: roll):"]
    for c in COMMANDS:
        also = f" (also {', '.join(c.aliases)})" if c.aliases else ""
        example = ("e.g. " + c.example).replace(" ", "\xa0")  # the example is not broken across lines
        if len(c.usage) > width:
            lines.append(f"  {c.usage}")
        first = f"  {c.usage:<{width}}  " if len(c.usage) <= width else " " * (width + 4)
        text = textwrap.fill(
            f"{c.what}{also}; {example}", HELP_WIDTH, initial_indent=first, subsequent_indent=" " * (width + 4)
        )
        lines.append(text.replace("\xa0", " "))
    lines.append("A command without a game number acts on your current game (see games and use).")
    return "\n".join([*lines, "", TOPICS["notation"], "", TOPICS["cube"], "", TOPICS["resign"]])


def unknown_command(word: str) -> str:
    """The refusal of a word that is no command, with the nearest command when one is close."""
    near = difflib.get_close_matches(word, sorted(NAMES), n=1, cutoff=0.6)
    tip = f"; did you mean {near[0]}?" if near else "; type help for the list"
    return f"unknown command {word!r}{tip}"


def _names(view: GameView, members: tuple[str, ...]) -> str:
    return " & ".join(view.name(p) for p in dict.fromkeys(members))  # a challenge may name a player twice


def prompt(view: GameView, state: MatchState) -> str | None:
    """Whose turn it is and what they may do, as the engine allows it now (None once the match is over)."""
    allowed = allowed_actions(state)
    if state.over:
        return None
    if state.phase is Phase.OPENING:
        return f"Game {state.game}: either player rolls the opening dice (roll)."
    actor = view.name(allowed.actors[0]) if allowed.actors else "nobody"
    if state.phase is Phase.ROLL:
        if state.stage is Stage.AGAIN:
            return f"{actor} to roll again (a named doublet was played in full)."
        return f"{actor} to roll or double." if allowed.double else f"{actor} to roll."
    if state.phase is Phase.NAME_DOUBLE:
        return f"{actor} to name a doublet to play, 1 to 6 (name 6 plays 6-6)."
    if state.phase is Phase.MOVE:
        dice = f" {state.dice[0]}-{state.dice[1]}" if state.dice else ""
        named = " (named)" if state.stage is Stage.NAMED else ""
        return f"{actor} to play{dice}{named}."
    if state.phase is Phase.DOUBLED:
        answers = [str(a) for a in ("take", "pass", "beaver", "raccoon") if a in {str(x) for x in allowed.cube_answers}]
        return f"{actor} to {listed(answers or ['answer the double'], 'or')}."
    return f"{actor} to accept or reject the resignation."


def cube_words(state: MatchState) -> str:
    """The cube as the status line shows it: nothing in a game without a cube."""
    if not state.setup.cube_in_use:
        return ""
    if state.crawford_game:
        return ", Crawford game (no cube)"
    owner = state.cube.owner
    whose = "centred" if owner is None else f"{state.setup.side_name(owner)}'s"
    return f", cube {state.cube.value} ({whose})"


def game_line(view: GameView, state: MatchState | None, waiting: tuple[str, ...] = ()) -> str:
    """One game in one line: number, rule set, length, players, score, cube (if any), whose turn."""
    sides = " vs ".join(_names(view, side) for side in view.sides)
    if view.status == "challenge":
        who = listed([view.name(p) for p in waiting]) if waiting else "anyone"
        tail = f": {view.unavailable}" if view.unavailable else f"; waiting for {who}"
        return f"#{view.id} challenge: {sides or view.name(view.challenger)}, {view.display_name}{tail}"
    length = f"{view.length}-point match" if view.length else "money session"
    head = f"#{view.id} {view.display_name} {length}, {sides}, score {view.score[0]}-{view.score[1]}"
    if view.unavailable:  # a game of a rule set whose plugin is not installed now: kept, shown as stored
        return f"{head}: {view.unavailable} (the game is kept)"
    if view.status != "active" or state is None:
        return f"{head}: {view.status}"
    turn = prompt(view, state) or "the match is over."
    return f"{head}{cube_words(state)}: {turn}"


def dice_text(name: str, stats: Any) -> str:
    """A player's dice statistics (engine.fairdice.DiceStats) as a small table and a sentence."""
    if not stats.rolls:
        return f"{name} has no rolls yet (opening throws, one die each, are not counted)"
    e = stats.expected_face
    p = stats.face_p_value
    verdict = "unusual (p below 0.01)" if p < 0.01 else "nothing unusual"
    return "\n".join(
        [
            f"{name}'s dice: {stats.rolls} roll{'s' * (stats.rolls != 1)} (opening throws not counted)",
            "  number    " + "".join(f"{k:>6}" for k in range(1, 7)),
            "  seen      " + "".join(f"{n:>6}" for n in stats.faces),
            "  expected  " + "".join(f"{e:>6.1f}" for _ in range(6)),
            f"  doublets {stats.doublets} (expected {stats.expected_doublets:.1f})",
            f"  fairness: chi-square {stats.face_chi_square:.2f}, 5 degrees of freedom, p = {p:.2f}: {verdict}",
        ]
    )


def verify_text(game_id: int, report: Any) -> str:
    """A dice check (engine.fairdice.VerifyReport) in words."""
    checked = "; every action was replayed under the match's rules" if report.rules_checked else ""
    return f"game #{game_id} dice: {report.message}{checked}"
