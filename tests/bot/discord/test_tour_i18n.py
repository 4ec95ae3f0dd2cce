"""Tournaments through Discord in the players' languages: each asker's answers (the Join button's, ``/bg-tour info``,
``/bg-admin tour start``) in their client's language; what the bot posts for everyone (the sign-up message and its
buttons, the round's announcement, the pinned standings) in the server's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import i18n
from engine.i18n import _
from tests.bot.discord.helpers import labels, reply, said, world
from tests.bot.discord.test_i18n_discord import speaking
from tests.bot.discord.test_tournaments import cast_of, posts, settle

pytestmark = pytest.mark.asyncio


async def test_askers_read_their_language_and_the_channel_the_servers(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        director, players = cast_of(w, 3)
        locales = {director.id: "ru", players[0].id: "tr", players[1].id: "ru"}
        with i18n.use("el"):
            buttons = [_("Join"), _("Leave")]  # (the discord catalog's words)
        with speaking(locales):
            r = await w.do(director.slash(w.channel, "bg-admin config", language="el"))
            assert r.ephemeral

            # The sign-up message is the channel's: in Greek, its buttons too.
            r = await w.do(director.slash(w.channel, "bg-admin tour create", name="Κύπελλο", format="swiss", rounds=3,
                                          variant="sprintgammon", length=1))  # fmt: skip
            signup = reply(r)
            assert "Οι εγγραφές είναι ανοιχτές" in signup.content and "ελβετικό σύστημα 3 γύρων" in signup.content
            assert labels(signup) == buttons, signup.content
            tid = int(re.findall(r"#(\d+)", signup.content)[0])

            # Each presser is answered in their own language.
            answers = []
            for p in players:
                r = await w.do(p.click(signup, label=buttons[0]))
                answers.append(r.followups[-1])
            assert all(a.ephemeral for a in answers)
            assert answers[0].content.startswith("Κύπελλο turnuvasına katıldınız."), answers[0].content
            assert answers[1].content.startswith("Вы записались на Κύπελλο."), answers[1].content
            assert answers[2].content.startswith("You joined Κύπελλο."), answers[2].content
            again = next(m for m in w.channel.history() if m.id == signup.id)
            assert "μέχρι στιγμής 3 από το πολύ 256 συμμετέχοντες" in again.content, again.content

            r = await w.do(players[1].slash(w.channel, "bg-tour info", tournament=tid))
            assert r.ephemeral and "Идёт запись: пока участников 3 (максимум 256)." in said(r), said(r)

            # The director is answered in Russian; the channel hears the round in Greek, with the pinned standings.
            r = await w.do(director.slash(w.channel, "bg-admin tour start", tournament=tid))
            assert said(r) == "Турнир Κύπελλο начался: открыт 1 матч.", said(r)
            assert posts(w, "Κύπελλο: ξεκινά ο γύρος 1 από 3.") and not posts(w, "starts.")
            await settle(w)
            (pinned,) = w.channel.pinned_messages()
            assert "Παίκτης" in pinned.content and "Κατάταξη κατά βαθμούς" in pinned.content, pinned.content
            assert pinned.attachments and "Βαθμολογία του Κύπελλο." in (pinned.attachments[0].description or "")

            r = await w.do(players[0].slash(w.channel, "bg-tour standings", tournament=tid))
            assert "Oyuncu" in said(r) and "Sıralama ölçütü: puan" in said(r), said(r)
            # A refusal is the asker's too.
            r = await w.do(players[2].slash(w.channel, "bg-tour leave", tournament=tid))
            assert "has started: an admin may replace or disqualify a player instead" in said(r), said(r)
