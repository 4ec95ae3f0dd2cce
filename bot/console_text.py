"""The console's words: its help (every command with an example, move notation, the cube, resigning), the line that
says whose turn it is, and how it writes games, dice statistics and dice checks.

What a player may do now is asked of the engine (:func:`engine.controls.allowed_actions`), never decided here.
"""

from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass
from typing import Any

from engine import i18n
from engine.controls import allowed_actions
from engine.i18n import N_, _, listed, ngettext
from engine.match import MatchState, Phase, Stage

from .service import GameView
from .storage import GameStatus


@dataclass(frozen=True)
class Command:
    """One console command: how it is written, an example, and what it does (one line each). ``usage`` and ``what``
    are marked for the catalog (N_) and translated where the help shows them; the example is typed as it stands."""

    name: str
    usage: str
    example: str
    what: str
    aliases: tuple[str, ...] = ()


#: Every console command, in the order the help lists them.
# Translators: in a command's usage (as NAME, play OPPONENT|open ...) keep the command words and the lowercase words
# typed as they are (open, bot, money, doubles, key=value keys such as teammate=, consult=agree); translate only the
# UPPERCASE placeholders (NAME, GAME, RULE SET, LENGTH...) and key=value itself.
COMMANDS: tuple[Command, ...] = (
    Command(
        "as", N_("as NAME"), "as alice", N_("type as NAME from now on (or start one line with NAME:, e.g. bob: roll)")
    ),
    Command(
        "play",
        N_("play OPPONENT|open|bot[:STRENGTH] [RULE SET] [LENGTH|money] [key=value ...]"),
        "play bob backgammon 5",
        N_("challenge someone (open: anyone; bot: the computer); LENGTH in points, or money for a money session"),
    ),
    Command(
        "play",
        N_("play OPPONENT doubles LENGTH teammate=NAME partner=NAME [consult=agree]"),
        "play bob doubles 3 teammate=carol partner=dave",
        N_("Backgammon Doubles: your teammate and your opponent's partner are asked too"),
    ),
    Command(
        "accept", N_("accept [GAME]"), "accept", N_("accept a challenge (everyone it names accepts) or a resignation")
    ),
    Command(
        "decline", N_("decline [GAME]"), "decline 4", N_("decline a challenge (the challenger withdraws it this way)")
    ),
    Command("roll", N_("roll [GAME]"), "roll", N_("roll the dice (the opening roll too: either player throws it)")),
    Command("move", N_("move PLAY"), "move 13/7 8/7", N_("play your whole roll at once (see help notation)")),
    Command("sub", N_("sub FROM/TO"), "sub 13/7", N_("move one checker by one die; then confirm (or undo)")),
    Command("undo", "undo", "undo", N_("take back the last checker moved with sub")),
    Command("confirm", "confirm", "confirm", N_("play the checkers moved with sub")),
    Command("plays", N_("plays [GAME]"), "plays", N_("list every legal play of the roll")),
    Command(
        "hint", "hint", "hint", N_("the computer's best plays (in matches that allow hints: money, or against a bot)")
    ),
    Command("double", N_("double [GAME]"), "double", N_("offer the cube before rolling (see help cube)")),
    Command(
        "name",
        N_("name N"),
        "name 6",
        N_("when the rule set lets you name the dice (as Acey-deucey after a 1-2): the doublet to play, 1 to 6"),
    ),
    Command("take", N_("take [GAME]"), "take", N_("take a double: play on for twice the stake, owning the cube")),
    Command("pass", N_("pass [GAME]"), "pass", N_("pass a double: lose the game at the stake before it"), ("drop",)),
    Command("beaver", N_("beaver [GAME]"), "beaver", N_("money play with beavers: take and redouble at once")),
    Command("raccoon", N_("raccoon [GAME]"), "raccoon", N_("answer a beaver by redoubling once more")),
    Command("resign", "resign [single|gammon|backgammon]", "resign gammon", N_("offer to resign (see help resign)")),
    Command("reject", N_("reject [GAME]"), "reject", N_("reject an offered resignation: play on")),
    Command("forfeit", N_("forfeit [GAME]"), "forfeit", N_("give up the whole match (or money session) at once")),
    Command("end", N_("end [GAME]"), "end", N_("end a money session between games: the score stands, the leader wins")),
    Command(
        "propose", N_("propose PLAY|DECISION"), "propose 13/7 8/7", N_("Doubles: suggest a play or double/take/pass...")
    ),
    Command(
        "proposals", N_("proposals [GAME]"), "proposals", N_("Doubles: your team's proposals for the decision at hand")
    ),
    Command("adopt", N_("adopt NUMBER"), "adopt 2", N_("Doubles, acting member: play a teammate's proposal")),
    Command(
        "approve", "approve [no]", "approve no", N_("Doubles, consult=agree: let your teammate's play stand (or not)")
    ),
    Command("board", N_("board [GAME]"), "board", N_("draw the board (and write a PNG with --boards)")),
    Command("games", "games", "games", N_("your games and challenges")),
    Command("use", N_("use GAME"), "use 2", N_("make a game your current one (commands without a number act on it)")),
    Command("ids", N_("ids [GAME]"), "ids", N_("GNU Backgammon Position ID and Match ID of the position"), ("id",)),
    Command(
        "export", N_("export [FILE]"), "export match.mat", N_("the match as a .mat file (GNU Backgammon, XG read it)")
    ),
    Command(
        "verify", N_("verify [GAME]"), "verify 1", N_("check a match's dice against the commitment shown at the start")
    ),
    Command(
        "dice", N_("dice [NAME]"), "dice bob", N_("how a player's dice fell: each number, doublets, a fairness test")
    ),
    Command("variants", "variants", "variants", N_("the rule sets you can play")),
    Command("rules", N_("rules RULE SET"), "rules longgammon", N_("the rules of a rule set")),
    Command("bots", N_("bots [RULE SET]"), "bots", N_("the computer players (play bot:NAME ...)")),
    Command("clocks", "clocks", "clocks", N_("the time controls (play ... clock=NAME)")),
    Command("settings", N_("settings [key=value ...]"), "settings autoplay=off", N_("your settings")),
    Command("server", N_("server key=value ..."), "server default_length=3", N_("this server's settings (admins)")),
    Command("vacation", N_("vacation DAYS"), "vacation 3", N_("stop your clocks for some days")),
    Command("leaderboard", N_("leaderboard [RULE SET]"), "leaderboard", N_("ratings of this server")),
    Command("profile", N_("profile [NAME]"), "profile bob", N_("a player's ratings")),
    Command(
        "tour",
        N_("tour create NAME FORMAT [RULE SET] [LENGTH] [key=value ...]"),
        'tour create "Club Cup" knockout sprintgammon 1 hours=48',
        N_(
            "open a tournament's sign-ups (admins): FORMAT knockout, swiss or league; keys rounds, hours (a round's "
            "deadline), rule=recent|pips|admin, seeding=rating|signup|shuffle, double=on, divisions, legs, max, clock"
        ),
    ),
    Command(
        "tour",
        N_("tour join|leave|info|standings [#ID]"),
        "tour join",
        N_("sign up (Doubles: with teammate=NAME), take your name off, see a tournament, its bracket or standings"),
    ),
    Command(
        "tour",
        N_("tour start|pause|resume|check [#ID]"),
        "tour start",
        N_("admins: start it, pause, resume, apply the deadlines that have passed (the console runs no scheduler)"),
    ),
    Command(
        "tour",
        "tour dq|replace|extend|decide ...",
        "tour decide R1-1 bob",
        N_("admins: dq NAME, replace NAME NEW, extend HOURS [MATCH], decide MATCH WINNER [walkover]"),
    ),
    Command("help", N_("help [COMMAND|notation|cube|resign]"), "help cube", N_("this help, or one part of it")),
    Command("quit", "quit", "quit", N_("leave the console (so do Ctrl-D and Ctrl-C)"), ("exit",)),
)

