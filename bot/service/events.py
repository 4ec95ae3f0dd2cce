"""The sentences players read: every event text and result line the service produces."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from engine import i18n
from engine import match as m
from engine.controls import allowed_actions
from engine.i18n import N_, _, ngettext, pgettext
from engine.match import Action, MatchOptions, MatchState, OpeningRule, Phase, Stage
from engine.matchcard import rule_end
from engine.plugins import registry
from engine.variant import NextStage, TurnStep, Variant

from .helpers import _ended_state, _to_act
from .missing import not_installed
from .types import FORGOTTEN, Event, EventKind, GameView


def _with_names(text: str, names: Mapping[str, str]) -> str:
    """An engine message with the players' ids (Discord snowflakes, quoted or not) replaced by their names."""
    for pid in sorted(names, key=len, reverse=True):
        if names[pid] and names[pid] != pid:
            name = _(FORGOTTEN) if names[pid] == FORGOTTEN else names[pid]
            text = re.sub(rf"'{re.escape(pid)}'|(?<!\w){re.escape(pid)}(?!\w)", _literal(name), text)
    return text


def _side_name(view: GameView, side: int) -> str:
    """A side by its players' names as they are called now: ``Alice`` or, in team play, ``Alice & Carol``."""
    return " & ".join(view.name(p) for p in view.sides[side])


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement that inserts ``text`` as it is (no backslash escapes)."""
    return lambda _m: text


def _result_line(row: dict[str, Any], viewer: str | None) -> dict[str, Any]:
    data = row["data"]
    winner = data.get("winner")
    side_names = data.get("side_names") or ["?", "?"]
    line = {
        "game_id": row["game_id"],
        "variant": row["variant"],
        "display_name": data.get("display_name", row["variant"]),
        "length": row["length"],
        "score": data.get("score"),
        "sides": side_names,
        "winner": None if winner is None else side_names[winner],
        "rated": bool(row["rated"]),
        "finished_at": row["finished_at"],
        "thread_id": row.get("thread_id"),
        "unavailable": not_installed(row["variant"]),  # "rule set X is not installed", or None
    }
    if viewer is not None and winner is not None:
        sides = data.get("sides", [[], []])
        line["won"] = viewer in sides[winner]
        if viewer in data.get("ratings", {}):
            before, after = data["ratings"][viewer]
            line["rating_change"] = after - before
    return line


#: The key of the result writer's ``changes`` under which a failed rating system's words are kept (never a
#: player's id): the match ended unrated, and the ratings event says why.
RATING_FAILED = "\x00rating-failed"


def _ratings_event(game_id: int, view: GameView, changes: dict[str, Any]) -> Event:
    if RATING_FAILED in changes:
        return Event(EventKind.RATINGS, game_id, changes[RATING_FAILED], None, {"changes": {}, "failed": True})
    with i18n.shared():
        parts = []
        for player, (before, after) in changes.items():
            change = after - before
            parts.append(
                _("{player} {before} → {after} ({change})").format(
                    player=view.name(player),
                    before=i18n.number(round(before)),
                    after=i18n.number(round(after)),
                    change=("+" if change >= 0 else "") + i18n.decimal(change, 1),
                )
            )
        cls = registry().variants.get(view.variant)  # the match's rule set (Tavli, not the game of its cycle)
        shown = _(cls.display_name) if cls is not None else view.display_name
        text = _("Ratings ({rule_set}): {changes}.").format(rule_set=shown, changes=", ".join(parts))
    return Event(EventKind.RATINGS, game_id, text, None, {"changes": changes})


#: What is due in each phase (for "there is no roll to play now (...)").
_PHASE_WORDS: dict[Phase, str] = {
    Phase.OPENING: N_("the opening roll is due"),
    Phase.ROLL: N_("a roll is due"),
    Phase.MOVE: N_("a play is due"),
    Phase.DOUBLED: N_("a double is waiting for an answer"),
    Phase.RESIGNED: N_("a resignation is waiting for an answer"),
    Phase.OVER: N_("the match is over"),
    Phase.NAME_DOUBLE: N_("a doublet is to be named"),
}


def _phase_words(state: MatchState) -> str:
    return _(_PHASE_WORDS[state.phase])


def _describe_terms(cls: type[Variant], opts: MatchOptions) -> str:
    rule_set = _(cls.display_name)
    if opts.length:
        what = ngettext("a {length}-point {rule_set} match", "a {length}-point {rule_set} match", opts.length).format(
            length=opts.length, rule_set=rule_set
        )
    else:
        what = _("{rule_set} for money").format(rule_set=rule_set)
    extras = [
        label
        for flag, label in (
            (opts.jacoby, _("Jacoby")),
            (opts.beavers, _("beavers")),
            (opts.auto_doubles > 0, _("automatic doubles")),
            (opts.holland, _("Holland rule")),
            (not opts.crawford and opts.length > 0, _("no Crawford rule")),
            (not opts.cube, _("no cube")),
        )
        if flag
    ]
    if not extras:
        return what
    return _("{terms} ({extras})").format(terms=what, extras=", ".join(extras))


def _events(
    game_id: int, view: GameView, before: MatchState, action: Action, after: MatchState, *, auto: bool
) -> list[Event]:
    """The events one applied action produced, each with a sentence for the players (in the server's language:
    everyone in the game's thread reads them)."""
    with i18n.shared():
        return _events_said(game_id, view, before, action, after, auto=auto)


def _events_said(
    game_id: int, view: GameView, before: MatchState, action: Action, after: MatchState, *, auto: bool
) -> list[Event]:
    name = view.name
    by = action.by
    out: list[Event] = []
    if isinstance(action, m.OpeningRoll):
        a, b = action.dice
        throws = {"first": name(before.acting_member(0)), "first_die": a, "second": name(before.acting_member(1))}
        throws["second_die"] = b
        if a == b:
            if after.cube.value > before.cube.value:  # automatic doubles
                text = _(
                    "Opening roll: {first} {first_die}, {second} {second_die} — a tie: the cube is doubled "
                    "automatically to {cube} (it stays in the middle); roll again."
                ).format(cube=after.cube.value, **throws)
            else:
                text = _("Opening roll: {first} {first_die}, {second} {second_die} — a tie; roll again.").format(
                    **throws
                )
            out.append(Event(EventKind.OPENING, game_id, text, by, {"dice": [a, b]}))
        else:
            starter = throws["first"] if a > b else throws["second"]
            # Under a re-throw opening the throw only decides who starts, who then rolls both dice.
            if before.options.opening in (OpeningRule.REROLL, OpeningRule.WINNER_REROLL):
                text = _(
                    "Opening roll: {first} {first_die}, {second} {second_die}. {starter} starts and rolls both dice."
                ).format(starter=starter, **throws)
            else:
                text = _("Opening roll: {first} {first_die}, {second} {second_die}. {starter} plays {dice}.").format(
                    starter=starter, dice=f"{max(a, b)}-{min(a, b)}", **throws
                )
            out.append(Event(EventKind.OPENING, game_id, text, by, {"dice": [a, b]}))
    elif isinstance(action, m.Roll):
        text = _("{player} rolled {dice}.").format(player=name(by), dice=f"{action.dice[0]}-{action.dice[1]}")
        if after.roller != before.roller and not after.over:
            text += " " + _("No legal play: the turn passes.")
        out.append(Event(EventKind.ROLL, game_id, text, by, {"dice": list(action.dice)}))
    elif isinstance(action, m.NameDouble):
        d = action.value
        text = _("{player} names {dice}.").format(player=name(by), dice=f"{d}-{d}")
        if after.roller != before.roller and not after.over:
            text += " " + _("No legal play: the turn passes.")
        out.append(Event(EventKind.NAME_DOUBLE, game_id, text, by, {"dice": [d, d]}))
    elif isinstance(action, m.Move):
        from engine.notation import format_play

        notation = format_play(action.moves) or "no move"
        shown = format_play(action.moves) or _("no move")
        if auto:
            text = _("(automatic) {player} played {play}.").format(player=name(by), play=shown)
        else:
            text = _("{player} played {play}.").format(player=name(by), play=shown)
        text += _stage_words(before, after, name) or _unplayable_stage_words(before, after, len(action.moves), name)
        out.append(Event(EventKind.MOVE, game_id, text, by, {"play": notation, "auto": auto}))
    elif isinstance(action, m.Double):
        text = _("{player} doubles to {cube}.").format(player=name(by), cube=before.cube.value * 2)
        out.append(Event(EventKind.DOUBLE, game_id, text, by))
    elif isinstance(action, m.Take):
        text = _("{player} takes; the cube is at {cube}.").format(player=name(by), cube=after.cube.value)
        out.append(Event(EventKind.TAKE, game_id, text, by))
    elif isinstance(action, m.Pass):
        out.append(Event(EventKind.PASS, game_id, _("{player} passes.").format(player=name(by)), by))
    elif isinstance(action, m.Beaver):
        text = _("{player} beavers, redoubling to {cube}.").format(player=name(by), cube=after.cube.value * 2)
        out.append(Event(EventKind.BEAVER, game_id, text, by))
    elif isinstance(action, m.Raccoon):
        text = _("{player} raccoons, redoubling to {cube}.").format(player=name(by), cube=after.cube.value * 2)
        out.append(Event(EventKind.RACCOON, game_id, text, by))
    elif isinstance(action, m.Resign):
        level = before.variant.result_name(action.level)
        text = _("{player} offers to resign a {result}.").format(player=name(by), result=level)
        out.append(Event(EventKind.RESIGN, game_id, text, by, {"level": action.level}))
    elif isinstance(action, m.AcceptResignation):
        text = _("{player} accepts the resignation.").format(player=name(by))
        out.append(Event(EventKind.RESIGN_ACCEPTED, game_id, text, by))
    elif isinstance(action, m.RejectResignation):
        text = _("{player} rejects the resignation; play on.").format(player=name(by))
        out.append(Event(EventKind.RESIGN_REJECTED, game_id, text, by))
    elif isinstance(action, m.Timeout):
        out.append(Event(EventKind.TIMEOUT, game_id, _("{player} ran out of time.").format(player=name(by)), by))
    elif isinstance(action, m.Forfeit):
        if before.options.money:
            text = _("{player} forfeits the session.").format(player=name(by))
        else:
            text = _("{player} forfeits the match.").format(player=name(by))
        out.append(Event(EventKind.FORFEIT, game_id, text, by))
    elif isinstance(action, m.EndSession):
        hours = before.options.session_hours
        if action.deadline:
            text = ngettext(
                "The session's {hours} hour is up.", "The session's {hours} hours are up.", int(hours or 0)
            ).format(hours=hours)
        else:
            text = _("{player} ends the session.").format(player=name(by))
        out.append(
            Event(EventKind.END_SESSION, game_id, text, None if action.deadline else by, {"deadline": action.deadline})
        )
    if isinstance(action, m.Resign) and after.phase is not Phase.RESIGNED and len(after.results) > len(before.results):
        out.append(
            Event(
                EventKind.RESIGN_ACCEPTED,
                game_id,
                _("The resignation is accepted automatically: nothing more could be won."),
                None,
            )
        )
    if len(after.results) > len(before.results):
        result = after.results[-1]
        text = _game_over_text(view, before, action, after, result)
        # "ended": the game's final position, for its board (GameService.board(..., game_end=this event)).
        data = {"winner": result.winner, "points": result.points, "game": result.game, "match_over": after.over}
        out.append(
            Event(EventKind.GAME_OVER, game_id, text, None, {**data, "ended": _ended_state(before, action, after)})
        )
    if after.over and not before.over:
        score = score_of(after.score, after.winner)
        if after.options.money:
            text = _session_over(view, before, action, after)
        elif after.winner is None:
            text = _("Match over: nobody wins {score}.").format(score=score)
        elif len(view.sides[after.winner]) > 1:
            text = _("Match over: {winners} win {score}.").format(winners=_side_name(view, after.winner), score=score)
        else:
            text = _("Match over: {winner} wins {score}.").format(winner=_side_name(view, after.winner), score=score)
        out.append(Event(EventKind.MATCH_OVER, game_id, text, None, {"winner": after.winner}))
    elif not after.over:
        actor = _to_act(after)
        if actor is not None and (before.turn != after.turn or before.phase != after.phase):
            text = _("{player} to {action}.").format(player=name(actor), action=_verb(after))
            out.append(Event(EventKind.TURN, game_id, text, actor, {"phase": str(after.phase)}))
        elif after.phase is Phase.OPENING and before.phase is not Phase.OPENING:
            if after.variant is not after.setup.variant:
                game = after.title
            else:
                game = _("Game {number}").format(number=after.game)
            text = _("{game}: roll the opening dice.").format(game=game)
            out.append(Event(EventKind.TURN, game_id, text, None, {"phase": "opening"}))
    return out


def score_of(score: tuple[int, int], first: int | None) -> str:
    """A score as players say it: the winner's (the leader's) points first, ``4-0`` (side 0's first when nobody won)."""
    side = first or 0
    return f"{score[side]}-{score[1 - side]}"


def _end_reason(reason: m.EndReason) -> str:
    """How a game ended, in a word or two ("borne off", "pass")."""
    words = {
        m.EndReason.BORNE_OFF: pgettext("how a game ended", "borne off"),
        m.EndReason.PASS: pgettext("how a game ended", "pass"),
        m.EndReason.RESIGN: pgettext("how a game ended", "resign"),
        m.EndReason.TIMEOUT: pgettext("how a game ended", "timeout"),
        m.EndReason.FORFEIT: pgettext("how a game ended", "forfeit"),
        m.EndReason.RULE: pgettext("how a game ended", "rule"),
        m.EndReason.DRAW: pgettext("how a game ended", "draw"),
    }
    return words.get(reason, str(reason))


def _game_over_text(view: GameView, before: MatchState, action: Action, after: MatchState, result: m.GameResult) -> str:
    """Who won the game just over, how (a rule or a draw in its own words) and for how much; the score; in a match
    that plays its games by other rule sets, which one the next game is."""
    winner = _side_name(view, result.winner)
    points = ngettext("{count} point", "{count} points", result.points).format(count=result.points)
    team = len(view.sides[result.winner]) > 1
    how = rule_end(before, action, result)
    if result.reason is m.EndReason.DRAW:
        text = _("A draw: {how}; nobody scores.").format(how=how or _("the game ends level"))
    elif result.reason is m.EndReason.RULE:
        how = how or _("a rule of the game ends it")
        if team:
            text = _("{winners} win {points}: {how}.").format(winners=winner, points=points, how=how)
        else:
            text = _("{winner} wins {points}: {how}.").format(winner=winner, points=points, how=how)
    else:
        reason = _end_reason(result.reason)
        if result.level:
            kind = before.variant.result_name(result.level)
            if team:
                text = _("{winners} win a {result} ({points}, {reason}).")
            else:
                text = _("{winner} wins a {result} ({points}, {reason}).")
            text = text.format(winner=winner, winners=winner, result=kind, points=points, reason=reason)
        elif team:
            text = _("{winners} win the game ({points}, {reason}).").format(
                winners=winner, points=points, reason=reason
            )
        else:
            text = _("{winner} wins the game ({points}, {reason}).").format(winner=winner, points=points, reason=reason)
    score = score_of(after.score, result.winner)
    if after.options.length:
        length = after.options.length
        text += " " + ngettext(
            "Score {score} in a {length}-point match.", "Score {score} in a {length}-point match.", length
        ).format(score=score, length=length)
    else:
        text += " " + _("Score {score} (money).").format(score=score)
    if not after.over and after.variant is not before.variant:
        text += " " + _("Next: {game}.").format(game=after.title)
    return text


def _session_over(view: GameView, before: MatchState, action: Action, after: MatchState) -> str:
    """How a money session ended, at what score, and who leads (the side ahead wins it)."""
    score = score_of(after.score, after.winner)
    if isinstance(action, m.EndSession) and action.deadline:
        how = _("Session ended at its deadline at {score}").format(score=score)
    elif isinstance(action, m.EndSession | m.Forfeit) and len(after.results) == len(before.results):
        how = _("Session ended by {player} at {score}").format(player=view.name(action.by), score=score)
    else:
        games = len(after.results)
        how = ngettext(
            "Session over after {count} game at {score}", "Session over after {count} games at {score}", games
        ).format(count=games, score=score)
    if after.winner is None:
        outcome = _("level, nobody wins")
    else:
        lead = abs(after.score[0] - after.score[1])
        leader = _side_name(view, after.winner)
        if len(view.sides[after.winner]) > 1:
            outcome = ngettext(
                "{leaders} lead by {count} point and win the session",
                "{leaders} lead by {count} points and win the session",
                lead,
            ).format(leaders=leader, count=lead)
        else:
            outcome = ngettext(
                "{leader} leads by {count} point and wins the session",
                "{leader} leads by {count} points and wins the session",
                lead,
            ).format(leader=leader, count=lead)
    return _("{how}: {outcome}.").format(how=how, outcome=outcome)


def _unplayable_stage_words(before: MatchState, after: MatchState, used: int, name: Callable[[str], str]) -> str:
    """After a play whose next stage (dice the rules give, or the rest handed to the opponent) had no legal play and
    was passed over at once, that stage in words beginning with a space; "" otherwise (players would otherwise never
    hear of it: the engine skips such a stage without an action of its own)."""
    if after.over or after.phase is Phase.MOVE or before.dice is None or before.roller is None:
        return ""
    try:  # what the rule set said follows the play (the engine asked the same, with the same context)
        step = before.variant.next_stage(before.dice, used, before.turn_context())
    except Exception:  # a rule set that raises was contained when the play was made
        return ""
    if not isinstance(step, NextStage) or step.dice is None:
        return ""
    dice = f"{step.dice[0]}-{step.dice[1]}"
    if step.step is TurnStep.FIXED_DICE and before.stage is not Stage.HANDED:
        return " " + _("The rules give {dice} next, which cannot be played: the turn passes.").format(dice=dice)
    if step.step is TurnStep.TO_OPPONENT:
        player = name(before.acting_member(1 - before.roller))
        return " " + _("The rest of {dice} goes to {player}, who cannot play it.").format(dice=dice, player=player)
    return ""


def _stage_words(before: MatchState, after: MatchState, name: Callable[[str], str]) -> str:
    """After a play, the stage the rules give next (a cascade's next doublet, dice handed to the opponent), in words
    beginning with a space; "" when the turn simply goes on or passes."""
    if after.phase is not Phase.MOVE or after.dice is None or after.roller is None or after.over:
        return ""
    dice = f"{after.dice[0]}-{after.dice[1]}"
    if after.stage is Stage.FIXED and after.roller == before.roller:
        return " " + _("The rules give {dice} next, in the same turn.").format(dice=dice)
    if after.stage is Stage.HANDED and after.roller != before.roller:
        count = after.count or (4 if after.dice[0] == after.dice[1] else 2)
        return " " + ngettext(
            "{count} die of {dice} goes to {player}, who plays it before rolling.",
            "{count} dice of {dice} go to {player}, who plays them before rolling.",
            count,
        ).format(count=count, dice=dice, player=name(after.acting_member(after.roller)))
    return ""


def _phase_verb(phase: Phase) -> str:
    """What the player to act does in a phase (for "Alice to roll.")."""
    return {
        Phase.ROLL: pgettext("what the player to act does", "roll"),
        Phase.MOVE: pgettext("what the player to act does", "play"),
        Phase.DOUBLED: pgettext("what the player to act does", "take or pass"),
        Phase.RESIGNED: pgettext("what the player to act does", "accept or reject the resignation"),
        Phase.OPENING: pgettext("what the player to act does", "roll the opening dice"),
        Phase.OVER: pgettext("what the player to act does", "rest"),
        Phase.NAME_DOUBLE: pgettext("what the player to act does", "name a doublet to play (any of 1-1 to 6-6)"),
    }[phase]


def _verb(state: MatchState) -> str:
    """What the player to act does now, offering only what the engine allows (no "or double" where the cube is
    the opponent's, in the Crawford game, dead, or not in the rule set)."""
    if state.phase is Phase.ROLL and state.roller is not None:
        if state.stage is Stage.AGAIN:
            return pgettext("what the player to act does", "roll again")
        if allowed_actions(state, state.roller).double:
            return pgettext("what the player to act does", "roll or double")
        return _phase_verb(Phase.ROLL)
    if state.phase is Phase.MOVE and state.stage is Stage.NAMED and state.dice is not None:
        return pgettext("what the player to act does", "play the named {dice}").format(
            dice=f"{state.dice[0]}-{state.dice[1]}"
        )
    if state.phase is Phase.MOVE and state.stage is Stage.FIXED and state.dice is not None:
        return pgettext("what the player to act does", "play {dice}, the next stage of the turn").format(
            dice=f"{state.dice[0]}-{state.dice[1]}"
        )
    if state.phase is Phase.MOVE and state.stage is Stage.HANDED and state.dice is not None:
        return pgettext("what the player to act does", "play the {dice} the opponent could not, before rolling").format(
            dice=f"{state.dice[0]}-{state.dice[1]}"
        )
    return _phase_verb(state.phase)
