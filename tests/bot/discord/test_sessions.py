"""Money sessions and rule-set results in Discord (simcord): a session of N games set in ``/bg play``, the End session
button between games, and the Resign… chooser in the rule set's words (Longgammon: a single game or a mars)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.discord.helpers import Driver, labels, live_message, reply, world

pytestmark = pytest.mark.asyncio


async def resign_game(d: Driver, level: str) -> None:
    """The player on roll (before rolling) presses Resign… and picks ``level``; the opponent accepts if asked."""
    await d.until("roll")
    resigner = await d.actor()
    r = await d.w.do(resigner.click(live_message(await d.thread()), label="Resign…"))
    await d.w.do(resigner.click(reply(r), label=level))
    if (await d.view()).phase == "resigned":
        await d.click("Accept resignation")


async def test_a_session_of_games_set_in_play_and_ended_between_games_with_a_button(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="backgammon", length=0, options="games=5")
        d = Driver(w, gid)
        opening = live_message(thread)
        assert labels(opening) == ["Roll", "End session"] and "Or end the session here" in opening.content
        await resign_game(d, "Resign a single game")
        view = await d.view()
        assert view.status == "active" and sum(view.score) == 1 and view.phase == "opening"
        # Mid-game there is no End session button; between games there is, for either player.
        await d.roll()
        assert "End session" not in labels(live_message(thread))
        await resign_game(d, "Resign a single game")
        assert "End session" in labels(live_message(thread))
        r = await d.click("End session", w.people["bob"])
        assert r.acknowledged
        view = await d.view()
        assert view.status == "finished" and sum(view.score) == 2
        text = "\n".join(m.content for m in thread.history())
        assert f"Session ended by bob at {view.score[0]}-{view.score[1]}" in text
        s0, s1 = view.score
        assert view.winner == (None if s0 == s1 else 0 if s0 > s1 else 1)  # the side ahead wins the session
        assert ("nobody wins" in text) == (s0 == s1)


async def test_the_longgammon_resign_chooser_offers_a_single_game_or_a_mars(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="longgammon", length=5)
        d = Driver(w, gid)
        await d.until("roll")
        resigner = await d.actor()
        r = await w.do(resigner.click(live_message(thread), label="Resign…"))
        assert labels(reply(r)) == ["Resign a single game", "Resign a mars"]
        await w.do(resigner.click(reply(r), label="Resign a mars"))
        view = await d.view()
        assert view.phase == "opening" and sorted(view.score) == [0, 2]  # a mars concedes the most: accepted
        text = "\n".join(m.content for m in thread.history())
        assert "offers to resign a mars" in text and "wins a mars (2 points" in text


async def test_a_dead_cube_has_no_double_button(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="backgammon", length=1)
        d = Driver(w, gid)
        await d.until("roll")
        message = live_message(thread)
        assert "Double" not in labels(message) and "(or double)" not in message.content
        assert "Roll" in labels(message)


async def test_a_session_of_one_game_set_in_play_ends_after_it(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant="backgammon", length=0, options="games=1")
        d = Driver(w, gid)
        await resign_game(d, "Resign a single game")
        view = await d.view()
        assert view.status == "finished" and sorted(view.score) == [0, 1]
        text = "\n".join(m.content for m in thread.history())
        assert "Session over after 1 game at" in text and "wins the session" in text
