"""A whole match between a player whose Discord speaks Russian and one whose Discord speaks Greek, on a server whose
admins chose Turkish: each player's own replies come in their language, everything in the match thread in the
server's. Then the same match in the pseudo-language (engine/i18n): nothing the bot sends bypasses the catalogs.

simcord sends every interaction as ``en-US``; :func:`speaking` (tests/bot/discord/test_i18n_discord.py) gives each
simulated user the locale Discord would send.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.service import GameView
from engine import i18n
from tests.bot.discord.helpers import World, components, game_thread, world
from tests.bot.discord.test_i18n_discord import speaking
from tests.bot.discord.test_names_on_boards import shown_to_users
from tests.test_untranslated import typed_words, untranslated

DEBUG = False
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
GREEK = re.compile(r"[Α-Ωα-ωά-ώΆ-Ώ]")
TURKISH = re.compile(r"[çğıöşüÇĞİÖŞÜ]")


def texts(message: Any) -> list[str]:
    """What a user reads of one message: its text, embeds, buttons and menus, and its pictures' alt texts."""
    out = [message.content or ""]
    for e in message.embeds:
        out.extend(str(v) for v in (e.title, e.description, e.footer.text if e.footer else None) if v)
        out.extend(f"{f.name} {f.value}" for f in e.fields)
    for c in components(message):
        out.append(str(c.get("label") or ""))
        out.append(str(c.get("placeholder") or ""))
        out.extend(f"{o.get('label', '')} {o.get('description') or ''}" for o in c.get("options", []))
    out.extend(a.description or "" for a in message.attachments)
    return [t for t in out if t.strip()]


def press_id(message: Any, action: str) -> str | None:
    for c in components(message):
        if str(c.get("custom_id", "")).startswith(f"bg:{action}:") and not c.get("disabled"):
            return str(c["custom_id"])
    return None


async def live(w: World, view: GameView) -> discord.Message:
    for message in reversed(game_thread(w, view).history()):
        if message.components:
            return message
    raise AssertionError("no message with buttons in the thread")


async def play_out(w: World, game_id: int, mistakes: bool = True) -> list[tuple[simcord.MemberActor, Any]]:
    """Press the buttons of the game until it ends (roll, the first play of the menu, confirm); with ``mistakes``,
    each player first types an illegal play after rolling. Returns (who, result) of every typed play."""
    typed: list[tuple[simcord.MemberActor, Any]] = []
    for _step in range(400):
        v = await w.view(game_id)
        if v.status != "active":
            return typed
        who = w.by_id(v.to_act or (v.acting[0] if v.acting else ""))
        message = await live(w, v)
        if v.phase in ("opening", "roll"):
            cid = press_id(message, "roll")
            assert cid, [c.get("custom_id") for c in components(message)]
            await w.do(who.click(message, custom_id=cid))
        elif v.phase == "move":
            if mistakes and len(typed) < 6:
                typed.append((who, await w.do(who.slash(w.channel, "bg move", play="24/1 24/1 24/1", game=game_id))))
            select = next((c for c in components(message) if str(c.get("custom_id", "")).startswith("bg:play:")), None)
            if select is not None:
                await w.do(who.select(message, [select["options"][0]["value"]], custom_id=select["custom_id"]))
            else:
                cid = press_id(message, "confirm") or press_id(message, "sub")
                assert cid, [c.get("custom_id") for c in components(message)]
                await w.do(who.click(message, custom_id=cid))
        else:
            raise AssertionError(f"unexpected phase {v.phase}")
    raise AssertionError("the match did not end")


def ephemeral_texts(result: Any) -> list[str]:
    assert result.ephemeral, result
    return [t for m in (result.response, *result.followups) if m is not None for t in texts(m)]


