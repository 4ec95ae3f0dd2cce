"""Issue 33, item 2 on Discord: a player with several games reads the game's number in a refusal about one of them;
a player with one game reads the refusal as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import PlayerRef, Request
from tests.bot.discord.helpers import said, world

pytestmark = pytest.mark.asyncio


async def test_a_refusal_names_the_game_when_the_asker_has_several(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        svc = w.bot.service
        guild = str(w.guild.id)
        alice, bob = w.people["alice"], w.people["bob"]
        me = Request(str(alice.id), "alice", guild, "discord")
        them = PlayerRef(str(bob.id), "bob")
        here = {"variant": "sprintgammon", "length": 1, "channel_id": str(w.channel.id)}
        first = (await svc.challenge(me, them, **here)).game.id
        await svc.accept(first, Request(them.id, them.name, guild, "discord"), entropy="one")

        r = await w.do(bob.slash(w.channel, "bg resign", game=first))  # nobody has rolled: no resignation yet
        alone = said(r)
        assert r.ephemeral and f"#{first}" not in alone

        second = (await svc.challenge(me, them, **here)).game.id
        r = await w.do(bob.slash(w.channel, "bg resign", game=first))
        assert r.ephemeral and said(r) == f"Game #{first}: {alone[0].lower()}{alone[1:]}", said(r)
        assert second != first
