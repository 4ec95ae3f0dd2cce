"""Tournaments through Discord (simcord), to the end: players sign up with the Join button, the bot makes every
pairing and opens each match in its own thread, players finish their matches (by ``/bg forfeit``, the quickest way),
a reminder calls both players of an unfinished match, its deadline passes on a fake clock and the tournament's rule
decides it (the bot says which rule), a disqualified player's match is a walkover, the bracket or standings are
posted and kept up to date in one pinned message, and the results reach the ratings. The bot is restarted in the
middle of a round: nothing is lost, nothing fires twice."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import discord
import pytest
import simcord

from bot.service import Request
from bot.service.tour_parts import TourView
from engine.tournament import How, champion, open_matches
from tests.bot.discord.helpers import FakeTime, World, labels, live_message, reply, said, show_command, world

pytestmark = pytest.mark.asyncio

HOUR = 3600.0


def cast_of(w: World, count: int) -> tuple[simcord.MemberActor, list[simcord.MemberActor]]:
    """A tournament director (Manage Server) and ``count`` players, known to the world by name."""
    admins = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    director = w.guild.add_member(w.env.create_user("director"), roles=[admins])
    players = [w.guild.add_member(w.env.create_user(f"player{k:02d}")) for k in range(count)]
    for p in players:
        w.people[p.name] = p
    return director, players


def as_director(w: World, director: simcord.MemberActor) -> Request:
    return Request(str(director.id), "director", str(w.guild.id), admin=True)


async def standing(w: World, director: simcord.MemberActor, tid: int) -> TourView:
    return await w.bot.service.tour_view(as_director(w, director), tid)


async def settle(w: World) -> None:
    """Wait for the pinned message's drawing (done in the background) to finish."""
    cog = w.bot.get_cog("Tournaments")
    assert cog is not None
    await cog.board.idle()  # type: ignore[attr-defined]


def thread_of(w: World, thread_id: str | None) -> simcord.ChannelHandle:
    found = [t for t in w.channel.threads if str(t.id) == thread_id]
    assert found, f"no thread {thread_id}"
    return found[0]


async def forfeit(w: World, game_id: int, side: int = 1) -> None:
    """A player of the match gives it up with ``/bg forfeit`` in its thread (once the pinned message's drawing,
    in the background, is done: its edit is no part of this interaction)."""
    await settle(w)
    view = await w.view(game_id)
    player = w.by_id(view.sides[side][0])
    r = await w.do(player.slash(thread_of(w, view.thread_id), "bg forfeit", confirm=True))
    assert r.acknowledged
    assert (await w.view(game_id)).status == "finished", said(r)


async def open_signups(w: World, director: simcord.MemberActor, **terms: object) -> tuple[int, simcord.ResponseMessage]:
    """A tournament created by its director: its id and its sign-up message (with Join and Leave)."""
    r = await w.do(director.slash(w.channel, "bg-admin tour create", variant="sprintgammon", length=1, **terms))
    signup = reply(r)
    assert labels(signup) == ["Join", "Leave"], signup.content
    return int(re.findall(r"#(\d+)", signup.content)[0]), signup


async def join_and_start(
    w: World,
    director: simcord.MemberActor,
    players: list[simcord.MemberActor],
    tid: int,
    signup: simcord.ResponseMessage,
) -> None:
    """Everyone presses Join (one changes their mind and back), then the director starts it."""
    for p in players:
        await w.do(p.click(signup, label="Join"))
    await w.do(players[0].click(signup, label="Leave"))
    await w.do(players[0].click(signup, label="Join"))
    again = next(m for m in w.channel.history() if m.id == signup.id)
    assert f"{len(players)} of at most" in again.content and labels(again) == ["Join", "Leave"]
    r = await w.do(director.slash(w.channel, "bg-admin tour start", tournament=tid))
    assert "has started" in said(r)
    closed = next(m for m in w.channel.history() if m.id == signup.id)
    assert "Sign-ups are closed" in closed.content and labels(closed) == []


def posts(w: World, text: str) -> list[str]:
    return [m.content for m in w.channel.history() if text in m.content]


