"""Tournaments in the service, on a real SQLite file and the real PostgreSQL server: a Swiss to the end with its
results in the ratings, a deadline fired by two schedulers (two processes) decided once, Backgammon Doubles teams,
and every admin action and refusal."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.scheduler import Scheduler
from bot.service import SYSTEM, GameService, Refused, Request, SeededDice
from bot.service.tour_parts import TourNews
from bot.storage import Scope, Store
from engine.tournament import How, champion, open_matches
from tests.bot.service.playing import next_action

GUILD = "g"
HOUR = 3600.0
ADMIN = Request("admin", "Admin", GUILD, admin=True)


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def person(k: int, guild: str = GUILD) -> Request:
    return Request(f"p{k:02d}", f"Player {k}", guild)


class Heard:
    """A transport's ear: every tournament event told, by kind."""

    def __init__(self) -> None:
        self.news: list[TourNews] = []

    async def __call__(self, news: TourNews) -> None:
        self.news.append(news)

    def kinds(self, kind: str) -> list[str]:
        return [e.text for n in self.news for e in n.events if e.kind == kind]


def run(db_url: tuple[str, str | None], body: Callable[..., Awaitable[Any]], services: int = 1) -> Any:
    """Run ``body(clock, *services)``: one service per simulated process, each with its own store."""

    async def go() -> Any:
        url, schema = db_url
        clock = Clock()
        stores = [await Store.open(url, schema=schema, clock=clock) for _ in range(services)]
        try:
            return await body(clock, *[GameService(s, dice=SeededDice(7), clock=clock) for s in stores])
        finally:
            for s in stores:
                await s.close()

    return asyncio.run(go())


async def refused(coro: Awaitable[Any], text: str) -> None:
    with pytest.raises(Refused) as info:
        await coro
    assert text in str(info.value), str(info.value)


async def forfeit(svc: GameService, game_id: int, side: int = 1) -> None:
    """The acting member of ``side`` gives the match up."""
    view = await svc.view(game_id, SYSTEM)
    state = await svc.state(game_id, SYSTEM)
    loser = state.acting_member(side)
    await svc.forfeit(game_id, Request(loser, loser, view.guild_id))


async def act_once(svc: GameService, game_id: int) -> None:
    """Whoever is to act in the game does their ordinary next action (a roll, the first of their legal plays)."""
    view = await svc.view(game_id, SYSTEM)
    await next_action(svc, view, Request(view.to_act or (view.acting or ("",))[0], "x", GUILD))


async def play_round(svc: GameService, tid: int, skip: int = 0) -> None:
    t = (await svc.tour_view(ADMIN, tid)).tournament
    for k, x in enumerate(open_matches(t)):
        if k >= skip:
            await forfeit(svc, int(x.game or 0), side=k % 2)


def test_a_swiss_runs_to_the_end_and_its_results_reach_the_ratings(db_url: tuple[str, str | None]) -> None:
    async def body(clock: Clock, svc: GameService) -> None:
        heard = Heard()
        svc.on_tournament(heard)
        news = await svc.tour_create(ADMIN, "Club Swiss", "swiss", variant="sprintgammon", length=1, rounds=3)
        tid = news.view.id
        for k in range(9):
            await svc.tour_join(person(k), tid)
        await refused(svc.tour_join(person(3), tid), "already")
        await svc.tour_leave(person(8), tid)
        started = await svc.tour_start(ADMIN, tid)
        assert len(started.started) == 4
        for game_id in started.started:  # the games are ordinary rated matches between the entrants
            view = await svc.view(game_id, SYSTEM)
            assert view.status == "active" and view.length == 1 and len(view.sides[0]) == 1
        for _ in range(3):
            await play_round(svc, tid)
        t = (await svc.tour_view(ADMIN, tid)).tournament
        assert t.finished and champion(t) is not None
        assert len(heard.kinds("round")) == 3 and len(heard.kinds("result")) == 12 and len(heard.kinds("finished")) == 1
        pairs = [frozenset((x.a, x.b)) for x in t.matches if x.b is not None]
        assert len(pairs) == len(set(pairs)) == 12
        board = await svc.leaderboard(ADMIN, "sprintgammon")
        assert len(board) == 8 and sum(r["wins"] for r in board) == 12 == sum(r["losses"] for r in board)
        # Each finished game left a durable timer to record its result: recorded already, they change nothing.
        clock.now += 60
        before = len(heard.news)
        await Scheduler(svc.store, svc, clock=clock).tick()
        assert len(heard.news) == before
        # Nothing is left: the deadlines and reminders of the rounds that ended early were cancelled with them.
        assert not [r for r in await svc.store.pending_timers() if r.kind.startswith("tour-")]
        pages, text = await svc.tour_pictures(await svc.tour_view(person(1), tid))
        assert pages and pages[0].png.startswith(b"\x89PNG") and "Buchholz" in text and "Ties settled: " in text
        # An admin erases a player's data: the tournament calls their place by the neutral name; results stay.
        await svc.forget(ADMIN, "p03")
        t = (await svc.tour_view(ADMIN, tid)).tournament
        assert t.entrant("p03").name == "a former player" and "Player 3" not in str(t.entrants)
        assert len([x for x in t.matches if "p03" in x.entrants and x.result is not None]) == 3

    run(db_url, body)


