"""Gul bara in Discord (simcord): a whole 1-point match played by its players' buttons and typed plays, whose seeded
dice give doublets that cascade from the fourth turn. One cascade runs through 6-6, one is cut short by a stage
played in part and one by a stage with no legal play; each stage the rules give is announced with its dice in the
turn message, under the board picture. With option ``rest_to_opponent`` the rest of a cut cascade goes to the
opponent, who is told so and plays it before rolling.

Which cascades happen is read from the match record, replayed through the engine (the seeds were chosen so that
these dice give them; the test says which one is missing if the bot's plays or the dice ever change)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.service import SYSTEM
from engine import match as m
from engine.record import actions_from_data, setup_from_data
from engine.variant import NextStage, TurnStep
from tests.bot.discord.helpers import Driver, World, live_message, reply, world

pytestmark = pytest.mark.asyncio


def stages_seen(record: dict[str, Any]) -> set[str]:
    """What the record's doublets did: "full" (a cascade's 6-6 stage played in full, so every stage before it),
    "partial" (a stage the rules gave played in part), "no play" (a stage the rules gave next that had no legal
    play), "handed" (the rest of a cascade handed to the opponent with dice he can play)."""
    setup = setup_from_data(record["setup"])
    actions = actions_from_data(record["actions"])
    states = list(m.states(setup, actions))
    seen: set[str] = set()
    for before, action, after in zip(states, actions, states[1:], strict=False):
        if not isinstance(action, m.Move) or before.dice is None or before.dice[0] != before.dice[1]:
            continue
        used, full = len(action.moves), before.count or 4
        if before.stage is m.Stage.FIXED:
            seen.add("full" if before.dice == (6, 6) and used == full else "partial" if used < full else "")
        nxt = before.variant.next_stage(before.dice, used, before.turn_context())
        given = nxt.dice if isinstance(nxt, NextStage) and nxt.step is TurnStep.FIXED_DICE else None
        played = after.phase is m.Phase.MOVE and after.dice == given and after.roller == before.roller
        if given and before.stage is not m.Stage.HANDED and not played:
            seen.add("no play")
        if after.stage is m.Stage.HANDED and after.roller != before.roller:
            seen.add("handed")
    return seen - {""}


async def play_match(w: World, gid: int) -> int:
    """Play the match to its end, the first stage the rules give typed with ``/bg move`` and everything else with
    buttons and the play select; each turn message must carry the board picture. The number of actions."""
    d = Driver(w, gid)
    typed = False
    for n in range(3000):
        v = await d.view()
        if v.status != "active":
            return n
        thread = await d.thread()
        message = live_message(thread)
        assert message.attachments, f"no board picture on the turn message: {message.content!r}"
        state = await w.bot.service.state(gid, SYSTEM)
        if not typed and state.phase is m.Phase.MOVE and state.stage is m.Stage.FIXED and v.dice is not None:
            dice = f"{v.dice[0]}-{v.dice[1]}"
            assert f"play {dice}" in message.content, message.content
            typed = True
            r = await w.do(w.by_id(v.to_act or "").slash(thread, "bg move", play=v.plays[0]))
            assert r.acknowledged and (await d.view()).version > v.version, r  # the typed play was made
            continue
        await d.step()
    raise AssertionError("the match did not end")


async def test_a_gul_bara_match_with_a_full_cascade_and_cut_short_ones(tmp_path: Path) -> None:
    async with world(tmp_path, seed=2) as w:
        gid, thread = await w.start(variant="gulbara", length=1)
        await play_match(w, gid)
        view = await w.view(gid)
        assert view.status == "finished" and max(view.score) >= 1
        history = "\n".join(m.content for m in thread.history())
        for n in (3, 4, 5, 6):
            assert f"The rules give {n}-{n} next, in the same turn." in history
        assert "Match over:" in history and "Ratings (Gul bara)" in history
        seen = stages_seen(await w.bot.service.record(gid, SYSTEM))
        assert {"full", "partial", "no play"} <= seen, seen
        assert "handed" not in seen  # the rest of a cut cascade is lost by default
        # A stage the rules give that cannot be played is said, not passed over in silence.
        assert re.search(r"The rules give (\d)-\1 next, which cannot be played: the turn passes\.", history), history


async def test_with_rest_to_opponent_the_rest_of_a_cut_cascade_is_played_by_the_opponent(tmp_path: Path) -> None:
    async with world(tmp_path, seed=3) as w:
        gid, thread = await w.start(variant="gulbara", length=1, options="rest_to_opponent=on")
        await play_match(w, gid)
        view = await w.view(gid)
        assert view.status == "finished" and max(view.score) >= 1
        history = "\n".join(m.content for m in thread.history())
        assert re.search(r"\d (die|dice) of (\d)-\2 (goes|go) to \w+, who plays (it|them) before rolling\.", history), (
            history
        )
        assert "Match over:" in history
        seen = stages_seen(await w.bot.service.record(gid, SYSTEM))
        assert {"full", "partial", "handed"} <= seen, seen
        r = await w.do(w.people["alice"].slash(thread, "bg-info rules"))
        assert "cascade" in reply(r).content.lower()
