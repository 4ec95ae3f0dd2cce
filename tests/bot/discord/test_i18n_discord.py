"""The Discord layer in the players' languages: command localizations, and who reads which language.

Each player's own answers (ephemeral replies, refusals) come in the language of their Discord client; what the bot
posts for everyone in a game thread or channel comes in the server's language (``/bg-admin config language``). The
slash commands' descriptions and choices are registered in every shipped language (their names stay English).

simcord sends every interaction with ``locale`` and ``guild_locale`` ``en-US`` and has no way to set them per user
(``simcord.interactions.base_payload`` writes them as constants): :func:`speaking` wraps that builder to give each
simulated user the locale a test names, which is what Discord itself sends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.discord.catalog import build_tree
from bot.discord.cogs.admin import LANGUAGE_CHOICES
from bot.discord.components import games_message
from bot.discord.context import GamesPage
from bot.discord.options import show
from bot.discord.text import match_kind
from bot.discord.translator import (
    LOCALES,
    MAX_CHOICE,
    MAX_DESCRIPTION,
    CommandTranslator,
    template,
    tree_messages,
)
from bot.discord.tree import command_of
from engine import i18n
from engine.i18n import catalogs
from tests.bot.discord.helpers import components, game_thread, labels, reply, said, show_command, world


@pytest.fixture(scope="module")
def tree() -> app_commands.CommandTree[Any]:
    """The bot's whole command tree (every cog loaded), built offline as the catalog extractor builds it."""
    import asyncio

    return asyncio.run(build_tree())


def _command(tree: app_commands.CommandTree[Any], path: str) -> app_commands.Command[Any, ..., Any]:
    found = command_of(tree, path)
    assert isinstance(found, app_commands.Command), path
    return found


# --- command localizations ------------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_the_translator_gives_russian_descriptions_and_keeps_names_english(
    tree: app_commands.CommandTree[Any],
) -> None:
    play = _command(tree, "bg play")
    translator = CommandTranslator()

    async def translate(text: str, locale: discord.Locale, where: Where, data: Any) -> str | None:
        context = app_commands.TranslationContext(location=where, data=data)  # type: ignore[call-overload]
        return await translator.translate(app_commands.locale_str(text), locale, context)

    russian = await translate(play.description, discord.Locale.russian, Where.command_description, play)
    assert russian == "Вызвать кого-то (любого или бота) на матч в нарды или игру на деньги."
    opponent = next(p for p in play.parameters if p.name == "opponent")
    said_ru = await translate(opponent.description, discord.Locale.russian, Where.parameter_description, opponent)
    assert said_ru is not None and said_ru.startswith("Кого вы вызываете")
    greek = await translate(play.description, discord.Locale.greek, Where.command_description, play)
    turkish = await translate(play.description, discord.Locale.turkish, Where.command_description, play)
    assert (greek or "").startswith("Προκαλέστε") and (turkish or "").startswith("Birini")
    # Names are typed and quoted everywhere: never translated, in no language.
    for locale in LOCALES:
        assert await translate("play", locale, Where.command_name, play) is None
        assert await translate("opponent", locale, Where.parameter_name, opponent) is None
        assert await translate("admin", locale, Where.group_name, tree.get_command("bg")) is None
    # English, and languages the bot does not ship, keep Discord's default text.
    assert await translate(play.description, discord.Locale.american_english, Where.command_description, play) is None
    assert await translate(play.description, discord.Locale.french, Where.command_description, play) is None
    # A choice: translated, with the value players type kept in sight; the language names stay as they are.
    assert CommandTranslator.lookup("right", discord.Locale.russian, Where.choice_name) == "справа"
    assert CommandTranslator.lookup("Ελληνικά", discord.Locale.russian, Where.choice_name) is None