async def test_a_swiss_of_sixteen_and_a_knockout_of_twelve_run_to_the_end(tmp_path: Path) -> None:
    now = FakeTime()
    async with world(tmp_path, clock=now) as w:
        director, players = cast_of(w, 16)
        # Running a tournament is hidden from players (and refused where a server shows it to them).
        assert not [c for c in players[1].available_commands(w.channel) if c.startswith("bg-admin")]
        show_command(w, "bg-admin", players[1])
        refused = await w.do(players[1].slash(w.channel, "bg-admin tour create", name="Mine", format="swiss"))
        assert "Only a server admin" in said(refused)
        tid, signup = await open_signups(w, director, name="Spring Swiss", format="swiss", rounds=4, round_hours=24.0)
        await join_and_start(w, director, players, tid, signup)
        t = (await standing(w, director, tid)).tournament
        assert t.round == 1 and len(open_matches(t)) == 8
        assert len(w.channel.threads) == 8  # one thread per match, opened by the bot
        assert posts(w, "round 1 of 4 starts")
        (pinned,) = w.channel.pinned_messages()
        assert pinned.attachments and "Spring Swiss" in pinned.content

        # Round 1: every match is played to its end.
        for x in open_matches(t):
            await forfeit(w, int(x.game or 0), side=int(x.slot) % 2)
        t = (await standing(w, director, tid)).tournament
        assert t.round == 2 and len(posts(w, "round 2 of 4 starts")) == 1

        # Round 2: all but one match end; in that one, one player throws the opening die and nothing more.
        late, *rest = open_matches(t)
        for x in rest:
            await forfeit(w, int(x.game or 0))
        late_view = await w.view(int(late.game or 0))
        thrower = w.by_id(late_view.sides[0][0])
        late_thread = thread_of(w, late_view.thread_id)
        await w.do(thrower.click(live_message(late_thread), label="Roll"))
        assert w.bot.scheduler is not None
        now.advance(19 * HOUR)  # 75% of the round's day has gone: both players are reminded, in their thread
        await w.bot.scheduler.tick()
        reminder = late_thread.history()[-1].content
        assert "Reminder:" in reminder and all(f"<@{p}>" in reminder for s in late_view.sides for p in s)

        # The next tournament's sign-ups open; then the bot restarts in the middle of the round: nothing is lost.
        ko, ko_signup = await open_signups(
            w, director, name="Summer Cup", format="knockout", round_hours=48.0, seeding="rating"
        )
        await settle(w)
        await w.restart()
        t = (await standing(w, director, tid)).tournament
        assert t.round == 2 and [x.id for x in open_matches(t)] == [late.id]

        # The deadline passes: the tournament's rule decides the match, and the bot says which rule it applied.
        now.advance(6 * HOUR)
        assert w.bot.scheduler is not None
        await w.bot.scheduler.tick()
        decided = posts(w, "Rule: the player who acted more recently wins")
        assert len(decided) == 1 and f"{thrower.name} acted and" in decided[0], decided
        t = (await standing(w, director, tid)).tournament
        result = t.match(late.id).result
        assert result is not None and result.how is How.DEADLINE and result.winner == t.entrant_of(str(thrower.id)).id  # type: ignore[union-attr]
        # its game was stopped, unrated: the other player never acted in it, so it was not played
        assert (await w.view(int(late.game or 0))).status == "archived"
        assert t.round == 3 and len(posts(w, "round 3 of 4 starts")) == 1

        # Round 3: a player is disqualified (their match is a walkover); the others play.
        gone = w.by_id(t.entrant(open_matches(t)[0].a or "").members[0])
        r = await w.do(director.slash(w.channel, "bg-admin tour disqualify", player=gone, tournament=tid))
        assert "goes on without them" in said(r)
        t = (await standing(w, director, tid)).tournament
        # An admin decides another match; the rest are played.
        by_admin, *played = open_matches(t)
        chosen = w.by_id(t.entrant(by_admin.a or "").members[0])
        r = await w.do(director.slash(w.channel, "bg-admin tour decide", match=by_admin.id, winner=chosen,
                                      tournament=tid))  # fmt: skip
        assert "wins by an admin's decision" in said(r)
        for x in played:
            await forfeit(w, int(x.game or 0))
        await settle(w)
        # Each decision was announced once in the channel, before the next round's pairings.
        (walkover,) = posts(w, "wins by walkover")
        (decision,) = posts(w, "wins by an admin's decision")
        history = [m.content for m in w.channel.history()]
        starts = history.index(posts(w, "round 4 of 4 starts")[0])
        assert history.index(walkover) < starts and history.index(decision) < starts

        # Round 4: fifteen players (one has a bye); the tournament ends.
        t = (await standing(w, director, tid)).tournament
        assert t.round == 4 and any(x.is_bye for x in t.matches if x.round == 4)
        for x in open_matches(t):
            await forfeit(w, int(x.game or 0), side=0)
        await settle(w)
        t = (await standing(w, director, tid)).tournament
        assert t.finished and champion(t) is not None
        assert len(posts(w, "wins the tournament")) == 1

        # Every pairing was the bot's, none a rematch; each round and each result was announced once.
        pairs = [frozenset((x.a, x.b)) for x in t.matches if x.b is not None]
        assert len(pairs) == len(set(pairs))
        for number in (1, 2, 3, 4):
            assert len(posts(w, f"round {number} of 4 starts")) == 1
        beaten = Counter(m for text in posts(w, " beat ") for m in re.findall(r"in match (R\d-\d+)", text))
        assert beaten and max(beaten.values()) == 1
        (pinned,) = w.channel.pinned_messages()  # one message, edited as results came in
        assert pinned.edited_at is not None and pinned.attachments and "finished" in pinned.content

        # The results are in the server's ratings.
        board = await w.bot.service.leaderboard(as_director(w, director), "sprintgammon")
        # (the 28 matches played: not the deadline's match nobody played out, the walkover, nor the admin's decision)
        assert len(board) == 16 and sum(r["wins"] for r in board) == sum(r["losses"] for r in board) == 28

        # Nothing fires twice: every timer left (the games' results, recorded already) changes nothing.
        count = len(w.channel.history())
        now.advance(48 * HOUR)
        await w.bot.scheduler.tick()
        await settle(w)
        assert len(w.channel.history()) == count

        # A knockout of twelve of them, seeded by those ratings (four byes), with a walkover, to the end. They sign
        # up with the buttons of the message posted before the restart.
        await join_and_start(w, director, players[:12], ko, ko_signup)
        t = (await standing(w, director, ko)).tournament
        ratings = {r["player"]: r["rating"] for r in board}
        top = max((p for p in players[:12]), key=lambda p: ratings[str(p.id)])
        assert t.seeds[0] == t.entrant_of(str(top.id)).id  # type: ignore[union-attr]
        assert sum(1 for x in t.matches if x.round == 1 and x.is_bye) == 4 and len(open_matches(t)) == 4
        while not t.finished:
            opened = open_matches(t)
            if t.round == 2:
                gone = w.by_id(t.entrant(opened[0].b or "").members[0])
                await w.do(director.slash(w.channel, "bg-admin tour disqualify", player=gone, tournament=ko))
                opened = opened[1:]
            for x in opened:
                await forfeit(w, int(x.game or 0))
            t = (await standing(w, director, ko)).tournament
        await settle(w)
        assert len(w.channel.pinned_messages()) == 2
        bracket = next(m for m in w.channel.pinned_messages() if "Summer Cup" in m.content)
        assert bracket.attachments and bracket.edited_at is not None
        assert len(posts(w, "wins the tournament")) == 2
        r = await w.do(players[2].slash(w.channel, "bg-tour standings", tournament=ko))
        assert reply(r).attachments or r.followups[0].attachments