def test_a_deadline_fired_by_two_schedulers_is_decided_once(db_url: tuple[str, str | None]) -> None:
    async def body(clock: Clock, one: GameService, two: GameService) -> None:
        ears = Heard(), Heard()
        one.on_tournament(ears[0])
        two.on_tournament(ears[1])
        news = await one.tour_create(
            ADMIN, "Pip Cup", "knockout", variant="backgammon", length=3, round_hours=24, deadline_rule="pips"
        )
        tid = news.view.id
        for k in range(4):
            await one.tour_join(person(k), tid)
        started = await one.tour_start(ADMIN, tid)
        first, second = started.started
        await forfeit(one, second)
        # The first match is played a little: whoever has fewer pips then wins at the deadline.
        for _ in range(6):
            await act_once(one, first)
        state = await one.state(first, SYSTEM)
        pips = [state.variant.pips(state.position_for(k))[0] for k in (0, 1)]
        clock.now += 25 * HOUR
        # The deadline's timer, as if its lease ran out while the first process fired it: both fire it at once.
        (timer,) = [r for r in await one.store.pending_timers() if r.kind == "tour-deadline"]
        await asyncio.gather(one.fire_timer(timer), two.fire_timer(timer))
        await asyncio.gather(
            Scheduler(one.store, one, clock=clock).tick(), Scheduler(two.store, two, clock=clock).tick()
        )
        decided = ears[0].kinds("deadline") + ears[1].kinds("deadline")
        assert len(decided) == 1 and "Rule: the higher pip count loses" in decided[0], decided
        t = (await two.tour_view(ADMIN, tid)).tournament
        x = next(m for m in t.matches if m.game == str(first))
        assert x.result is not None and x.result.how is How.DEADLINE
        loser = 0 if pips[0] > pips[1] else 1
        assert x.result.winner == (x.b if loser == 0 else x.a)
        log = await one.store.load_actions(first, scope=Scope.system())
        assert [a.action["type"] for a in log].count("Forfeit") == 1  # its game ended once, for the loser
        assert t.round == 2 and len(ears[0].kinds("round") + ears[1].kinds("round")) == 2
        # A restart (a third process) fires nothing again.
        store = await Store.open(db_url[0], schema=db_url[1], clock=clock)
        try:
            three = GameService(store, dice=SeededDice(7), clock=clock)
            ear = Heard()
            three.on_tournament(ear)
            clock.now += 60
            await Scheduler(store, three, clock=clock).tick()
            assert ear.news == []
        finally:
            await store.close()

    run(db_url, body, services=2)


