"""Every option reachable on Discord: ``/bg play options:``, ``/bg-admin config options:``, their suggestions, and
``/bg-info rules game:`` showing the terms in force, through simcord and the real command tree."""

from __future__ import annotations

import re
from pathlib import Path

import discord
import pytest

from bot.service import SYSTEM
from tests.bot.discord.helpers import game_thread, reply, said, show_command, world


@pytest.mark.asyncio
async def test_play_takes_an_options_string_with_suggestions_and_rules_shows_the_terms(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        choices = await alice.autocomplete(w.channel, "bg play", "options", "jacoby bea", length=0)
        assert [c["value"] for c in choices][:2] == ["jacoby beavers", "jacoby beaver_limit=3"]
        assert all(len(c["name"]) <= 100 and len(c["value"]) <= 100 for c in choices)
        everything = await alice.autocomplete(w.channel, "bg play", "options", "", length=0)
        assert 0 < len(everything) <= 25 and "holland" not in [c["value"] for c in everything]
        koks = await alice.autocomplete(w.channel, "bg play", "options", "ko", variant="longgammon", length=1)
        assert [c["value"] for c in koks] == ["koks"]
        typo = await alice.autocomplete(w.channel, "bg play", "options", "jacobi be", length=0)
        assert typo == [{"name": "⚠ unknown option 'jacobi' — did you mean 'jacoby'?", "value": "jacobi be"}]

        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=0, options="jacobi"))
        assert r.ephemeral and "did you mean 'jacoby'?" in said(r)
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=0, jacoby=True, options="jacoby=off"))
        assert r.ephemeral and "Jacoby is given twice: give each option once" in said(r)

        r = await w.do(
            alice.slash(
                w.channel, "bg play", opponent=bob, variant="longgammon", length=0,
                options="jacoby beavers max_cube=16 games=5 koks=on", crawford=True,
            )
        )  # fmt: skip
        text = reply(r).content
        assert "Longgammon for money (Jacoby, beavers)" in text and "games=5 max_cube=16" in text and "koks" in text
        game_id = int(re.findall(r"game #(\d+)", text)[0])
        await w.do(bob.click(reply(r), label="Accept"))
        state = await w.bot.service.state(game_id, SYSTEM)
        assert state.variant.options["koks"] and state.options.jacoby and state.options.max_cube == 16
        assert state.options.games == 5

        thread = game_thread(w, await w.view(game_id))
        r = await w.do(bob.slash(thread, "bg-info rules"))  # in the match thread: this game's terms
        terms = said(r)
        assert r.ephemeral and terms.startswith(f"**Game #{game_id}**")
        assert "- Longgammon for money, a session of 5 games" in terms
        assert "- Doubling cube: in use, up to 16" in terms and "- Jacoby rule: on" in terms
        assert "- Longgammon options: koks on;" in terms and "Longgammon:" in terms  # and the rule set's summary
        r = await w.do(alice.slash(w.channel, "bg-info rules", game=game_id))
        assert said(r) == terms
        r = await w.do(alice.slash(w.channel, "bg-info rules"))  # not in a thread: the rules of backgammon
        assert said(r).startswith("Backgammon:")
        r = await w.do(w.people["eve"].slash(w.channel, "bg-info rules", game=999))
        assert r.ephemeral and "no game #999" in said(r)
        choices = await alice.autocomplete(w.channel, "bg-info rules", "game", "")
        assert game_id in [c["value"] for c in choices]


@pytest.mark.asyncio
async def test_server_default_options_are_set_shown_checked_and_used(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        show_command(w, "bg-admin", alice)  # a server that shows /bg-admin to a member: the service still refuses
        r = await w.do(alice.slash(w.channel, "bg-admin config", options="jacoby"))
        assert r.ephemeral and "Manage Server" in said(r)
        role = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = w.guild.add_member(w.env.create_user("admin"), roles=[role])
        choices = await admin.autocomplete(w.channel, "bg-admin config", "options", "jacoby ko")
        assert [c["value"] for c in choices] == ["jacoby koks"]  # every rule set's options, for defaults
        r = await w.do(admin.slash(w.channel, "bg-admin config", options="jacoby beavers holland koks"))
        assert "default_options = jacoby beavers holland longgammon.koks" in said(r)
        assert "Default options apply where they can" in said(r)
        r = await w.do(admin.slash(w.channel, "bg-admin config"))
        assert "default_options = jacoby beavers holland longgammon.koks" in said(r)
        r = await w.do(admin.slash(w.channel, "bg-admin config", options="holland crawford=off"))
        assert r.ephemeral and "in matches" in said(r) and "Crawford" in said(r)
        r = await w.do(admin.slash(w.channel, "bg-admin config", options="jacobi"))
        assert "did you mean 'jacoby'?" in said(r)

        # A money challenge that names nothing gets the money defaults; a match gets the match defaults.
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=0))
        assert "Backgammon for money (Jacoby, beavers)" in said(r)
        r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, variant="longgammon", length=3))
        assert "3-point Longgammon match (Holland rule); options: koks" in said(r)
        game_id = int(re.findall(r"game #(\d+)", said(r))[0])
        r = await w.do(bob.slash(w.channel, "bg-info rules", game=game_id))  # a challenge's terms, too
        assert "- Holland rule: on" in said(r) and "- Longgammon options: koks on;" in said(r)
        r = await w.do(admin.slash(w.channel, "bg-admin config", options="none"))
        assert "default_options = none" in said(r)
