"""The match card posted when a match ends, and ``/bg replay`` (an animated GIF of a game), through simcord and the
real discord.py command tree."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image, ImageSequence

from bot.service import SYSTEM
from engine.matchcard import plays_in_game
from engine.record import actions_from_data, setup_from_data
from tests.bot.discord.helpers import Driver, World, answer, game_thread, said, world

pytestmark = pytest.mark.asyncio

#: Discord's upload limit on a server without boosts.
DISCORD_LIMIT = 8 * 1024 * 1024
SNOWFLAKE = re.compile(r"\d{15,}")


async def played_match(w: World, winner: str, loser: str, rolls: int = 8) -> int:
    """A 1-point backgammon match in Discord: ``rolls`` rolls are played, then the loser resigns a backgammon."""
    gid, thread = await w.start(opponent=loser, challenger=winner, length=1)
    d = Driver(w, gid)
    lose = w.people[loser]
    for _ in range(200):
        v = await d.view()
        if v.status == "finished":
            return gid
        record = await w.bot.service.record(gid, SYSTEM)
        thrown = sum(1 for a in record["actions"] if a["type"] == "Roll")
        if v.phase == "roll" and v.to_act == str(lose.id) and thrown >= rolls:
            r = await w.do(lose.slash(thread, "bg resign", level="backgammon"))
            assert r.acknowledged, said(r)
        else:
            await d.step()
    raise AssertionError(f"match #{gid} did not end")


async def test_the_match_card_is_posted_when_a_match_ends_with_the_analysis_asked_for(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice = w.people["alice"]
        r = await w.do(alice.slash(w.channel, "bg-me settings", analysis=True))
        assert r.acknowledged, said(r)
        gid = await played_match(w, "alice", "bob")
        thread = game_thread(w, await w.view(gid))
        cards = [m for m in thread.history() if any(a.filename == f"game{gid}-card.png" for a in m.attachments)]
        assert len(cards) == 1, [m.content for m in thread.history()]
        (card,) = cards
        files = [m for m in thread.history() if any(a.filename == f"game{gid}.mat" for a in m.attachments)]
        assert files and files[0].id < card.id  # after the end of the match and its .mat file
        assert card.content == f"**#{gid} match card**" and not card.flags.ephemeral
        (attachment,) = card.attachments
        image = Image.open(io.BytesIO(await attachment.read()))
        assert image.format == "PNG" and image.width >= 560
        alt = attachment.description or ""
        assert alt.startswith(f"Match card #{gid} Backgammon (match to 1): alice 3, bob 0; alice wins"), alt
        assert "error rates alice" in alt  # alice asked for analyses
        assert not SNOWFLAKE.search(alt + card.content + attachment.filename)


async def test_replay_posts_a_gif_with_one_frame_per_play_and_only_for_games_the_asker_can_see(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, eve = w.people["alice"], w.people["eve"]
        gid = await played_match(w, "alice", "bob", rolls=6)
        thread = game_thread(w, await w.view(gid))
        record = await w.bot.service.record(gid, SYSTEM)
        plays = plays_in_game(setup_from_data(record["setup"]), actions_from_data(record["actions"]), 1)
        assert plays >= 6

        # Anyone in the server may replay it (eve did not play), in the match's thread or by its number.
        for r in (
            await w.do(eve.slash(thread, "bg replay")),
            await w.do(alice.slash(w.channel, "bg replay", game=gid, number=1)),
        ):
            message = answer(r)
            assert message.ephemeral, message.content
            (attachment,) = message.attachments
            assert attachment.filename == f"game{gid}-1-replay.gif"
            assert f"game 1: {plays} plays, one picture each" in message.content
            data = await attachment.read()
            assert len(data) < DISCORD_LIMIT
            gif = Image.open(io.BytesIO(data))
            assert gif.format == "GIF" and sum(1 for _ in ImageSequence.Iterator(gif)) == plays + 1
            assert not SNOWFLAKE.search(message.content + (attachment.description or ""))

        r = await w.do(alice.slash(thread, "bg replay", number=2))
        assert said(r) == f"Match #{gid} has only one game so far"

        # From another server, the number is no game at all, even for a player of the match.
        other = w.env.create_guild("Other Club")
        lobby = other.create_text_channel("backgammon")
        alice_b = other.add_member(alice.user)
        r = await w.do(alice_b.slash(lobby, "bg replay", game=gid))
        assert said(r) == f"There is no game #{gid}"
        assert not answer(r).attachments
