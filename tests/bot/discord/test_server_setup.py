"""Servers the way Discord servers are: the setup message, the languages members' clients show, and what the
operator sees when players are turned away for reasons that are not theirs.

A server that is not a Community server reports ``en-US`` as its language whatever its members speak, so the bot
listens to the members instead: each interaction carries its asker's locale, and ``language: auto`` follows what most
of them show. A player whose client speaks a language the bot does not ship reads the server's language.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from simcord.backend.serializers import guild_create_payload

from bot.config import Settings
from bot.discord.app import LOG_FORMAT
from bot.service import Refused, Request, service_for
from bot.storage import Store, Unavailable
from tests.bot.discord.helpers import World, components, said, world
from tests.bot.discord.test_i18n_discord import speaking

pytestmark = pytest.mark.asyncio


def rejoin(w: World, guild: simcord.GuildHandle) -> None:
    """The bot is added to ``guild`` (again): Discord sends it the server, channels and all."""
    backend = w.env.backend
    joined = dict(guild_create_payload(backend, backend.get_guild(guild.id)))
    joined.pop("unavailable", None)  # a server the bot joins (an outage's return would say unavailable: false)
    backend.emit("GUILD_CREATE", joined)


async def offered(w: World) -> None:
    """Wait for the setup messages under way."""
    welcome: Any = w.bot.welcome
    await w.env.settle()
    await welcome.idle()


def setup_messages(channel: simcord.ChannelHandle) -> list[discord.Message]:
    return [m for m in channel.history() if any(c["custom_id"].startswith("bg:setup:") for c in components(m))]


def selected(message: discord.Message, what: str) -> list[str]:
    (select,) = [c for c in components(message) if c["custom_id"] == f"bg:setup:{what}"]
    return [o["value"] for o in select["options"] if o.get("default")]


async def test_the_setup_message_is_offered_once_in_the_members_language_and_only_admins_change_it(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        club = w.env.create_guild("Klub")  # not a Community server: Discord says en-US
        general = club.create_text_channel("general")
        members = {name: club.add_member(w.people[name].user) for name in ("alice", "bob", "carol")}
        admins = club.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = club.add_member(w.env.create_user("admin"), roles=[admins])
        with speaking({members["alice"].id: "ru", members["bob"].id: "ru", members["carol"].id: "uk"}):
            for member in members.values():  # the members use the bot: their clients' locales are noted
                await w.do(member.slash(general, "bg games"))
            # carol's client speaks Ukrainian, which the bot does not ship: she reads the server's language.
            r = await w.do(members["carol"].slash(general, "bg games"))
            assert said(r).startswith("У вас нет игр"), said(r)

            await offered(w)
            assert setup_messages(general) == []  # the server was new and had no channel when the bot joined
            rejoin(w, club)  # added (back): offered now, where an admin sees it
            await offered(w)
            (message,) = setup_messages(general)
            assert message.content.startswith("**Спасибо, что добавили gammonbot!**"), message.content
            assert selected(message, "language") == ["ru"]  # what most members speak
            assert selected(message, "variant") == ["backgammon"] and selected(message, "length") == ["5"]
            rejoin(w, club)
            await offered(w)
            assert len(setup_messages(general)) == 1  # once

            # A member may not change anything; an admin may.
            r = await w.do(members["alice"].select(message, ["el"], custom_id="bg:setup:language"))
            assert r.followups[0].ephemeral and "Управлять сервером" in r.followups[0].content
            assert (await w.bot.service.server_settings(str(club.id)))["language"] == "auto"
            r = await w.do(admin.select(message, ["el"], custom_id="bg:setup:language"))
            assert r.followups[0].content == "Saved: language = Ελληνικά."  # the admin's client is English
            r = await w.do(admin.select(message, ["longgammon"], custom_id="bg:setup:variant"))
            r = await w.do(admin.select(message, ["7"], custom_id="bg:setup:length"))
            settings = await w.bot.service.server_settings(str(club.id))
            assert (settings["language"], settings["default_variant"], settings["default_length"]) == (
                "el",
                "longgammon",
                7,
            )
            (message,) = setup_messages(general)  # redrawn in the server's new language, with its choices
            assert "gammonbot" in message.content and "Ευχαριστούμε" in message.content
            assert selected(message, "language") == ["el"] and selected(message, "length") == ["7"]
            r = await w.do(members["alice"].slash(general, "bg play", opponent=members["bob"]))
            assert "7" in said(r)  # a challenge that names nothing gets the new defaults


async def test_a_server_that_never_set_the_bot_up_is_offered_it_when_the_bot_is_next_ready(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        quiet = w.env.create_guild("Quiet")
        lobby = quiet.create_text_channel("lobby")
        busy = w.env.create_guild("Busy")
        hall = busy.create_text_channel("hall")
        await offered(w)
        boss = busy.add_member(
            w.env.create_user("boss"),
            roles=[busy.create_role("Admins", permissions=discord.Permissions(manage_guild=True))],
        )
        await w.do(boss.slash(hall, "bg-admin config", default_length=3))  # Busy set the bot up itself
        await w.restart()
        await offered(w)
        assert len(setup_messages(lobby)) == 1 and setup_messages(hall) == []
        assert setup_messages(w.channel) == []  # the tests' own server had its message already
        await w.restart()
        await offered(w)
        assert len(setup_messages(lobby)) == 1  # not again


async def test_auto_follows_a_community_servers_language_else_what_most_players_speak(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol = (w.people[n] for n in ("alice", "bob", "carol"))
        with speaking({alice.id: "el", bob.id: "el", carol.id: "tr"}):
            r = await w.do(carol.slash(w.channel, "bg games"))
            assert said(r).startswith("Oyunlarınız") or said(r).startswith("Hiç oyununuz")  # her own: Turkish
            r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=1))
            assert not r.ephemeral and "Αποδοχή" in str(components(r.response))  # posted in the members' Greek
            # A Community server's own language comes first.
            guild: Any = w.bot.get_guild(w.guild.id)
            guild.features.append("COMMUNITY")
            guild.preferred_locale = discord.Locale.turkish
            r = await w.do(bob.slash(w.channel, "bg play", opponent=alice, length=1))
            assert "Kabul" in str(components(r.response))


# --- what the operator sees -------------------------------------------------------------------------------------------


async def test_every_log_line_of_the_bot_carries_a_timestamp() -> None:
    record = logging.LogRecord("gammonbot.discord", logging.WARNING, __file__, 1, "server %s: refused", ("42",), None)
    line = logging.Formatter(LOG_FORMAT).format(record)
    assert line.endswith("WARNING gammonbot.discord: server 42: refused") and line[:4].isdigit() and ":" in line[:20]


async def test_a_refusal_for_a_database_that_does_not_answer_is_logged_with_the_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
    service = service_for(store, Settings())
    try:

        async def silent(*args: Any, **kwargs: Any) -> Any:
            raise Unavailable(Unavailable.MESSAGE)

        store.games_of = silent  # type: ignore[method-assign]
        with caplog.at_level(logging.WARNING, logger="gammonbot"), pytest.raises(Refused) as refused:
            await service.game_list(Request("7", "ann", "4242", "discord"))
        assert str(refused.value) == Unavailable.MESSAGE
        (line,) = [r for r in caplog.records if "database is not answering" in r.getMessage()]
        assert line.levelno == logging.WARNING
        assert "server 4242" in line.getMessage() and "game_list" in line.getMessage()
    finally:
        await service.close()
        await store.close()