#: The width the help is written for.
HELP_WIDTH = 116

#: Every word that is a command, aliases included.
NAMES: frozenset[str] = frozenset(n for c in COMMANDS for n in (c.name, *c.aliases)) | {"join"}

TOPICS: dict[str, str] = {
    # Translators: keep the command words (move, plays, roll, double, take, pass, beaver, raccoon, resign, accept,
    # reject, forfeit), the notation (13/7, bar/22, 6/off, 8/5(2), 13/9*) and the line breaks and columns.
    "notation": N_("""\
Notation: each side counts the points from its own side: 24 where its back checkers start, down to 1; you move
down and bear off from your home board (points 6 to 1). Write each checker's move as FROM/TO:
  move 13/7 8/7      two checkers (a 6 and a 1 here)       move 24/18/13   one checker, through 18
  move bar/22        enter from the bar                    move 6/off 5/off  bear off
  move 8/5(2)        the same move twice (doublets)        move 13/9*      the * marks a hit (optional)
Moves may be written in any order that can be played. You must use both dice when you can (all four of a
doublet), else the higher one. With no legal play the turn passes by itself. plays lists every legal play."""),
    # Translators: keep the command words (move, plays, roll, double, take, pass, beaver, raccoon, resign, accept,
    # reject, forfeit), the notation (13/7, bar/22, 6/off, 8/5(2), 13/9*) and the line breaks and columns.
    "cube": N_("""\
Cube: before rolling, the player on roll may double (double). The opponent takes (take: the game goes on for
twice the stake, and the taker owns the cube: only they may redouble) or passes (pass: they lose the game at
the stake before the double). The cube is out of play in the Crawford game (the first game after a player gets
within one point of winning the match), in rule sets and matches without a cube, and once it reaches its highest
value; then only roll is offered. In money play with beavers the taker may beaver (take and redouble at once)
and the doubler may then raccoon."""),
    # Translators: keep the command words (move, plays, roll, double, take, pass, beaver, raccoon, resign, accept,
    # reject, forfeit), the notation (13/7, bar/22, 6/off, 8/5(2), 13/9*) and the line breaks and columns.
    "resign": N_("""\
Resigning: resign offers the game at a level: single (1, the default), gammon (2) or backgammon (3) times the
cube (resign 2 works in every rule set; Longgammon calls its levels by its own names). The opponent types accept
(the game ends with that result) or reject (play goes on). An offer that concedes the most the opponent could win
is accepted at once. forfeit gives up the whole match."""),
}


