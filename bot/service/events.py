"""The sentences players read: every event text and result line the service produces."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from engine import match as m
from engine.controls import allowed_actions
from engine.match import Action, MatchOptions, MatchState, OpeningRule, Phase, Stage
from engine.matchcard import rule_end
from engine.plugins import registry
from engine.variant import Variant

from .helpers import _ended_state, _to_act
from .missing import not_installed
from .types import Event, GameView


def _with_names(text: str, names: Mapping[str, str]) -> str:
    """An engine message with the players' ids (Discord snowflakes, quoted or not) replaced by their names."""
    for pid in sorted(names, key=len, reverse=True):
        if names[pid] and names[pid] != pid:
            text = re.sub(rf"'{re.escape(pid)}'|(?<!\w){re.escape(pid)}(?!\w)", _literal(names[pid]), text)
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


def _ratings_event(game_id: int, view: GameView, changes: dict[str, Any]) -> Event:
    parts = []
    for player, (before, after) in changes.items():
        parts.append(f"{view.name(player)} {before:.0f} → {after:.0f} ({after - before:+.1f})")
    cls = registry().variants.get(view.variant)  # the match's rule set (Tavli, not the game of its cycle)
    shown = cls.display_name if cls is not None else view.display_name
    return Event("ratings", game_id, f"Ratings ({shown}): " + ", ".join(parts) + ".", None, {"changes": changes})


def _phase_words(state: MatchState) -> str:
    return {
        Phase.OPENING: "the opening roll is due",
        Phase.ROLL: "a roll is due",
        Phase.MOVE: "a play is due",
        Phase.DOUBLED: "a double is waiting for an answer",
        Phase.RESIGNED: "a resignation is waiting for an answer",
        Phase.OVER: "the match is over",
        Phase.NAME_DOUBLE: "a doublet is to be named",
    }[state.phase]


def _describe_terms(cls: type[Variant], opts: MatchOptions) -> str:
    what = f"a {opts.length}-point {cls.display_name} match" if opts.length else f"{cls.display_name} for money"
    extras = [
        label
        for flag, label in (
            (opts.jacoby, "Jacoby"),
            (opts.beavers, "beavers"),
            (opts.auto_doubles > 0, "automatic doubles"),
            (opts.holland, "Holland rule"),
            (not opts.crawford and opts.length > 0, "no Crawford rule"),
            (not opts.cube, "no cube"),
        )
        if flag
    ]
    return what + (f" ({', '.join(extras)})" if extras else "")


def _events(
    game_id: int, view: GameView, before: MatchState, action: Action, after: MatchState, *, auto: bool
) -> list[Event]:
    """The events one applied action produced, each with a sentence for the players."""
    name = view.name
    by = action.by
    out: list[Event] = []
    if isinstance(action, m.OpeningRoll):
        a, b = action.dice
        n0, n1 = name(before.acting_member(0)), name(before.acting_member(1))
        if a == b:
            tie = f"Opening roll: {n0} {a}, {n1} {b} — a tie"
            if after.cube.value > before.cube.value:  # automatic doubles
                tie += f": the cube is doubled automatically to {after.cube.value} (it stays in the middle)"
            out.append(Event("opening", game_id, f"{tie}; roll again.", by, {"dice": [a, b]}))
        else:
            starter = n0 if a > b else n1
            # Under a re-throw opening the throw only decides who starts, who then rolls both dice.
            rethrow = before.options.opening in (OpeningRule.REROLL, OpeningRule.WINNER_REROLL)
            then = f"{starter} starts and rolls both dice" if rethrow else f"{starter} plays {max(a, b)}-{min(a, b)}"
            out.append(Event("opening", game_id, f"Opening roll: {n0} {a}, {n1} {b}. {then}.", by, {"dice": [a, b]}))
    elif isinstance(action, m.Roll):
        text = f"{name(by)} rolled {action.dice[0]}-{action.dice[1]}."
        if after.roller != before.roller and not after.over:
            text += " No legal play: the turn passes."
        out.append(Event("roll", game_id, text, by, {"dice": list(action.dice)}))
    elif isinstance(action, m.NameDouble):
        d = action.value
        text = f"{name(by)} names {d}-{d}."
        if after.roller != before.roller and not after.over:
            text += " No legal play: the turn passes."
        out.append(Event("name-double", game_id, text, by, {"dice": [d, d]}))
    elif isinstance(action, m.Move):
        from engine.notation import format_play

        notation = format_play(action.moves) or "no move"
        prefix = "(automatic) " if auto else ""
        out.append(
            Event("move", game_id, f"{prefix}{name(by)} played {notation}.", by, {"play": notation, "auto": auto})
        )
    elif isinstance(action, m.Double):
        out.append(Event("double", game_id, f"{name(by)} doubles to {before.cube.value * 2}.", by))
    elif isinstance(action, m.Take):
        out.append(Event("take", game_id, f"{name(by)} takes; the cube is at {after.cube.value}.", by))
    elif isinstance(action, m.Pass):
        out.append(Event("pass", game_id, f"{name(by)} passes.", by))
    elif isinstance(action, m.Beaver):
        out.append(Event("beaver", game_id, f"{name(by)} beavers, redoubling to {after.cube.value * 2}.", by))
    elif isinstance(action, m.Raccoon):
        out.append(Event("raccoon", game_id, f"{name(by)} raccoons, redoubling to {after.cube.value * 2}.", by))
    elif isinstance(action, m.Resign):
        level = before.variant.result_name(action.level)
        out.append(Event("resign", game_id, f"{name(by)} offers to resign a {level}.", by, {"level": action.level}))
    elif isinstance(action, m.AcceptResignation):
        out.append(Event("resign-accepted", game_id, f"{name(by)} accepts the resignation.", by))
    elif isinstance(action, m.RejectResignation):
        out.append(Event("resign-rejected", game_id, f"{name(by)} rejects the resignation; play on.", by))
    elif isinstance(action, m.Timeout):
        out.append(Event("timeout", game_id, f"{name(by)} ran out of time.", by))
    elif isinstance(action, m.Forfeit):
        what = "session" if before.options.money else "match"
        out.append(Event("forfeit", game_id, f"{name(by)} forfeits the {what}.", by))
    elif isinstance(action, m.EndSession):
        hours = before.options.session_hours
        text = f"The session's {hours} hours are up." if action.deadline else f"{name(by)} ends the session."
        out.append(Event("end-session", game_id, text, None if action.deadline else by, {"deadline": action.deadline}))
    if isinstance(action, m.Resign) and after.phase is not Phase.RESIGNED and len(after.results) > len(before.results):
        out.append(
            Event(
                "resign-accepted",
                game_id,
                "The resignation is accepted automatically: nothing more could be won.",
                None,
            )
        )
    if len(after.results) > len(before.results):
        result = after.results[-1]
        text = _game_over_text(view, before, action, after, result)
        # "ended": the game's final position, for its board (GameService.board(..., game_end=this event)).
        data = {"winner": result.winner, "points": result.points, "game": result.game, "match_over": after.over}
        out.append(Event("game-over", game_id, text, None, {**data, "ended": _ended_state(before, action, after)}))
    if after.over and not before.over:
        winner = _side_name(view, after.winner) if after.winner is not None else "nobody"
        wins = "win" if after.winner is not None and len(view.sides[after.winner]) > 1 else "wins"
        text = f"Match over: {winner} {wins} {after.score[0]}-{after.score[1]}."
        if after.options.money:
            text = _session_over(view, before, action, after)
        out.append(Event("match-over", game_id, text, None, {"winner": after.winner}))
    elif not after.over:
        actor = _to_act(after)
        if actor is not None and (before.turn != after.turn or before.phase != after.phase):
            out.append(
                Event("turn", game_id, f"{name(actor)} to {_verb(after)}.", actor, {"phase": str(after.phase)})
            )
        elif after.phase is Phase.OPENING and before.phase is not Phase.OPENING:
            game = after.title if after.variant is not after.setup.variant else f"Game {after.game}"
            out.append(Event("turn", game_id, f"{game}: roll the opening dice.", None, {"phase": "opening"}))
    return out