@pytest.mark.asyncio
async def test_the_synced_payload_carries_the_localizations(tree: app_commands.CommandTree[Any]) -> None:
    """What ``tree.sync`` sends Discord: descriptions in ru, el and tr, names without localizations."""
    translator = CommandTranslator()
    for root in tree.get_commands():
        payload = await root.get_translated_payload(tree, translator)
        assert set(payload["description_localizations"]) == {"ru", "el", "tr"}, root.name
        assert not payload.get("name_localizations")
    admin = tree.get_command("bg-admin")
    assert isinstance(admin, app_commands.Group)
    payload = await admin.get_translated_payload(tree, translator)
    config = next(o for o in payload["options"] if o["name"] == "config")
    language = next(o for o in config["options"] if o["name"] == "language")
    assert not language.get("name_localizations")
    assert language["description_localizations"]["ru"].startswith("Язык сообщений бота")
    names = {c["value"]: c for c in language["choices"]}
    assert names["el"]["name"] == "Ελληνικά" and not names["el"].get("name_localizations")
    assert names["auto"]["name_localizations"]["tr"] == "auto — sunucunun dili"


def test_every_description_and_choice_is_translated_within_discords_limits(
    tree: app_commands.CommandTree[Any],
) -> None:
    messages = tree_messages(tree)
    assert len(messages) > 100
    stored = {m.id for m in catalogs.template("commands") if m.id}
    missing = [text for text, _places, _notes in messages if text not in stored]
    assert not missing, f"the commands catalog is behind the tree (run: gammonbot i18n update): {missing[:5]}"
    assert len(template(tree)) == len(messages)
    too_long = []
    for text, places, _notes in messages:
        where = Where.choice_name if any(_is_choice(tree, text, p) for p in places) else Where.command_description
        limit = MAX_CHOICE if where is Where.choice_name else MAX_DESCRIPTION
        assert 1 <= len(text) <= limit, text
        for locale, lang in LOCALES.items():
            translated = i18n.translation(lang).gettext(text)
            assert translated != text, f"{lang}: not translated: {text!r}"
            if not 1 <= len(translated) <= limit:
                too_long.append(f"{lang} ({len(translated)}): {translated}")
            assert CommandTranslator.lookup(text, locale, where) == translated
    assert not too_long, "translations beyond Discord's limits:\n" + "\n".join(too_long)
    assert catalogs.check(["commands"]).errors == []


def _is_choice(tree: app_commands.CommandTree[Any], text: str, place: str) -> bool:
    if ":" not in place:
        return False
    path, option = place.removeprefix("/").split(":")
    command = _command(tree, path.replace("/", " "))
    param = next(p for p in command.parameters if p.name == option)
    return any(c.name == text for c in param.choices)


# --- the discord catalog --------------------------------------------------------------------------------------------
def test_messages_come_out_in_each_language_and_english_is_unchanged() -> None:
    page = GamesPage(("#1 …",), 1, 1, 1)
    english = games_message(page)[0]
    assert english == "Your games and challenges, those waiting for you first: 1 in all. Page 1 of 1."
    assert [match_kind(n) for n in (1, 3, 0)] == ["1-point match", "3-point match", "money play"]
    assert show(True) == "on" and show(None, "allowed_variants") == "all" and show("el", "language") == "Ελληνικά"
    with i18n.use("ru"):
        assert [match_kind(n) for n in (1, 3, 5)] == ["матч до 1 очка", "матч до 3 очков", "матч до 5 очков"]
        footers = []
        for total in (1, 3, 5):
            _content, embed, _ui = games_message(GamesPage(("#1 …",), 1, 1, total))
            footers.append(embed.footer.text)
        assert footers == [
            "Страница 1 из 1 · 1 игра или вызов",
            "Страница 1 из 1 · 3 игры и вызова",
            "Страница 1 из 1 · 5 игр и вызовов",
        ]
        assert show(False) == "выкл."
    with i18n.use("el"):
        assert games_message(page)[0].startswith("Τα παιχνίδια και οι προκλήσεις σας")
        assert match_kind(5) == "αγώνας 5 πόντων"
    with i18n.use("tr"):
        assert games_message(page)[0].startswith("Oyunlarınız ve davetleriniz")
        assert show(True) == "açık"
    assert catalogs.check(["discord"]).errors == []