@pytest.mark.asyncio
async def test_a_russian_and_a_greek_player_play_a_match_on_a_turkish_server(tmp_path: Path) -> None:
    async with world(tmp_path, seed=4) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        role = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = w.guild.add_member(w.env.create_user("admin"), roles=[role])
        with speaking({alice.id: "ru", bob.id: "el"}):
            await w.do(admin.slash(w.channel, "bg-admin config", language="tr"))
            r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=1))
            assert r.response is not None and not r.ephemeral
            game_id = int(re.findall(r"#(\d+)", r.response.content)[0])
            await w.do(bob.click(r.response, custom_id=press_id(r.response, "accept")))
            typed = await play_out(w, game_id)
            own = {alice.id: [], bob.id: []}  # type: dict[int, list[str]]
            for who, result in typed:
                own[who.id].extend(ephemeral_texts(result))
            for who in (alice, bob):
                for name in ("bg games", "bg board"):
                    result = await w.do(who.slash(w.channel, name, **({"game": game_id} if name == "bg board" else {})))
                    own[who.id].extend(ephemeral_texts(result))
            view = await w.view(game_id)
            assert view.status == "finished"
            thread = game_thread(w, view)
            public = [t for m in thread.history() for t in texts(m)] + [thread.name or ""]

        # Alice reads Russian, Bob Greek: every reply to them, and nothing of the other's language.
        assert len(own[alice.id]) >= 3 and len(own[bob.id]) >= 3
        for text in own[alice.id]:
            assert CYRILLIC.search(text) and not GREEK.search(text) and not TURKISH.search(text), text
        for text in own[bob.id]:
            assert GREEK.search(text) and not CYRILLIC.search(text) and not TURKISH.search(text), text
        # The thread (prompts, moves, boards' alt texts, the result banner, the match card) is Turkish.
        assert len(public) >= 10
        assert all(not CYRILLIC.search(t) and not GREEK.search(t) for t in public), [
            t for t in public if CYRILLIC.search(t) or GREEK.search(t)
        ][:5]
        assert sum(bool(TURKISH.search(t)) for t in public) >= len(public) // 2, public[:10]
        assert any("Maç" in t or "maç" in t for t in public), public[-5:]
        if DEBUG:
            print("\n".join(["ALICE:", *own[alice.id][:6], "BOB:", *own[bob.id][:6], "THREAD:", *public[-12:]]))


@pytest.mark.asyncio
async def test_nothing_the_bot_sends_in_a_match_bypasses_the_catalogs(tmp_path: Path) -> None:
    async with world(tmp_path, seed=4) as w:
        alice, bob = w.people["alice"], w.people["bob"]
        with speaking({alice.id: i18n.PSEUDO, bob.id: i18n.PSEUDO}):
            original = simcord.interactions.base_payload

            def pseudo_server(backend: Any, **kwargs: Any) -> Any:
                record, payload = original(backend, **kwargs)
                if "guild_locale" in payload:
                    payload["guild_locale"] = i18n.PSEUDO
                return record, payload

            simcord.interactions.base_payload = pseudo_server  # type: ignore[assignment]
            try:
                r = await w.do(alice.slash(w.channel, "bg play", opponent=bob, length=1))
                assert r.response is not None
                game_id = int(re.findall(r"#(\d+)", r.response.content)[0])
                await w.do(bob.click(r.response, custom_id=press_id(r.response, "accept")))
                await play_out(w, game_id)
                assert (await w.view(game_id)).status == "finished"
                for who in (alice, bob):
                    await w.do(who.slash(w.channel, "bg games"))
                    await w.do(who.slash(w.channel, "bg board", game=game_id))
                    await w.do(who.slash(w.channel, "bg move", play="8/5 6/5", game=game_id))
                await w.do(alice.slash(w.channel, "bg help"))
                await w.do(alice.slash(w.channel, "bg-me settings"))
                for command in (
                    "bg-stats leaderboard",
                    "bg-stats profile",
                    "bg-stats history",
                    "bg-info variants",
                    "bg-info clocks",
                    "bg-dice stats",
                ):
                    await w.do(alice.slash(w.channel, command))
                await w.do(alice.slash(w.channel, "bg-info rules", variant="longgammon"))
                await w.do(alice.slash(w.channel, "bg-dice verify", game=game_id))
            finally:
                simcord.interactions.base_payload = original  # type: ignore[assignment]
        w.env.http_requests[:] = [c for c in w.env.http_requests if "/commands" not in c.path]  # the command sync
        shown = shown_to_users(w)
    allowed = typed_words() | {"alice", "bob", "png", "gif", "mat", "rich"}  # rich: an embed's type
    bad = [line for text in shown for line in untranslated(text, allowed)]
    assert any("⟦" in text for text in shown)
    assert not bad, f"{len(bad)} texts bypass the catalogs:\n" + "\n".join(dict.fromkeys(bad[:60]))