async def test_a_team_enters_a_doubles_tournament_once_the_teammate_presses_accept(tmp_path: Path) -> None:
    """``/bg-tour join teammate:`` asks the teammate in the channel, with Accept and Decline that only the teammate
    may press (as every seated player of a team challenge accepts it); Decline withdraws the invitation."""
    async with world(tmp_path, clock=FakeTime()) as w:
        director, players = cast_of(w, 4)
        r = await w.do(director.slash(w.channel, "bg-admin tour create", name="Pairs", format="knockout",
                                      variant="doubles", length=1))  # fmt: skip
        signup = reply(r)
        tid = int(re.findall(r"#(\d+)", signup.content)[0])
        r = await w.do(players[0].slash(w.channel, "bg-tour join", teammate=players[1], tournament=tid))
        assert "must say yes" in said(r)
        (invite,) = [m for m in w.channel.history() if "asks" in m.content]
        assert labels(invite) == ["Accept", "Decline"] and f"<@{players[1].id}>" in invite.content
        assert (await standing(w, director, tid)).tournament.entrants == ()
        r = await w.do(players[2].click(invite, label="Accept"))
        assert "Nobody has asked you" in r.followups[0].content
        r = await w.do(players[1].click(invite, label="Accept"))
        assert "You joined Pairs" in r.followups[0].content
        t = (await standing(w, director, tid)).tournament
        assert [e.members for e in t.entrants] == [(str(players[0].id), str(players[1].id))]
        answered = next(m for m in w.channel.history() if m.id == invite.id)
        assert labels(answered) == [] and "Accepted." in answered.content
        again = next(m for m in w.channel.history() if m.id == signup.id)
        assert "1 of at most" in again.content
        # The other two: asked, and the teammate says no.
        await w.do(players[2].slash(w.channel, "bg-tour join", teammate=players[3], tournament=tid))
        second = [m for m in w.channel.history() if "asks" in m.content][-1]
        r = await w.do(players[3].click(second, label="Decline"))
        assert "not entered" in r.followups[0].content
        assert posts(w, "declined to play Pairs")
        assert len((await standing(w, director, tid)).tournament.entrants) == 1