#: A game's status as the games list shows it (a game that is neither a challenge nor going on).
STATUSES: dict[str, str] = {
    "finished": N_("finished"),
    "declined": N_("declined"),
    "expired": N_("expired"),
    "archived": N_("archived"),
}


def help_text(topic: str | None = None) -> str:
    """The whole help, or the part about one command or topic, in the active language."""
    if topic:
        key = topic.lower()
        if key in TOPICS:
            return _(TOPICS[key])
        found = [c for c in COMMANDS if key in (c.name, *c.aliases)]
        if not found:
            near = difflib.get_close_matches(key, sorted(NAMES | set(TOPICS)), n=1, cutoff=0.6)
            if near:
                return _(
                    "no command or topic {topic}; did you mean {near}? (topics: notation, cube, resign; help lists "
                    "the commands)"
                ).format(topic=repr(key), near=near[0])
            return _("no command or topic {topic} (topics: notation, cube, resign; help lists the commands)").format(
                topic=repr(key)
            )
        return "\n".join(
            _("{usage}\n  {what}\n  example: {example}").format(usage=_(c.usage), what=_(c.what), example=c.example)
            for c in found
        )
    usages = [_(c.usage) for c in COMMANDS]
    width = max(len(u) for u in usages if len(u) <= 36)
    lines = [_("Commands (start a line with NAME: to type it as NAME for that line only, e.g. bob: roll):")]
    for c, usage in zip(COMMANDS, usages, strict=True):
        also = _(" (also {aliases})").format(aliases=", ".join(c.aliases)) if c.aliases else ""
        example = _("e.g. {example}").format(example=c.example).replace(" ", "\xa0")  # not broken across lines
        if len(usage) > width:
            lines.append(f"  {usage}")
        first = f"  {usage:<{width}}  " if len(usage) <= width else " " * (width + 4)
        text = textwrap.fill(
            f"{_(c.what)}{also}; {example}", HELP_WIDTH, initial_indent=first, subsequent_indent=" " * (width + 4)
        )
        lines.append(text.replace("\xa0", " "))
    lines.append(_("A command without a game number acts on your current game (see games and use)."))
    topics = [_(TOPICS[t]) for t in ("notation", "cube", "resign")]
    return "\n".join([*lines, "", topics[0], "", topics[1], "", topics[2]])


