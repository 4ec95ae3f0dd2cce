"""The heavy jobs the service hands to its worker processes (bot/service/pool.py): pure functions of values the
engine makes and of a record as the store gives it (one string), so that a job gives the same answer in a thread and
in a worker. A worker finds each by its name here.
"""

from __future__ import annotations

import json
from typing import Any

from engine import match as m
from engine.analysis import analyse, hint
from engine.fairdice import player_rolls, tally_rolls, verify_record
from engine.matchcard import analyse_card, match_card, replay_frames
from engine.matfile import export_mat
from engine.players import Player, bot_action
from engine.record import action_from_data, log_counters, state_to_data

from ..storage import log_lines

__all__ = [
    "Log",
    "export_record",
    "replay_record",
    "replay_counted",
    "replay_agrees",
    "check_record",
    "record_of",
    "rolls_of",
    "tally_logs",
    "choose_action",
    "hint_for",
    "analyse_record",
    "draw_card",
    "draw_replay",
]


#: A record as the store gives it (Store.action_log): one string, a line per action (its number, a tab, its JSON
#: text). The service's process reads it and sends it on as it is; the job decodes it.
Log = str


def _rows(log: Log) -> list[dict[str, Any]]:
    return [json.loads(text) for _seq, text in log_lines(log)]


def _actions(log: Log) -> list[m.Action]:
    return [action_from_data(row) for row in _rows(log)]


def export_record(setup: m.MatchSetup, log: Log) -> str:
    """A record as a ``.mat`` file."""
    return export_mat(setup, _actions(log))


def replay_record(setup: m.MatchSetup, log: Log) -> m.MatchState:
    """The state a record replays to."""
    return m.replay(setup, _actions(log))


def replay_counted(setup: m.MatchSetup, log: Log) -> tuple[m.MatchState, dict[str, int]]:
    """The state a record replays to, and its counters (engine.record.log_counters)."""
    rows = _rows(log)
    return m.replay(setup, [action_from_data(row) for row in rows]), log_counters(rows)


def replay_agrees(final: m.MatchState, log: Log) -> bool:
    """Whether a record replays to ``final`` (False when it does not replay at all)."""
    from engine.match import ActionError
    from engine.record import RecordError

    try:
        return state_to_data(m.replay(final.setup, _actions(log))) == state_to_data(final)
    except (ActionError, RecordError):
        return False


def check_record(log: Log, setup: dict[str, Any], proof: dict[str, Any], with_text: bool) -> tuple[Any, str | None]:
    """A match record checked against its dice proof (engine.fairdice.VerifyReport) and, when ``with_text`` and it
    checks out, the record as the JSON text players download (what ``gammonbot verify`` reads)."""
    record = {"setup": setup, "actions": _rows(log), "dice": proof}
    report = verify_record(record)
    text = json.dumps(record, indent=1, sort_keys=True) if with_text and report.ok else None
    return report, text


def record_of(log: Log, setup: dict[str, Any], proof: dict[str, Any] | None) -> dict[str, Any]:
    """A match record as a value: setup, every action, the dice proof."""
    return {"setup": setup, "actions": _rows(log), "dice": proof}


def rolls_of(log: Log, player: str) -> list[tuple[int, int]]:
    """The dice ``player`` threw in a record (engine.fairdice.player_rolls)."""
    return player_rolls(_actions(log), player)


def tally_logs(*logs: Log) -> list[dict[str, list[int]]]:
    """Each record's dice tally (engine.fairdice.tally_rolls), for games played before tallies were kept."""
    return [tally_rolls(_actions(log)) for log in logs]


def choose_action(player: Player, state: m.MatchState, side: int, time_cap: float) -> tuple[m.Action, Player]:
    """What a bot player does for ``side`` now, and the player afterwards (its random state, what it learnt of its
    own speed): a worker's copy goes back to the service. The dice it might throw are never used (the service throws
    its own)."""
    return bot_action(player, state, side, lambda: (1, 1), time_cap=time_cap), player


def hint_for(state: m.MatchState, n: int, time_cap: float) -> Any:
    """engine.analysis.hint by the default analyst."""
    return hint(state, None, n, time_cap=time_cap)


def analyse_record(setup: m.MatchSetup, log: Log, time_cap: float, from_game: int = 1) -> Any:
    """engine.analysis.analyse of a record by the default analyst (from game ``from_game`` on)."""
    return analyse(setup, _actions(log), None, time_cap=time_cap, from_game=from_game)


def draw_card(
    setup: m.MatchSetup,
    theme: Any,
    log: Log,
    analysis: bool,
    names: dict[str, str],
    title: str,
    compress_level: int,
    time_cap: float,
    from_game: int = 1,
    analyse_from: int = 1,
) -> tuple[Any, str | None, Any]:
    """A match card drawn (render.card.RenderedCard), why its analysis was left out (None when it was not), and
    the analysis (engine.analysis.MatchAnalysis, None without one), so the match's report need not make it again.
    ``from_game``: count dice and cube from that game on; ``analyse_from``: analyse from that game on."""
    from engine.analysis import HintError
    from engine.players import PlayerUnavailable, UnsupportedVariant
    from render.card import render_card

    acts = _actions(log)
    result, figures, left_out = None, None, None
    if analysis:
        try:
            result, figures = analyse_card(setup, acts, time_cap=time_cap, from_game=analyse_from)
        except (HintError, PlayerUnavailable, UnsupportedVariant) as exc:
            left_out = str(exc)
    card = match_card(setup, acts, figures, names=names, from_game=max(from_game, analyse_from if analysis else 1))
    return render_card(card, theme, title=title, compress_level=compress_level), left_out, result


def draw_replay(
    setup: m.MatchSetup,
    theme: Any,
    log: Log,
    number: int,
    side: int,
    names: dict[str, str],
    home: str,
) -> Any:
    """Game ``number`` of a record as an animated picture (render.replay.RenderedReplay); ValueError when it is
    longer than any picture Discord takes."""
    from render.replay import render_replay

    frames = replay_frames(setup, _actions(log), number, viewer=side, names=names, home=home)
    return render_replay(frames, theme)
