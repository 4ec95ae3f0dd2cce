"""The service speaks the asker's language in refusals and replies, and the server's in what everyone reads (event
texts in a game's thread, what timers say); the server's language is its ``language`` setting, or its Discord
locale when that is ``auto``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.config import LimitSettings
from bot.scheduler import Scheduler
from bot.service import DAY, SYSTEM, GameService, Outcome, Refused, Request, SeededDice
from bot.storage import Store
from engine import i18n

GUILD = "g"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)
ADMIN = Request("admin", "Admin", GUILD, admin=True)


class FakeTime:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def run(
    db_url: tuple[str, str | None],
    body: Callable[[GameService, Store, FakeTime], Awaitable[Any]],
    **options: Any,
) -> Any:
    async def go() -> Any:
        url, schema = db_url
        t = FakeTime()
        store = await Store.open(url, schema=schema, clock=t)
        try:
            return await body(GameService(store, dice=SeededDice(5), clock=t, **options), store, t)
        finally:
            await store.close()

    return asyncio.run(go())


async def refusal(call: Awaitable[Any]) -> str:
    with pytest.raises(Refused) as info:
        await call
    return str(info.value)


def test_refusals_come_in_the_askers_language_and_english_stays_as_it_was(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        assert await refusal(svc.challenge(ALICE, ALICE)) == "you cannot challenge yourself"
        expected = {
            "ru": "нельзя вызвать самого себя",
            "el": "δεν μπορείτε να προκαλέσετε τον εαυτό σας",
            "tr": "kendinize meydan okuyamazsınız",
        }
        for lang, text in expected.items():
            with i18n.use(lang):
                assert await refusal(svc.challenge(ALICE, ALICE)) == text
        # A refusal with a placeholder, and one made by the service's core (a game nobody can see).
        with i18n.use("ru"):
            assert await refusal(svc.view(999, ALICE)) == "игры #999 нет"
            assert await refusal(svc.guild_settings(ALICE, default_length=3)) == (
                "менять настройки сервера может только администратор сервера (право «Управлять сервером»)"
            )
        with i18n.use("tr"):
            assert await refusal(svc.view(999, ALICE)) == "#999 numaralı oyun yok"
        with i18n.use("el"):
            assert await refusal(svc.view(999, ALICE)) == "δεν υπάρχει παιχνίδι #999"
        assert await refusal(svc.view(999, ALICE)) == "there is no game #999"

    run(db_url, body)


def test_event_texts_are_in_the_servers_language_while_refusals_are_in_the_users(
    db_url: tuple[str, str | None],
) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        english = await svc.challenge(ALICE, BOB, variant="backgammon", length=3)
        assert (
            english.events[0].text == f"Alice challenges Bob to a 3-point Backgammon match (game #{english.game.id})."
        )
        await svc.decline(english.game.id, BOB)
        await svc.guild_settings(ADMIN, language="el")
        # Alice's client speaks Russian; the server is Greek.
        with i18n.request("ru", await svc.server_language(GUILD, "ru")):
            out = await svc.challenge(ALICE, BOB, variant="backgammon", length=3)
            gid = out.game.id
            assert out.events[0].text.startswith("Alice προκαλεί Bob: αγώνας ")
            assert f"(παιχνίδι #{gid})" in out.events[0].text
            assert await refusal(svc.accept(gid, ALICE)) == "нельзя принять собственный вызов"
            started = await svc.accept(gid, BOB)
            assert started.events[0].text.startswith("Bob αποδέχτηκε: Alice εναντίον Bob, ")
            rolled = await svc.roll(gid, ALICE)
            assert rolled.events[0].text.startswith("Αρχική ζαριά: Alice "), rolled.events[0].text
            while rolled.game.phase == "opening":
                rolled = await svc.roll(gid, ALICE)
            waiting = ALICE if rolled.game.to_act == "bob" else BOB
            assert await refusal(svc.undo(gid, waiting)) == "сейчас не ваш ход"
            # The game's view as the asker sees it is made in the asker's language, the events in the server's.
            assert (await svc.view(gid, ALICE)).name(None) == "никто"
            with i18n.shared():
                assert (await svc.view(gid, ALICE)).name(None) == "κανείς"
        # The same events asked for in English (the default) are English.
        assert (await svc.view(gid, ALICE)).name(None) == "nobody"

    run(db_url, body)


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, "у вас здесь уже 1 открытый вызов"),
        (3, "у вас здесь уже 3 открытых вызова"),
        (5, "у вас здесь уже 5 открытых вызовов"),
    ],
)
def test_a_russian_refusal_takes_the_plural_form_its_number_needs(
    db_url: tuple[str, str | None], count: int, expected: str
) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        for _i in range(count):
            await svc.challenge(ALICE, BOB, variant="backgammon", length=1)
        with i18n.use("ru"):
            text = await refusal(svc.challenge(ALICE, BOB, variant="backgammon", length=1))
        assert text.startswith(expected), text
        assert "больше бот не позволяет" in text
        english = await refusal(svc.challenge(ALICE, BOB, variant="backgammon", length=1))
        assert english.startswith(f"you already have {count} open challenges here"), english  # as it always said

    run(db_url, body, limits=LimitSettings(max_open_challenges_per_player=count))


def test_the_language_setting_accepts_the_shipped_languages_and_auto_and_refuses_others(
    db_url: tuple[str, str | None],
) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        assert (await svc.server_settings(GUILD))["language"] == "auto"
        # auto: the server's Discord locale when it is a shipped language, else English.
        assert await svc.server_language(GUILD) == "en"
        assert await svc.server_language(GUILD, "ru") == "ru"
        assert await svc.server_language(GUILD, "el-GR") == "el"
        assert await svc.server_language(GUILD, "zh-CN") == "en"
        # A direct message has no server: the given locale, else English.
        assert await svc.server_language(None, "tr") == "tr"
        assert await svc.server_language(None) == "en"
        # A value by code, locale tag or the language's own name; the change is seen at once (no stale memo).
        for value, stored in (("ru", "ru"), ("tr-TR", "tr"), ("Ελληνικά", "el"), (" TR ", "tr")):
            assert (await svc.guild_settings(ADMIN, language=value))["language"] == stored
            assert await svc.server_language(GUILD, "ru-RU") == stored
        assert (await svc.guild_settings(ADMIN, language="auto"))["language"] == "auto"
        assert await svc.server_language(GUILD, "ru-RU") == "ru"
        assert await svc.server_language(GUILD, "en-US") == "en"
        # Refused, naming the choices, in the asker's language; nothing changes.
        text = await refusal(svc.guild_settings(ADMIN, language="klingon"))
        assert text == (
            "there is no language 'klingon' here: the server language is one of en (English), ru (Русский), "
            "el (Ελληνικά), tr (Türkçe), or auto (the server's Discord language, else English)"
        )
        with i18n.use("ru"):
            text = await refusal(svc.guild_settings(ADMIN, language="qps"))
        assert text.startswith("языка 'qps' здесь нет: язык сервера — один из en (English), ru (Русский)"), text
        assert await refusal(svc.guild_settings(ALICE, language="ru")) == (
            "only a server admin (Manage Server permission) can change the server's settings"
        )
        assert (await svc.server_settings(GUILD))["language"] == "auto"

    run(db_url, body)


def test_timers_speak_the_servers_language(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        heard: list[tuple[str, str]] = []

        async def notify(outcome: Outcome) -> None:  # what the transport would add is in the server's language too
            heard.extend((i18n.language(), e.text) for e in outcome.events)

        sched = Scheduler(store, svc, clock=t, notify=notify)
        await svc.guild_settings(ADMIN, language="tr")
        with i18n.use("ru"):  # whoever made the challenge, nobody asks when it expires
            out = await svc.challenge(ALICE, BOB, variant="backgammon", length=3)
        gid = out.game.id
        t.now += 8 * DAY
        with i18n.use("el"):  # nor is the scheduler's own task in anybody's language
            fired = await sched.tick()
        assert [e.kind for o in fired for e in o.events] == ["expired"]
        assert heard == [("tr", f"#{gid} numaralı meydan okumanın süresi yanıtsız doldu.")]

        # A reminder, and the timeout that ends the match (its events made by the same code as a player's).
        await svc.guild_settings(ADMIN, language="ru")
        out = await svc.accept((await svc.challenge(ALICE, BOB, length=1, time_control="correspondence")).game.id, BOB)
        gid = out.game.id
        while out.game.phase == "opening":
            out = await svc.roll(gid, ALICE)
        mover = ALICE if out.game.to_act == "alice" else BOB
        out = await svc.move(gid, mover, out.game.plays[0])
        waiting = out.game.to_act
        heard.clear()
        t.now += 2.0 * DAY + 1
        await sched.tick()
        assert heard == [
            (
                "ru",
                f"Напоминание: {'Alice' if waiting == 'alice' else 'Bob'}, ваш ход в игре #{gid} "
                "(прошло 50\xa0% времени на этот ход).",  # Russian: a no-break space before %
            )
        ]
        heard.clear()
        t.now += 2.0 * DAY
        await sched.tick()
        name = "Alice" if waiting == "alice" else "Bob"
        assert {lang for lang, _text in heard} == {"ru"}
        said = [text for _lang, text in heard]
        assert f"У игрока {name} истекло время." in said, said
        assert any(text.startswith("Матч окончен: победа за ") for text in said), said
        assert any(text.startswith("Рейтинги (") for text in said), said
        assert (await svc.view(gid, SYSTEM)).status == "finished"

    run(db_url, body)


def test_an_erased_players_neutral_name_is_shown_in_the_readers_language(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService, store: Store, t: FakeTime) -> None:
        out = await svc.accept((await svc.challenge(ALICE, BOB, length=1)).game.id, BOB)
        await svc.forget(ADMIN, "bob")
        view = await svc.view(out.game.id, SYSTEM)
        assert view.name("bob") == "a former player"
        with i18n.use("ru"):
            assert (await svc.view(out.game.id, SYSTEM)).name("bob") == "бывший игрок"
        with i18n.use("el"):
            assert (await svc.view(out.game.id, SYSTEM)).name("bob") == "πρώην παίκτης"

    run(db_url, body)
