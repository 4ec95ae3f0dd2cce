"""The backgammon family in Discord (simcord and the real discord.py): a whole 1-point match of Portes, Plakoto,
Fevga and Acey-deucey each (the named doublet of Acey-deucey's 1-2 chosen with its buttons), and a 3-game Tavli
match whose boards and messages say which game of the cycle is being played."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.discord.helpers import Driver, labels, live_message, world

pytestmark = pytest.mark.asyncio


async def play_out(d: Driver, limit: int = 2000) -> list[str]:
    """Step the match to its end; the labels of every turn message seen on the way."""
    seen: list[str] = []
    for _ in range(limit):
        v = await d.view()
        if v.status != "active":
            return seen
        seen += labels(live_message(await d.thread()))
        await d.step()
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("variant", ["portes", "plakoto", "fevga", "aceydeucey"])
async def test_a_1_point_match_of_each_family_rule_set_is_played_to_the_end(tmp_path: Path, variant: str) -> None:
    async with world(tmp_path) as w:
        gid, thread = await w.start(variant=variant, length=1)
        d = Driver(w, gid)
        seen = await play_out(d)
        view = await d.view()
        assert view.status == "finished" and max(view.score) >= 1
        history = "\n".join(m.content for m in thread.history())
        assert "Match over:" in history
        if variant == "aceydeucey":  # after a 1-2 used in full: a button for each doublet, drawn from the engine
            assert all(f"Name double: {d}-{d}" in seen for d in range(1, 7)) and "names 6-6" in history
            assert " in/" in history  # checkers entering from the reserve


async def test_a_3_game_tavli_match_says_which_game_of_the_cycle_is_played(tmp_path: Path) -> None:
    async with world(tmp_path, seed=5) as w:  # these dice give a match of exactly three games
        gid, thread = await w.start(variant="tavli", length=3)
        d = Driver(w, gid)
        titles: list[str] = []
        for _ in range(2000):
            v = await d.view()
            if v.status != "active":
                break
            if not titles or titles[-1] != v.display_name:
                titles.append(v.display_name)
                board = live_message(await d.thread())
                assert board.attachments and f"**#{gid} {v.display_name} " in board.content
            await d.step()
        assert titles == ["Tavli, game 1: Portes", "Tavli, game 2: Plakoto", "Tavli, game 3: Fevga"]
        history = "\n".join(m.content for m in thread.history())
        assert "starts and rolls both dice" in history and "Next: Tavli, game 2: Plakoto." in history
        assert "Match over:" in history and "Ratings (Tavli)" in history
        r = await w.do(w.people["alice"].slash(thread, "bg-info rules"))
        assert r.response is not None and "Portes, then Plakoto, then Fevga" in r.response.content
        r = await w.do(w.people["alice"].slash(w.channel, "bg-stats leaderboard", variant="tavli"))
        board = r.response.embeds[0] if r.response is not None and r.response.embeds else None
        assert board is not None and "Tavli" in (board.title or "") and "alice" in (board.description or "")
