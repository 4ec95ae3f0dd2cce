"""Tournaments in the service, in every shipped language: refusals in the asker's language, announcements said when
read (the channel's in the server's language, the admin's reply in theirs), a timer's reminder in the server's
language, and a tournament's summary with Russian plurals."""

from __future__ import annotations

import pytest

from bot.scheduler import Scheduler
from bot.service import GameService, Refused
from bot.service.tour_parts import TourNews, TourView, summary_words
from engine import i18n
from engine.tournament import Entrant, Format, TournamentSpec, join, new_tournament

from .test_tournaments import ADMIN, HOUR, Clock, person, run


def view_of(spec: TournamentSpec, entrants: int = 0) -> TourView:
    t = new_tournament(spec)
    for k in range(entrants):
        t = join(t, Entrant(f"p{k}", f"Player {k}", (f"p{k}",)))
    return TourView(7, "g", spec.name, t.status.value, 1, t, {"terms": "", "names": {}})


def test_a_summary_says_rounds_and_entrants_with_russian_plurals() -> None:
    said = {}
    for rounds in (1, 3, 5):
        spec = TournamentSpec(Format.SWISS, name="Open", rounds=rounds, round_seconds=3 * 86400.0, max_entrants=21)
        with i18n.use("ru"):
            said[rounds] = summary_words(view_of(spec, rounds)).splitlines()
    assert said[1][0].startswith("#7 Open: швейцарская система, 1 тур; ")
    assert said[3][0].startswith("#7 Open: швейцарская система, 3 тура; ")
    assert said[5][0].startswith("#7 Open: швейцарская система, 5 туров; ")
    assert said[3][1] == (
        "Посев: по рейтингу; каждый тур длится 3 дня; недоигранный матч затем решается так: решает администратор."
    )
    assert said[5][2] == "Идёт запись: пока участников 5 (максимум 21)."
    with i18n.use("el"):
        greek = summary_words(view_of(TournamentSpec(Format.ROUND_ROBIN, name="Open", divisions=2), 3))
    assert greek.startswith("#7 Open: πρωτάθλημα σε 2 ομίλους· ")
    with i18n.use("tr"):
        turkish = summary_words(view_of(TournamentSpec(Format.KNOCKOUT, name="Open", double_elimination=True)))
    assert (
        turkish.startswith("#7 Open: çift eleme; ") and "Seri başı: reytinge göre; turların süre sınırı yok." in turkish
    )
    english = summary_words(view_of(TournamentSpec(Format.SWISS, name="Open", rounds=3), 2))
    assert english.startswith("#7 Open: a Swiss of 3 rounds; ")


def test_refusals_reply_in_the_askers_language_and_news_reads_in_the_readers(db_url: tuple[str, str | None]) -> None:
    async def body(clock: Clock, svc: GameService) -> None:
        # What a listener reads when it hears the news, in the language it reads it in (a channel: the server's).
        read: list[tuple[str, str, str]] = []

        async def listener(news: TourNews) -> None:  # like Discord's: for everyone, in the server's language
            with i18n.shared():
                read.extend((i18n.language(), e.kind, e.text) for e in news.events)

        svc.on_tournament(listener)
        with i18n.request("ru", "el"):
            with pytest.raises(Refused) as refused:
                await svc.tour_create(person(1), "Mine", "swiss")
            assert str(refused.value) == (
                "только администратор сервера (право «Управлять сервером») может создать турнир"
            )
        with i18n.request("tr"), pytest.raises(Refused) as refused:
            await svc.tour_start(ADMIN)
        assert str(refused.value).startswith("burada kayıt alan ya da devam eden bir turnuva yok")

        news = await svc.tour_create(
            ADMIN, "Club Swiss", "swiss", variant="sprintgammon", length=1, rounds=3, round_hours=10
        )
        tid = news.view.id
        for k in range(3):
            await svc.tour_join(person(k), tid)
        with i18n.request("ru", "el"):
            with pytest.raises(Refused) as refused:
                await svc.tour_leave(person(5), tid)
            assert str(refused.value) == "вы не записаны на Club Swiss"
            started = await svc.tour_start(ADMIN, tid)
        # One event, read in three languages: said anew each time it is read.
        (event,) = [e for e in started.events if e.kind == "round"]
        with i18n.use("ru"):
            russian = event.text
        with i18n.use("el"):
            greek = event.text
        assert russian.startswith("Club Swiss: начинается тур 1 из 3. Сыграйте свой матч до ") and "без пары" in russian
        assert greek.startswith("Club Swiss: ξεκινά ο γύρος 1 από 3. Παίξτε τον αγώνα σας έως ") and "ρεπό" in greek
        assert (
            event.text.startswith("Club Swiss: round 1 of 3 starts. Play your match by ") and "has a bye" in event.text
        )
        # The channel heard it in the server's language (the request's shared one), as it was told.
        assert ("el", "round", greek) in read
        # Russian plurals in what the service says: the entrants of a tournament not yet started.
        counts = []
        for n, name in ((1, "One"), (3, "Three"), (5, "Five")):
            t = (await svc.tour_create(ADMIN, name, "league", variant="sprintgammon", length=1)).view.id
            for k in range(n):
                await svc.tour_join(person(k), t)
            with i18n.use("ru"), pytest.raises(Refused) as refused:
                await svc.tour_pictures(await svc.tour_view(ADMIN, t))
            counts.append(str(refused.value))
        assert counts == [
            "Турнир One ещё не начался: пока 1 участник",
            "Турнир Three ещё не начался: пока 3 участника",
            "Турнир Five ещё не начался: пока 5 участников",
        ]

        # The server speaks Russian: a timer's reminder (nobody asked) is said in it.
        await svc.guild_settings(ADMIN, language="ru")
        read.clear()
        clock.now += 8 * HOUR  # 80% of the round has gone
        await Scheduler(svc.store, svc, clock=clock).tick()
        reminders = [(lang, text) for lang, kind, text in read if kind == "reminder"]
        assert len(reminders) == 1 and reminders[0][0] == "ru", read
        assert reminders[0][1].startswith("Напоминание: матч R1-1 турнира Club Swiss, Player ")
        assert reminders[0][1].endswith(
            "нужно доиграть, осталось: 2 ч. Иначе побеждает тот, кто действовал последним."
        ), reminders

    run(db_url, body)