def unknown_command(word: str) -> str:
    """The refusal of a word that is no command, with the nearest command when one is close."""
    near = difflib.get_close_matches(word, sorted(NAMES), n=1, cutoff=0.6)
    if near:
        return _("unknown command {word}; did you mean {near}?").format(word=repr(word), near=near[0])
    return _("unknown command {word}; type help for the list").format(word=repr(word))


def _names(view: GameView, members: tuple[str, ...]) -> str:
    return " & ".join(view.name(p) for p in dict.fromkeys(members))  # a challenge may name a player twice


def offer_words(view: GameView) -> str:
    """What waits for a player's answer in a game: a challenge, or a resignation offered to them."""
    if view.status == GameStatus.CHALLENGE:
        return _("a challenge from {name}").format(name=view.name(view.challenger))
    side = view.side_of(view.to_act) if view.to_act else None
    offerer = _names(view, view.sides[1 - side]) if side is not None else "?"
    return _("{name} offers to resign").format(name=offerer)


def prompt(view: GameView, state: MatchState) -> str | None:
    """Whose turn it is and what they may do, as the engine allows it now (None once the match is over)."""
    allowed = allowed_actions(state)
    if state.over:
        return None
    if state.phase is Phase.OPENING:
        return _("Game {game}: either player rolls the opening dice (roll).").format(game=state.game)
    actor = view.name(allowed.actors[0]) if allowed.actors else _("nobody")
    if state.phase is Phase.ROLL:
        if state.stage is Stage.AGAIN:
            return _("{actor} to roll again (a named doublet was played in full).").format(actor=actor)
        if allowed.double:
            return _("{actor} to roll or double.").format(actor=actor)
        return _("{actor} to roll.").format(actor=actor)
    if state.phase is Phase.NAME_DOUBLE:
        return _("{actor} to name a doublet to play, 1 to 6 (name 6 plays 6-6).").format(actor=actor)
    if state.phase is Phase.MOVE:
        if not state.dice:
            return _("{actor} to play.").format(actor=actor)
        dice = f"{state.dice[0]}-{state.dice[1]}"
        if state.stage is Stage.NAMED:
            return _("{actor} to play {dice} (named).").format(actor=actor, dice=dice)
        if state.stage is Stage.FIXED:
            done = ", ".join(f"{d[0]}-{d[1]}" for d, _count, _used in state.stages)
            return _("{actor} to play {dice}, given by the rules after {stages} in this turn.").format(
                actor=actor, dice=dice, stages=done
            )
        if state.stage is Stage.HANDED:
            count = state.count or (4 if state.dice[0] == state.dice[1] else 2)
            return ngettext(
                "{actor} to play {count} die of {dice} the opponent could not play, before rolling.",
                "{actor} to play {count} dice of {dice} the opponent could not play, before rolling.",
                count,
            ).format(actor=actor, count=count, dice=dice)
        return _("{actor} to play {dice}.").format(actor=actor, dice=dice)
    if state.phase is Phase.DOUBLED:
        answers = [str(a) for a in ("take", "pass", "beaver", "raccoon") if a in {str(x) for x in allowed.cube_answers}]
        if not answers:
            return _("{actor} to answer the double.").format(actor=actor)
        # Translators: {answers} are the commands that answer a double, e.g. "take or pass" (kept as typed).
        return _("{actor} to {answers}.").format(actor=actor, answers=listed(answers, "or"))
    return _("{actor} to accept or reject the resignation.").format(actor=actor)


