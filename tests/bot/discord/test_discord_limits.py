"""Discord's documented limits (``bot/discord/limits.py``) against what the bot sends.

Real Discord refuses a command whose names, descriptions and choices pass 8,000 characters (each field counted at its
longest localization), and with it the whole sync: the bot would register nothing. simcord does not check it, so
these tests do, on the command tree as the bot syncs it, in every shipped language. Every simcord test runs under the
payload guard (``tests/discord_guard.py``); the last tests here show that guard refusing what Discord refuses.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.discord import limits
from bot.discord.catalog import build_tree
from bot.discord.limits import COMMAND_BUDGET, COMMAND_SIZE, command_problems, command_size, commands_problems
from bot.discord.translator import CommandTranslator
from bot.discord.tree import ROOTS
from tests.bot.discord.helpers import world
from tests.discord_guard import Guard


@pytest.fixture(scope="module")
def tree() -> app_commands.CommandTree[Any]:
    """The bot's whole command tree (every cog loaded), built offline."""
    return asyncio.run(build_tree())


async def synced_payloads(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """What ``tree.sync`` sends Discord: every top-level command, with its localizations in every shipped language."""
    translator = CommandTranslator()
    return [await command.get_translated_payload(tree, translator) for command in tree.get_commands()]


@pytest.mark.asyncio
async def test_every_command_registers_by_discords_rules_in_every_shipped_language(
    tree: app_commands.CommandTree[Any],
) -> None:
    payloads = await synced_payloads(tree)
    assert sorted(p["name"] for p in payloads) == sorted(ROOTS)
    assert commands_problems(payloads, budget=COMMAND_BUDGET) == []
    sizes = {p["name"]: command_size(p) for p in payloads}
    assert max(sizes.values()) <= COMMAND_BUDGET, sizes
    # Localizations count: each field at its longest translation, so a size is at least its English one.
    english = {p["name"]: command_size(_without_localizations(p)) for p in payloads}
    assert all(sizes[name] >= english[name] for name in sizes) and sizes != english


@pytest.mark.asyncio
async def test_the_one_bg_command_of_before_would_be_refused_by_the_same_check(
    tree: app_commands.CommandTree[Any],
) -> None:
    """Every command as one ``/bg`` (what the bot registered before: 11,620 characters) fails the check above: the
    check sees what made Discord refuse the sync."""
    payloads = await synced_payloads(tree)
    one: dict[str, Any] = {"name": "bg", "description": "Play backgammon: challenges, moves and boards", "options": []}
    for payload in payloads:
        if payload["name"] == "bg":
            one["options"] += payload["options"]
        else:
            group = {k: payload[k] for k in ("name", "description", "description_localizations", "options")}
            one["options"].append({**group, "name": payload["name"].removeprefix("bg-"), "type": 2})
    assert command_size(one) > COMMAND_SIZE
    assert any("characters by Discord's rule" in p for p in command_problems(one))


def _without_localizations(payload: Any) -> Any:
    if isinstance(payload, dict):
        return {k: _without_localizations(v) for k, v in payload.items() if not k.endswith("_localizations")}
    if isinstance(payload, list):
        return [_without_localizations(v) for v in payload]
    return payload


def test_the_size_rule_counts_each_fields_longest_localization() -> None:
    command = {
        "name": "bg",
        "description": "abcd",
        "description_localizations": {"ru": "abcdefgh", "el": "ab"},
        "options": [
            {
                "name": "side",
                "description": "x",
                "type": 3,
                "choices": [{"name": "left", "value": "l", "name_localizations": {"tr": "sol tarafta"}}],
            }
        ],
    }
    # bg (2) + the longest description (8) + side (4) + x (1) + the longest choice name (11) + its value (1)
    assert command_size(command) == 27


def test_the_command_rules_name_what_discord_refuses() -> None:
    good = {"name": "bg-me", "description": "Yours", "options": []}
    assert command_problems(good) == []
    problems = command_problems(
        {
            "name": "Bg Me",
            "description": "",
            "options": [
                {"name": "later", "description": "d", "type": 3},
                {"name": "first", "description": "d", "type": 3, "required": True},
                {"name": "many", "description": "d" * 101, "type": 3, "choices": [{"name": "c", "value": "v"}] * 26},
            ],
        }
    )
    text = "\n".join(problems)
    assert "is not 1-32 letters" in text  # the space (and the capitals)
    assert "description has 0 characters" in text and "description has 101 characters" in text
    assert "required option first comes after an optional one" in text
    assert "26 choices" in text
    assert "101 slash commands" in "\n".join(commands_problems([good] * 101))


def test_message_rules() -> None:
    assert limits.message_problems({"content": "x" * 2000}) == []
    assert limits.message_problems({"content": "x" * 2001}) == ["message of 2001 characters (at most 2000)"]
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": f"c{i}"} for i in range(6)]}
    assert "a row of 6 buttons (at most 5)" in limits.components_problems([row])
    assert "6 rows of components (at most 5)" in limits.components_problems([{"type": 1, "components": []}] * 6)
    embed = {"title": "t" * 257, "description": "d" * 4000, "fields": [{"name": "n", "value": "v" * 1025}] * 2}
    text = "\n".join(limits.embed_problems([embed]))
    assert "title has 257" in text and "field value has 1025" in text and "in all (at most 6000)" in text
    assert limits.message_problems({"attachments": [{"id": 0, "description": "a" * 1025}]})
    assert limits.message_problems({}, [limits.UPLOAD_LIMIT + 1])
    assert limits.autocomplete_problems([{"name": "n", "value": "v"}] * 26) == ["26 suggestions (at most 25)"]
    assert limits.thread_problems({"name": "t" * 101, "auto_archive_duration": 5})
    assert limits.modal_problems({"title": "t" * 46, "custom_id": "m", "components": []})


# --- the guard: a stricter simulated Discord ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_guard_refuses_an_oversize_message_a_long_label_and_a_26th_option(
    tmp_path: Path, discord_guard: Guard
) -> None:
    async with world(tmp_path) as w:
        channel = w.bot.get_channel(w.channel.id)
        assert isinstance(channel, discord.TextChannel)
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send("x" * 2001)
        assert refused.value.status == 400 and refused.value.code == 50035
        assert "message of 2001 characters" in str(refused.value)

        long_label = discord.ui.View()
        long_label.add_item(discord.ui.Button(label="L" * 81, custom_id="bg:test:label"))
        with pytest.raises(discord.HTTPException):
            await channel.send("a button", view=long_label)

        options = [discord.SelectOption(label=f"play {i}", value=str(i)) for i in range(25)]
        select = discord.ui.Select(custom_id="bg:test:select", options=options)
        select.options.append(discord.SelectOption(label="play 25", value="25"))  # past what discord.py checks
        too_many = discord.ui.View()
        too_many.add_item(select)
        with pytest.raises(discord.HTTPException):
            await channel.send("a select", view=too_many)

        alt = discord.File(io.BytesIO(b"png"), filename="b.png", description="a" * 1025)
        with pytest.raises(discord.HTTPException):
            await channel.send("alt text", file=alt)

        refusals = discord_guard.take()
        assert [r.problems[0] for r in refusals] == [
            "message of 2001 characters (at most 2000)",
            f"button label {'L' * 40!r}… has 81 characters (at most 80)",
            "a select with 26 options (1-25)",
            "an attachment's alt text has 1025 characters (at most 1024)",
        ]
        # Within the limits, the same messages go through.
        await channel.send("x" * 2000)
        assert w.channel.history()[-1].content == "x" * 2000
    assert discord_guard.take() == []


@pytest.mark.asyncio
async def test_the_guard_refuses_a_command_sync_over_discords_size(tmp_path: Path, discord_guard: Guard) -> None:
    async with world(tmp_path) as w:
        big = app_commands.Group(name="bg-big", description="Too big")
        for n in range(25):
            sub = app_commands.Group(name=f"g{n}", description="d" * 100, parent=big)
            for m in range(4):

                async def callback(interaction: discord.Interaction[Any]) -> None: ...

                sub.add_command(app_commands.Command(name=f"c{m}", description="d" * 100, callback=callback))
        w.bot.tree.add_command(big)
        with pytest.raises(discord.HTTPException) as refused:
            await w.bot.tree.sync()
        assert refused.value.code == 50035
        (refusal,) = discord_guard.take()
        assert refusal.method == "PUT" and any(p.startswith("/bg-big: ") for p in refusal.problems), refusal
