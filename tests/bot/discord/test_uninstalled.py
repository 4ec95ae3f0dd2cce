"""Discord, end to end through simcord: the Nackgammon plugin is left out (``GAMMONBOT_PLUGINS``) and the bot restarted
while a match of it is running and one is finished. ``/bg games`` lists the game as "rule set nackgammon is not
installed"; ``/bg board``, the game's thread and its old buttons say so in words; history, profile and the
leaderboard keep its results; the bot starts and serves everything else. With the plugin back, the game plays on."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.plugins import DEFAULT_PLUGINS, reset_registry
from tests.bot.discord.helpers import Driver, components, live_message, reply, said, world

MISSING = "rule set nackgammon is not installed"


@pytest.fixture
def nackgammon(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], None]]:
    """``nackgammon(False)`` leaves the plugin out (every built-in plugin stays), ``nackgammon(True)`` brings it back;
    the process registry is built again either way (each is followed by a restart of the bot)."""

    def switch(on: bool) -> None:
        if on:
            monkeypatch.delenv("GAMMONBOT_PLUGINS", raising=False)
        else:
            monkeypatch.setenv("GAMMONBOT_PLUGINS", ",".join(name for name, _ in DEFAULT_PLUGINS))
        reset_registry()

    switch(True)
    yield switch
    reset_registry()


@pytest.mark.asyncio
async def test_a_game_of_an_uninstalled_rule_set_is_listed_refused_in_words_and_plays_on_once_it_is_back(
    tmp_path: Path, nackgammon: Callable[[bool], None]
) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol = w.people["alice"], w.people["bob"], w.people["carol"]
        gid, thread = await w.start(variant="nackgammon", length=3)
        driver = Driver(w, gid)
        await driver.roll()  # the opening roll: someone is to play
        done, _ = await w.start(opponent="carol", variant="nackgammon", length=1)
        r = await w.do(alice.slash(w.channel, "bg forfeit", game=done, confirm=True))
        assert (await w.view(done)).status == "finished", said(r)
        old_prompt = live_message(thread)
        mover = w.by_id((await w.view(gid)).to_act or "")

        nackgammon(False)
        await w.restart()
        r = await w.do(alice.slash(w.channel, "bg games"))
        listed = reply(r).embeds[0].description or ""
        assert f"#{gid} nackgammon 3-point match · alice 0 – 0 bob · {MISSING}" in listed, listed
        refusal = f"game #{gid} is a game of nackgammon, which is not installed on this bot"
        r = await w.do(alice.slash(w.channel, "bg board", game=gid))
        assert r.ephemeral and refusal in said(r).lower()
        r = await w.do(bob.slash(thread, "bg board"))  # in the game's own thread
        assert r.ephemeral and refusal in said(r).lower()
        button = next(c for c in components(old_prompt) if c.get("type") == 2 and c.get("custom_id"))
        r = await w.do(mover.click(old_prompt, custom_id=button["custom_id"]))  # a button posted before the restart
        assert r.ephemeral and refusal in said(r).lower()
        r = await w.do(alice.slash(w.channel, "bg-stats history"))
        (line,) = [x for x in (reply(r).embeds[0].description or "").splitlines() if x.startswith(f"#{done} ")]
        assert line.startswith(f"#{done} Nackgammon 1-point match") and MISSING in line
        r = await w.do(carol.slash(w.channel, "bg-stats profile"))
        assert f"nackgammon ({MISSING})" in [f.name for f in reply(r).embeds[0].fields]
        r = await w.do(carol.slash(w.channel, "bg-stats leaderboard", variant="nackgammon"))
        assert reply(r).embeds[0].title == f"nackgammon leaderboard ({MISSING})"
        other, _ = await w.start(opponent="carol")  # the bot serves everything else
        assert (await w.view(other)).status == "active"

        nackgammon(True)
        await w.restart()
        r = await w.do(alice.slash(w.channel, "bg games"))
        assert MISSING not in (reply(r).embeds[0].description or "")
        before = await w.view(gid)
        await driver.step()  # the player to act plays their roll: the game goes on
        after = await w.view(gid)
        assert after.version > before.version and after.to_act != before.to_act