def cube_words(state: MatchState) -> str:
    """The cube as the status line shows it: nothing in a game without a cube."""
    if not state.setup.cube_in_use:
        return ""
    if state.crawford_game:
        return _(", Crawford game (no cube)")
    owner = state.cube.owner
    if owner is None:
        return _(", cube {value} (centred)").format(value=state.cube.value)
    return _(", cube {value} ({owner}'s)").format(value=state.cube.value, owner=state.setup.side_name(owner))


def length_words(length: int) -> str:
    """A match's length: "5-point match", or "money session" (length 0)."""
    if not length:
        return _("money session")
    return ngettext("{length}-point match", "{length}-point match", length).format(length=length)


def game_line(view: GameView, state: MatchState | None, waiting: tuple[str, ...] = ()) -> str:
    """One game in one line: number, rule set, length, players, score, cube (if any), whose turn."""
    order = (
        (1, 0) if view.winner == 1 and view.status == GameStatus.FINISHED else (0, 1)
    )  # a winner and their score first
    sides = _(" vs ").join(_names(view, view.sides[k]) for k in order if k < len(view.sides))
    rule_set = _(view.display_name)
    if view.status == GameStatus.CHALLENGE:
        players = sides or view.name(view.challenger)
        if view.unavailable:
            return _("#{id} challenge: {players}, {rule_set}: {unavailable}").format(
                id=view.id, players=players, rule_set=rule_set, unavailable=view.unavailable
            )
        who = listed([view.name(p) for p in waiting]) if waiting else _("anyone")
        return _("#{id} challenge: {players}, {rule_set}; waiting for {who}").format(
            id=view.id, players=players, rule_set=rule_set, who=who
        )
    head = _("#{id} {rule_set} {length}, {players}, score {score}").format(
        id=view.id,
        rule_set=rule_set,
        length=length_words(view.length),
        players=sides,
        score=f"{view.score[order[0]]}-{view.score[order[1]]}",
    )
    if view.unavailable:  # a game of a rule set whose plugin is not installed now: kept, shown as stored
        return _("{game}: {unavailable} (the game is kept)").format(game=head, unavailable=view.unavailable)
    if view.status != GameStatus.ACTIVE or state is None:
        status = STATUSES.get(view.status)
        return f"{head}: {_(status) if status else view.status}"
    turn = prompt(view, state) or _("the match is over.")
    return f"{head}{cube_words(state)}: {turn}"


def dice_text(name: str, stats: Any) -> str:
    """A player's dice statistics (engine.fairdice.DiceStats) as a small table and a sentence."""
    if not stats.rolls:
        return _("{name} has no rolls yet (opening throws, one die each, are not counted)").format(name=name)
    e = stats.expected_face
    p = stats.face_p_value
    verdict = _("unusual (p below 0.01)") if p < 0.01 else _("nothing unusual")
    label = max(10, *(len(_(w)) + 2 for w in (N_("number"), N_("seen"), N_("expected"))))
    return "\n".join(
        [
            ngettext(
                "{name}'s dice: {count} roll (opening throws not counted)",
                "{name}'s dice: {count} rolls (opening throws not counted)",
                stats.rolls,
            ).format(name=name, count=i18n.number(stats.rolls)),
            "  " + _("number").ljust(label) + "".join(f"{k:>6}" for k in range(1, 7)),
            "  " + _("seen").ljust(label) + "".join(f"{n:>6}" for n in stats.faces),
            "  " + _("expected").ljust(label) + "".join(f"{i18n.decimal(e, 1):>6}" for _k in range(6)),
            _("  doublets {count} (expected {expected})").format(
                count=stats.doublets, expected=i18n.decimal(stats.expected_doublets, 1)
            ),
            _("  fairness: chi-square {chi_square}, 5 degrees of freedom, p = {p}: {verdict}").format(
                chi_square=i18n.decimal(stats.face_chi_square, 2), p=i18n.decimal(p, 2), verdict=verdict
            ),
        ]
    )


def verify_text(game_id: int, report: Any) -> str:
    """A dice check (engine.fairdice.VerifyReport) in words."""
    if report.rules_checked:
        return _("game #{id} dice: {message}; every action was replayed under the match's rules").format(
            id=game_id, message=report.message
        )
    return _("game #{id} dice: {message}").format(id=game_id, message=report.message)