def _game_over_text(view: GameView, before: MatchState, action: Action, after: MatchState, result: m.GameResult) -> str:
    """Who won the game just over, how (a rule or a draw in its own words) and for how much; the score; in a match
    that plays its games by other rule sets, which one the next game is."""
    winner = _side_name(view, result.winner)
    points = f"{result.points} point{'s' if result.points != 1 else ''}"
    wins = "win" if len(view.sides[result.winner]) > 1 else "wins"
    how = rule_end(before, action, result)
    if result.reason is m.EndReason.DRAW:
        text = f"A draw: {how or 'the game ends level'}; nobody scores."
    elif result.reason is m.EndReason.RULE:
        text = f"{winner} {wins} {points}: {how or 'a rule of the game ends it'}."
    else:
        kind = f"a {before.variant.result_name(result.level)}" if result.level else "the game"
        text = f"{winner} {wins} {kind} ({points}, {result.reason})."
    text += f" Score {after.score[0]}-{after.score[1]}"
    text += f" in a {after.options.length}-point match." if after.options.length else " (money)."
    if not after.over and after.variant is not before.variant:
        text += f" Next: {after.title}."
    return text


def _session_over(view: GameView, before: MatchState, action: Action, after: MatchState) -> str:
    """How a money session ended, at what score, and who leads (the side ahead wins it)."""
    score = f"{after.score[0]}-{after.score[1]}"
    if isinstance(action, m.EndSession) and action.deadline:
        how = f"Session ended at its deadline at {score}"
    elif isinstance(action, m.EndSession | m.Forfeit) and len(after.results) == len(before.results):
        how = f"Session ended by {view.name(action.by)} at {score}"
    else:
        games = len(after.results)
        how = f"Session over after {games} game{'s' if games != 1 else ''} at {score}"
    if after.winner is None:
        return f"{how}: level, nobody wins."
    lead = abs(after.score[0] - after.score[1])
    leader = _side_name(view, after.winner)
    team = len(view.sides[after.winner]) > 1
    points = f"{lead} point{'s' if lead != 1 else ''}"
    return f"{how}: {leader} {'lead' if team else 'leads'} by {points} and {'win' if team else 'wins'} the session."


def _verb(state: MatchState) -> str:
    """What the player to act does now, offering only what the engine allows (no "or double" where the cube is
    the opponent's, in the Crawford game, dead, or not in the rule set)."""
    if state.phase is Phase.ROLL and state.roller is not None:
        if state.stage is Stage.AGAIN:
            return "roll again"
        return "roll or double" if allowed_actions(state, state.roller).double else "roll"
    if state.phase is Phase.MOVE and state.stage is Stage.NAMED and state.dice is not None:
        return f"play the named {state.dice[0]}-{state.dice[1]}"
    return {
        Phase.ROLL: "roll",
        Phase.MOVE: "play",
        Phase.DOUBLED: "take or pass",
        Phase.RESIGNED: "accept or reject the resignation",
        Phase.OPENING: "roll the opening dice",
        Phase.OVER: "rest",
        Phase.NAME_DOUBLE: "name a doublet to play (any of 1-1 to 6-6)",
    }[state.phase]
