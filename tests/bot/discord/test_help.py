"""``/bg help``: a newcomer's walk through a first game, page by page, with pictures of real positions."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from bot.discord.cogs.help import PAGES, page_state
from engine.controls import allowed_actions
from engine.match import Phase, move_from_text
from tests.bot.discord.helpers import answer, components, reply, said, world

#: Every slash command the help mentions must exist: "/bg <words>" or "/bg-team <words>" as typed.
MENTION = re.compile(r"/(bg(?:-[a-z]+)?)((?: [a-z]+){0,2})")


def test_every_picture_is_the_position_its_page_describes() -> None:
    first = page_state(1)
    assert first is not None and first.phase is Phase.MOVE and first.dice == (3, 1) and first.roller == 0
    second = page_state(2)
    assert second is not None and second.roller == 1
    assert second.position_for(0).mine(5) == 2  # 8/5 6/5 made the 5 point
    third = page_state(3)
    assert third is not None and third.dice == (6, 5) and third.roller == 0
    assert move_from_text(third, "you", "24/13")  # the play the page suggests typing is legal
    fourth = page_state(4)
    assert fourth is not None and fourth.cube.value == 2 and fourth.cube.owner == 1
    assert not allowed_actions(fourth, 0).double  # the cube is the taker's now: the page says only they may double


@pytest.mark.asyncio
async def test_help_walks_through_the_pages_with_pictures(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice = w.people["alice"]
        r = await w.do(alice.slash(w.channel, "bg help"))
        message = reply(r)
        assert r.ephemeral
        seen = []
        for number in range(1, len(PAGES) + 1):
            (embed,) = message.embeds
            assert embed.title == PAGES[number - 1].title and f"Page {number} of {len(PAGES)}" in embed.footer.text
            if PAGES[number - 1].picture is not None:
                (file,) = message.attachments
                assert file.filename == f"help{number}.png"
                image = Image.open(io.BytesIO(await file.read()))
                assert image.size[0] >= 600  # a real board, drawn for this page
                assert "Position ID" in (file.description or "")
                # The example's players by their names in the reader's language, never the ids behind them.
                assert "Your friend" in (file.description or ""), file.description
            else:
                assert not message.attachments
            seen.append(embed.title)
            buttons = {c["label"]: c for c in components(message)}
            assert buttons["Previous"].get("disabled", False) == (number == 1)
            assert buttons["Next"].get("disabled", False) == (number == len(PAGES))
            if number < len(PAGES):
                await w.do(alice.click(message, label="Next"))
        assert seen == [p.title for p in PAGES]
        await w.do(alice.click(message, label="Previous"))
        assert message.embeds[0].title == PAGES[-2].title

        # Any page at once; past the last one, the last.
        r = await w.do(alice.slash(w.channel, "bg help", page=3))
        assert reply(r).embeds[0].title == PAGES[2].title
        r = await w.do(alice.slash(w.channel, "bg help", page=99))
        assert reply(r).embeds[0].title == PAGES[-1].title

        # Every command the help names exists.
        names = {c.qualified_name for c in w.bot.tree.walk_commands()}
        mentioned = set()
        for page in PAGES:
            for root, words in MENTION.findall(page.text):
                typed = f"{root}{words}"
                assert typed in names or f"{root}{words.rsplit(' ', 1)[0]}" in names, typed
                mentioned.add(root)
        # The last page names every top-level command (the admins' one for admins).
        assert mentioned == {c.name for c in w.bot.tree.get_commands()}


@pytest.mark.asyncio
async def test_forfeit_asks_first_then_gives_the_match_to_the_opponent(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(length=3)
        alice, carol = w.people["alice"], w.people["carol"]

        # Not a player of it: answered as for any game they cannot act in, and nothing changes.
        r = await w.do(carol.slash(w.channel, "bg forfeit", game=game_id, confirm=True))
        assert (await w.view(game_id)).status != "finished", said(r)

        # Asked first, privately (only the asker sees the button): nothing happens until they confirm.
        r = await w.do(alice.slash(w.channel, "bg forfeit", game=game_id))
        assert r.ephemeral and "wins the whole match" in said(r) and "cannot be undone" in said(r)
        assert (await w.view(game_id)).status != "finished"
        await w.do(alice.click(answer(r), label="Forfeit the match"))
        view = await w.view(game_id)
        assert view.status == "finished" and view.winner == 1, view
        posted = [m.content for m in thread.history()]
        assert any("forfeits the match" in text for text in posted), posted

        # Over: a second forfeit is refused in words.
        r = await w.do(alice.slash(w.channel, "bg forfeit", game=game_id, confirm=True))
        assert "over" in said(r).lower() or "finished" in said(r).lower(), said(r)


@pytest.mark.asyncio
async def test_resign_offers_the_results_of_the_games_rule_set(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        game_id, thread = await w.start(variant="longgammon", length=3)
        alice = w.people["alice"]
        choices = await alice.autocomplete(thread, "bg resign", "level", "", game=game_id)
        assert [c["value"] for c in choices] == ["single game", "mars"], choices
        assert [c["value"] for c in await alice.autocomplete(thread, "bg resign", "level", "ma", game=game_id)] == [
            "mars"
        ]
        standard, _ = await w.start(opponent="carol", length=3)
        names = [c["value"] for c in await alice.autocomplete(w.channel, "bg resign", "level", "", game=standard)]
        assert names == ["single game", "gammon", "backgammon"], names


def test_a_game_line_shows_the_cube_only_where_the_match_has_one() -> None:
    from dataclasses import replace

    from bot.discord.text import describe
    from bot.service import GameView

    view = GameView(
        id=3, guild_id="g", status="active", variant="plakoto", display_name="Plakoto", sides=(("a",), ("b",)),
        names={"a": "Ann", "b": "Bob"}, length=3, score=(1, 0), game=2, phase="roll", to_act="a", acting=None,
        dice=None, cube=1, cube_owner=None, plays=(), draft="", draft_remaining=(), winner=None, position_id=None,
        version=9, uses_cube=False,
    )  # fmt: skip
    assert "cube" not in describe(view), describe(view)
    assert describe(replace(view, uses_cube=True, cube=2, cube_owner=1)).endswith("cube 2 (Bob)")