@pytest.mark.parametrize("piece", [1, 64])
def test_the_recent_actor_rule_reads_each_sides_last_action(
    db_url: tuple[str, str | None], piece: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline looks back through the match's record a piece at a time (a piece of one action: many reads)
    until it has each side's last action, and the side that acted last wins, by the gap between them."""
    from bot.service import tournaments
    from engine.tournament.deadline import duration_words

    monkeypatch.setattr(tournaments, "LOG_PIECE", piece)

    async def body(clock: Clock, svc: GameService) -> None:
        ear = Heard()
        svc.on_tournament(ear)
        news = await svc.tour_create(ADMIN, "Recent Cup", "knockout", variant="backgammon", length=5, round_hours=24)
        tid = news.view.id
        for k in range(2):
            await svc.tour_join(person(k), tid)
        (game,) = (await svc.tour_start(ADMIN, tid)).started
        for k in range(9):  # minutes apart, each a little further apart than the last
            clock.now += 60 * (k + 1)
            await act_once(svc, game)
        log = await svc.store.load_actions(game, scope=Scope.system())
        last: dict[str, float] = {}
        for row in log:
            if row.action.get("by") and row.action["type"] != "Timeout":
                last[row.action["by"]] = row.at
        (late, early) = sorted(last, key=last.__getitem__, reverse=True)
        clock.now += 25 * HOUR
        await Scheduler(svc.store, svc, clock=clock).tick()
        (decided,) = ear.kinds("deadline")
        gap = duration_words(last[late] - last[early])
        assert f"Player {int(late[1:])} acted last, {gap} after Player {int(early[1:])}" in decided, decided
        x = next(m for m in (await svc.tour_view(ADMIN, tid)).tournament.matches if m.game == str(game))
        assert x.result is not None and x.result.winner == late and x.result.how is How.DEADLINE

    run(db_url, body)


def test_teams_play_a_backgammon_doubles_knockout(db_url: tuple[str, str | None]) -> None:
    async def body(clock: Clock, svc: GameService) -> None:
        heard = Heard()
        svc.on_tournament(heard)
        news = await svc.tour_create(ADMIN, "Pairs Cup", "knockout", variant="doubles", length=1)
        tid = news.view.id
        await refused(svc.tour_join(person(0), tid), "for teams of two: name your teammate")
        # A team enters once the teammate says yes, as every seated player of a team challenge accepts it.
        asked = await svc.tour_join(person(0), tid, teammate=person(1))
        (invite,) = [e for e in asked.events if e.kind == "team-invite"]
        assert invite.pings == ("p01",) and invite.by == "p00" and "Player 1 says yes" in invite.text
        assert asked.view.tournament.entrants == ()
        await refused(svc.tour_team_answer(person(2), tid), "nobody has asked you")
        await svc.tour_team_answer(person(1), tid, captain="p00", accept=False)
        assert heard.kinds("team-declined") == ["Player 1 declined to play Pairs Cup with Player 0."]
        await refused(svc.tour_team_answer(person(1), tid), "nobody has asked you")
        for k in range(0, 8, 2):
            await svc.tour_join(person(k), tid, teammate=person(k + 1))
            joined = await svc.tour_team_answer(person(k + 1), tid)
            assert joined.view.tournament.entrant_of(person(k).id) is not None
        await refused(svc.tour_join(person(8), tid, teammate=person(1)), "Player 1 already plays in Pairs Cup")
        started = await svc.tour_start(ADMIN, tid)
        view = await svc.view(started.started[0], SYSTEM)
        assert all(len(side) == 2 for side in view.sides)
        while not (t := (await svc.tour_view(ADMIN, tid)).tournament).finished:
            for x in open_matches(t):
                await forfeit(svc, int(x.game or 0))
        winner = champion(t)
        assert winner is not None and " & " in t.entrant(winner).name
        assert len(await svc.leaderboard(ADMIN, "doubles")) == 8

    run(db_url, body)


def test_admins_pause_extend_decide_replace_and_disqualify(db_url: tuple[str, str | None]) -> None:
    async def body(clock: Clock, svc: GameService) -> None:
        heard = Heard()
        svc.on_tournament(heard)
        await refused(svc.tour_create(person(1), "Mine", "league"), "only a server admin")
        await refused(svc.tour_create(Request("a", "A", None, admin=True), "DM", "league"), "belong to a server")
        news = await svc.tour_create(
            ADMIN, "League", "league", variant="sprintgammon", length=1, round_hours=10, deadline_rule="admin"
        )
        tid = news.view.id
        await refused(svc.tour_view(Request("x", "X", "elsewhere"), tid), f"no tournament #{tid} here")
        for k in range(4):
            await svc.tour_join(person(k), tid)
        await refused(svc.tour_start(person(0), tid), "only a server admin")
        started = await svc.tour_start(ADMIN, tid)
        await refused(svc.tour_leave(person(0), tid), "has started")
        sched = Scheduler(svc.store, svc, clock=clock)

        # Paused: its deadline does not count; resumed after five hours, it moves on by five hours.
        await svc.tour_pause(ADMIN, tid)
        clock.now += 5 * HOUR
        await svc.tour_resume(ADMIN, tid)
        clock.now += 6 * HOUR  # 11 hours since the start, 6 of them counting: within the round's 10
        await sched.tick()  # (the reminders set for the deadline before the pause find it moved: they say nothing)
        assert heard.kinds("needs-admin") == [] and heard.kinds("deadline") == [] and heard.kinds("reminder") == []
        clock.now += 2 * HOUR  # 75% of the round has gone: both players of each unfinished match are reminded
        await sched.tick()
        reminders = [e for n in heard.news for e in n.events if e.kind == "reminder"]
        assert len(reminders) == 2 and all(len(e.pings) == 2 and "within 2 h" in e.text for e in reminders)

        # The deadline passes: the rule is an admin's decision, announced once per match however often it fires.
        clock.now += 3 * HOUR
        await sched.tick()
        await svc.tour_check(ADMIN, tid)
        assert len(heard.kinds("needs-admin")) == 2
        t = (await svc.tour_view(ADMIN, tid)).tournament
        one, two = open_matches(t)
        # One match gets two more hours, then is decided by walkover; a player of the other is replaced.
        await svc.tour_extend(ADMIN, 2, tid, match_id=one.id)
        await svc.tour_decide(ADMIN, one.id, t.entrant(one.b or "").members[0], tid, walkover=True)
        old_game = int(two.game or 0)
        replaced = await svc.tour_replace(ADMIN, two.a or "", Request("p09", "Newcomer", GUILD), tid)
        assert replaced.started and (await svc.view(old_game, SYSTEM)).status == "archived"
        new_game = await svc.view(replaced.started[0], SYSTEM)
        assert "p09" in new_game.sides[0] + new_game.sides[1]
        await refused(svc.tour_decide(ADMIN, two.id, "p03", tid), "does not play in match")
        await forfeit(svc, new_game.id)
        t = (await svc.tour_view(ADMIN, tid)).tournament
        assert t.round == 2 and t.match(one.id).result.how is How.WALKOVER  # type: ignore[union-attr]
        # A player is disqualified: their match of this round is a walkover, their game ended.
        x = open_matches(t)[0]
        gone = t.entrant(x.a or "").members[0]
        await svc.tour_disqualify(ADMIN, gone, tid)
        assert (await svc.view(int(x.game or 0), SYSTEM)).status == "archived"  # stopped: a walkover is not rated
        assert any("was disqualified" in text for text in heard.kinds("walkover"))
        await refused(svc.tour_disqualify(ADMIN, gone, tid), "already disqualified")
        assert started.view.id == tid

    run(db_url, body)


def test_unplayed_matches_count_in_the_tournament_but_not_in_ratings(db_url: tuple[str, str | None]) -> None:
    """A walkover, an admin's decision and a disqualification are recorded with their score (as the game would end:
    the winner reaches the length) and said once each, in order; their games are stopped, and no rating moves."""

    async def body(clock: Clock, svc: GameService) -> None:
        heard = Heard()
        svc.on_tournament(heard)
        news = await svc.tour_create(ADMIN, "Quiet Cup", "swiss", variant="sprintgammon", length=3, rounds=2)
        tid = news.view.id
        for k in range(6):
            await svc.tour_join(person(k), tid)
        started = await svc.tour_start(ADMIN, tid)
        t = started.view.tournament
        first, second, third = open_matches(t)
        # One match is played to its end (rated), one is decided by walkover, one by an admin, one player of the
        # admin's match having won a game first.
        await forfeit(svc, int(first.game or 0))
        rated = await svc.leaderboard(ADMIN, "sprintgammon")
        assert len(rated) == 2
        winner = t.entrant(second.a or "").members[0]
        walkover = await svc.tour_decide(ADMIN, second.id, winner, tid, walkover=True)
        await refused(svc.tour_decide(ADMIN, second.id, "p05", tid), f"match {second.id} already has a result")
        await svc.tour_decide(ADMIN, third.id, t.entrant(third.b or "").members[0], tid)
        t = (await svc.tour_view(ADMIN, tid)).tournament
        for x, how in ((second, How.WALKOVER), (third, How.ADMIN)):
            result = t.match(x.id).result
            assert result is not None and result.how is how
            assert (result.winner_points, result.loser_points) == (3, 0)  # the winner reaches the length
            assert (await svc.view(int(x.game or 0), SYSTEM)).status == "archived"
        assert await svc.leaderboard(ADMIN, "sprintgammon") == rated  # nobody's rating moved
        assert [r["player"] for r in await svc.history(ADMIN, player_id=winner)] == []
        # Each decision was said once, and before the next round's pairings.
        said = [e.text for n in heard.news for e in n.events if e.match_id in (second.id, third.id)]
        assert len(said) == 2, said
        assert walkover.events[0].kind == "decided" and len(walkover.events) == 1
        texts = [e.text for n in heard.news for e in n.events]
        assert texts.index(said[1]) < max(i for i, text in enumerate(texts) if "round 2 of 2 starts" in text)
        # Round 2: a player is disqualified; their opponent's walkover is recorded, said once, and not rated.
        t = (await svc.tour_view(ADMIN, tid)).tournament
        x = open_matches(t)[0]
        await svc.tour_disqualify(ADMIN, t.entrant(x.b or "").members[0], tid)
        walkovers = [e.text for e in heard.news[-1].events if e.kind == "walkover"]
        assert len(walkovers) == 1 and "wins by walkover" in walkovers[0]
        result = (await svc.tour_view(ADMIN, tid)).tournament.match(x.id).result
        assert result is not None and (result.how, result.winner_points, result.loser_points) == (How.WALKOVER, 3, 0)
        assert await svc.leaderboard(ADMIN, "sprintgammon") == rated

    run(db_url, body)