# --- who reads which language ---------------------------------------------------------------------------------------
@contextmanager
def speaking(locales: dict[int, str]) -> Iterator[None]:
    """Simulated interactions carry each user's Discord locale (``locales``: user id -> locale; others ``en-US``)."""
    original = simcord.interactions.base_payload

    def localized(backend: Any, **kwargs: Any) -> Any:
        record, payload = original(backend, **kwargs)
        payload["locale"] = locales.get(int(kwargs["user_id"]), "en-US")
        return record, payload

    simcord.interactions.base_payload = localized  # type: ignore[assignment]
    try:
        yield
    finally:
        simcord.interactions.base_payload = original  # type: ignore[assignment]


@pytest.mark.asyncio
async def test_each_player_reads_their_own_language_and_the_thread_the_servers(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol = w.people["alice"], w.people["bob"], w.people["carol"]
        role = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = w.guild.add_member(w.env.create_user("admin"), roles=[role])
        with speaking({alice.id: "ru", carol.id: "ru", bob.id: "tr"}):
            # The server speaks Greek in its threads; the admin (an English client) is answered in English.
            assert [c.value for c in LANGUAGE_CHOICES] == ["auto", "en", "ru", "el", "tr"]
            r = await w.do(admin.slash(w.channel, "bg-admin config", language="el"))
            assert r.ephemeral and said(r).startswith("Saved. Server settings:") and "language = Ελληνικά" in said(r)

            # Alice's challenge is posted for the channel: in Greek, buttons too.
            r = await w.do(alice.slash(w.channel, "bg play", opponent=bob))
            challenge = reply(r)
            assert not r.ephemeral
            assert "Αποδοχή ή Απόρριψη παρακάτω." in challenge.content, challenge.content
            assert labels(challenge) == ["Αποδοχή", "Απόρριψη"]
            game_id = int(re.findall(r"#(\d+)", challenge.content)[0])

            # Alice (a Russian client) presses Accept on her own challenge: told why not, alone, in Russian.
            r = await w.do(alice.click(challenge, label="Αποδοχή"))
            assert r.ephemeral and said(r).startswith("Нельзя принять собственный вызов"), said(r)

            # Bob (Turkish) accepts: the match thread opens, and its first message is Greek.
            await w.do(bob.click(challenge, label="Αποδοχή"))
            thread = game_thread(w, await w.view(game_id))
            prompt = thread.history()[-1]
            assert "ρίξτε τα αρχικά ζάρια (οποιοσδήποτε από εσάς)." in prompt.content, prompt.content
            # Its heading too, though the accepting click was Turkish and the challenge Russian.
            assert prompt.content.startswith(f"**#{game_id} ") and "αγώνας 5 πόντων" in prompt.content
            assert "Tavla" not in prompt.content + thread.name and "Короткие" not in prompt.content + thread.name
            assert "Ζαριά" in labels(prompt)

            # Carol (Russian) presses a button of a game she does not play: refused in Russian, only to her, while
            # the server stays Greek.
            roll = next(c for c in components(prompt) if c.get("label") == "Ζαριά")
            r = await w.do(carol.click(prompt, custom_id=roll["custom_id"]))
            assert r.ephemeral and said(r).startswith(f"Вы не участвуете в игре #{game_id}"), said(r)
            assert "Ζαριά" in labels(thread.history()[-1])

            # Alice's own list is Russian; Bob's Turkish; the same games.
            r = await w.do(alice.slash(w.channel, "bg games"))
            assert r.ephemeral and said(r).startswith("Ваши игры и вызовы"), said(r)
            r = await w.do(bob.slash(w.channel, "bg games"))
            assert r.ephemeral and said(r).startswith("Oyunlarınız ve davetleriniz"), said(r)

            # Suggestions speak the asker's language too.
            show_command(w, "bg-admin", alice)
            choices = await alice.autocomplete(w.channel, "bg-admin config", "default_clock", "")
            assert choices[0]["name"] == "Без часов"
