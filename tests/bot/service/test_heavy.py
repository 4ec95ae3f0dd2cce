"""Heavy work, fair and shared (bot/service/heavy.py, bot/service/pool.py's lanes): sharing, memory, one job at a time
per user and per game, cancellation when nobody waits, lanes that keep a long job from holding up short ones, caps
on long sessions, verify off the event loop, and dice statistics from tallies kept as games are played.

Every test waits on events (asyncio events, files a worker waits for), never on the clock.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot.config import LimitSettings
from bot.service import SYSTEM, GameService, Refused, SeededDice
from bot.service.heavy import (
    ANALYSIS_GAMES,
    CARD_GAMES,
    KEEP_BYTES,
    HeavyWork,
    Job,
    analysed_from,
    counted_from,
)
from bot.service.pool import WorkPool, lane_sizes
from bot.storage import Scope, Store, Unavailable
from engine import match as m
from engine.analysis import analyse
from engine.fairdice import dice_stats, player_rolls
from engine.matchcard import match_card
from engine.record import action_from_data
from tests.bot.service.playing import next_action
from tests.bot.service.test_pool import ALICE, BOB, long_game, money_setup, self_played

pytestmark = pytest.mark.asyncio


class Gate:
    """A job that waits until the test opens its gate, counting how often it was made and whether it was cancelled."""

    def __init__(self, answer: Any = "done") -> None:
        self.answer = answer
        self.opened = asyncio.Event()
        self.started = asyncio.Event()
        self.made = 0
        self.cancelled = False

    async def __call__(self) -> Any:
        self.made += 1
        self.started.set()
        try:
            await self.opened.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return self.answer


async def test_the_same_job_asked_twice_is_made_once_and_then_remembered() -> None:
    heavy = HeavyWork()
    gate = Gate("card")
    job = Job("card", 7, 3)
    first = asyncio.ensure_future(heavy.run(job, "ann", gate))
    await gate.started.wait()
    second = asyncio.ensure_future(heavy.run(Job("card", 7, 3), "ben", gate))  # another player, the same card
    await asyncio.sleep(0)
    gate.opened.set()
    assert await first == await second == "card"
    assert gate.made == 1 and heavy.joined == 1
    assert await heavy.run(job, "cy", gate) == "card" and gate.made == 1 and heavy.remembered == 1
    # Another version of the game, or another language, is another job.
    assert await heavy.run(Job("card", 7, 4), "cy", gate) == "card" and gate.made == 2
    assert await heavy.run(Job("card", 7, 3, language="ru"), "cy", gate) == "card" and gate.made == 3
    heavy.forget(7)
    assert await heavy.run(job, "cy", gate) == "card" and gate.made == 4
    # A very large answer (a long replay's animation) is not kept.
    big = Gate(b"x" * (KEEP_BYTES // 4 + 1))
    big.opened.set()
    for _ in range(2):
        await heavy.run(Job("replay", 8, 1), "cy", big)
    assert big.made == 2


async def test_a_user_and_a_game_have_one_heavy_job_at_a_time() -> None:
    heavy = HeavyWork(workers={"short": 4, "long": 4})  # room in the lanes: what holds jobs back here is the rule
    export, replay, other = Gate("mat"), Gate("gif"), Gate("card")
    first = asyncio.ensure_future(heavy.run(Job("export", 1, 1), "ann", export))
    await export.started.wait()
    # Ann's second heavy request (another game) waits for her first...
    second = asyncio.ensure_future(heavy.run(Job("replay", 2, 1), "ann", replay))
    # ...and Ben's request on the game of Ann's first (in the same lane) waits for that game's job...
    third = asyncio.ensure_future(heavy.run(Job("card", 1, 1), "ben", other))
    # ...while Cy's analysis of it (the long lane) does not.
    analysis = Gate("analysis")
    analysis.opened.set()
    assert await heavy.run(Job("analysis", 1, 1), "cy", analysis) == "analysis"
    for _ in range(20):
        await asyncio.sleep(0)
    assert replay.made == 0 and other.made == 0
    export.opened.set()
    replay.opened.set()
    other.opened.set()
    assert (await first, await second, await third) == ("mat", "gif", "card")
    # Cy's job on another game never waited for anyone.
    free = Gate("free")
    free.opened.set()
    assert await heavy.run(Job("export", 3, 1), "cy", free) == "free"
    assert heavy._load == {"short": 0, "long": 0}  # every place in the lanes given back


async def test_a_job_whose_every_caller_gave_up_is_cancelled() -> None:
    heavy = HeavyWork()
    gate = Gate()
    job = Job("analysis", 5, 9)
    ann = asyncio.ensure_future(heavy.run(job, "ann", gate))
    await gate.started.wait()
    ben = asyncio.ensure_future(heavy.run(job, "ben", gate))
    await asyncio.sleep(0)
    ann.cancel()  # one of two callers gives up: the job goes on for the other
    with pytest.raises(asyncio.CancelledError):
        await ann
    await asyncio.sleep(0)
    assert not gate.cancelled
    ben.cancel()  # the last one: the job is cancelled
    with pytest.raises(asyncio.CancelledError):
        await ben
    for _ in range(5):
        await asyncio.sleep(0)
    assert gate.cancelled and heavy.cancelled == 1
    # Asked again, it is made again (nothing half-done was kept).
    again = Gate("fresh")
    again.opened.set()
    assert await heavy.run(job, "ann", again) == "fresh"
    assert heavy._load == {"short": 0, "long": 0}


async def test_a_full_lane_answers_a_players_request_at_once_and_the_services_own_wait() -> None:
    heavy = HeavyWork(workers={"short": 1, "long": 1})
    assert heavy.capacity == {"short": 2, "long": 2}
    gates = [Gate(f"mat{k}") for k in range(2)]
    busy = [asyncio.ensure_future(heavy.run(Job("export", k, 1), f"user{k}", gates[k])) for k in range(2)]
    for gate in gates:
        await gate.started.wait()
    assert heavy._load["short"] == 2
    with pytest.raises(Refused) as refused:  # a fourth player's export: the short lane is full
        await heavy.run(Job("export", 9, 1), "dan", Gate())
    assert "busy" in str(refused.value) and heavy.refused == 1
    analysis = Gate("analysis")  # the long lane is not
    analysis.opened.set()
    assert await heavy.run(Job("analysis", 9, 1), "dan", analysis) == "analysis"
    card = Gate("card")  # the service's own job (a finished match's card) waits its turn
    own = asyncio.ensure_future(heavy.run(Job("card", 10, 1), None, card))
    await card.started.wait()
    assert heavy._load["short"] == 3  # the service's own job takes a place too, beyond the lane's size
    for gate in [*gates, card]:
        gate.opened.set()
    assert [await b for b in busy] == ["mat0", "mat1"] and await own == "card"
    free = Gate("mat")
    free.opened.set()
    assert await heavy.run(Job("export", 9, 1), "dan", free) == "mat"  # room again


# --- lanes --------------------------------------------------------------------------------------------------------


async def test_lanes_by_the_number_of_workers() -> None:
    assert lane_sizes(3) == {"urgent": ("urgent", 1), "long": ("long", 1), "short": ("short", 1)}
    assert lane_sizes(5)["short"] == ("short", 3)
    assert lane_sizes(2) == {"urgent": ("urgent", 1), "long": ("heavy", 1), "short": ("heavy", 1)}
    assert {group for group, _n in lane_sizes(1).values()} == {"all"}
    assert Job("card+analysis", 1, 1).lane == Job("analysis", 1, 1).lane == "long"
    assert Job("card", 1, 1).lane == Job("export", 1, 1).lane == Job("verify", 1, 1).lane == "short"


def wait_for_file(path: str, answer: str) -> str:
    """A worker job that runs until ``path`` exists (the test creates it when it has seen what it wants)."""
    while not Path(path).exists():
        time.sleep(0.01)
    return answer


def append(path: str, line: str) -> str:
    """A worker job that adds a line to a file (the order the jobs ran in)."""
    with open(path, "a") as f:
        f.write(line + "\n")
    return line


def mark(path: str, answer: str) -> str:
    """A worker job that leaves a file behind (so a test knows whether it ran)."""
    Path(path).write_text(answer)
    return answer


async def test_a_long_job_holds_up_no_short_one_and_a_job_nobody_waits_for_is_dropped(tmp_path: Path) -> None:
    pool = WorkPool(3)
    try:
        assert await pool.start()
        release = str(tmp_path / "release")
        long_job = asyncio.ensure_future(pool.run(wait_for_file, (), (release, "analysis"), large=True, lane="long"))
        # The long lane is busy until the test releases it; a short job is answered meanwhile.
        assert await pool.run(mark, (), (str(tmp_path / "export"), "export"), large=True, lane="short") == "export"
        assert not long_job.done()
        # The short lane busy too, a job waiting behind it whose caller gives up is dropped, never begun.
        blocker = asyncio.ensure_future(pool.run(wait_for_file, (), (release, "replay"), large=True, lane="short"))
        while pool._turns is None or not pool._turns[1]["short"].locked():
            await asyncio.sleep(0.01)
        never = str(tmp_path / "never")
        waiting = asyncio.ensure_future(pool.run(mark, (), (never, "x"), large=True, lane="short"))
        short = pool._turns[1]["short"]
        while not getattr(short, "_waiters", None):  # it waits for the short lane's worker
            await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert pool.dropped == 1
        # Jobs waiting for the lane are served in the order they came, whoever asked.
        order = str(tmp_path / "order")
        queued = []
        for name in ("ann", "ben", "cy", "dan"):
            queued.append(asyncio.ensure_future(pool.run(append, (), (order, name), large=True, lane="short")))
            while len(getattr(short, "_waiters", None) or ()) < len(queued):
                await asyncio.sleep(0.01)
        Path(release).write_text("go")
        assert (await long_job, await blocker) == ("analysis", "replay")
        assert [await q for q in queued] == ["ann", "ben", "cy", "dan"]
        assert Path(order).read_text().split() == ["ann", "ben", "cy", "dan"]
        assert not Path(never).exists()
    finally:
        await pool.close()


# --- the service's heavy requests ---------------------------------------------------------------------------------


async def service(tmp_path: Path, *, fair: bool = False) -> GameService:
    """A service without worker processes (threads), on seeded dice or (``fair``) dice committed to."""
    store = await Store.open(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    return GameService(store, dice=None if fair else SeededDice(3), limits=LimitSettings(worker_processes=0))


async def test_verify_runs_off_the_event_loop_and_is_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.service import jobs

    svc = await service(tmp_path, fair=True)
    try:
        gid = await long_game(svc)
        loop_thread = threading.current_thread()
        seen: list[threading.Thread] = []
        real = jobs.verify_record

        def watched(record: Any) -> Any:
            seen.append(threading.current_thread())
            return real(record)

        monkeypatch.setattr(jobs, "verify_record", watched)
        report, text, commitment = await svc.checked_record(gid, ALICE)
        assert seen and all(t is not loop_thread for t in seen)  # never the loop's thread
        # The history was written by hand, not thrown by the committed dice: the check says so, and gives no file.
        assert report.rolls > 10 and not report.ok and commitment and text is None
        again = await svc.verify(gid, ALICE)
        assert again.message == report.message
        assert svc.heavy.made == 2  # the check alone, and the check with its file (another job)
        await svc.checked_record(gid, BOB)  # the same game, the same version: remembered
        assert svc.heavy.made == 2 and svc.heavy.remembered == 1
    finally:
        await svc.close()
        await svc.store.close()


async def test_a_long_sessions_card_and_analysis_count_only_its_last_games() -> None:
    setup = money_setup("backgammon")
    state, acts = self_played(setup, 4000)
    games = max(len(state.results), state.game)
    assert games > CARD_GAMES > ANALYSIS_GAMES
    first = counted_from(state)
    assert first == games - CARD_GAMES + 1 and analysed_from(state) == games - ANALYSIS_GAMES + 1
    card = match_card(setup, acts, from_game=first)
    whole = match_card(setup, acts)
    assert card.counted_from == first and card.games == whole.games and card.score == whole.score
    replayed = m.replay(setup, ())
    rolls = 0
    for action in acts:
        if isinstance(action, m.Roll) and replayed.game >= first and replayed.roller is not None:
            rolls += 1
        replayed = m.apply(replayed, action)
    assert card.dice[0].rolls + card.dice[1].rolls == rolls < whole.dice[0].rolls + whole.dice[1].rolls
    assert all(c.game >= first for c in card.cube)


async def test_an_analysis_judges_only_the_games_asked_for() -> None:
    setup = money_setup("sprintgammon")
    state, acts = self_played(setup, 300)
    last = max(len(state.results), state.game)
    assert last >= 3
    whole = analyse(setup, acts, None, time_cap=0.05)
    late = analyse(setup, acts, None, time_cap=0.05, from_game=last)
    assert late.from_game == last and whole.from_game == 1
    assert 0 < sum(s.decisions for s in late.sides) < sum(s.decisions for s in whole.sides)
    assert all(mistake.game >= last for mistake in late.biggest)


async def test_dice_statistics_read_tallies_kept_as_games_are_played(tmp_path: Path) -> None:
    svc = await service(tmp_path)
    try:
        out = await svc.challenge(ALICE, BOB, variant="sprintgammon", length=3)
        gid = (await svc.accept(out.game.id, BOB)).game.id
        people = {ALICE.id: ALICE, BOB.id: BOB}
        for _ in range(120):
            view = await svc.view(gid, SYSTEM)
            if view.status != "active":
                break
            await next_action(svc, view, people[view.to_act or (view.acting[0] if view.acting else ALICE.id)])
        row = await svc.store.load_game(gid, scope=Scope.system())
        record = await svc.record(gid, SYSTEM)
        actions = [action_from_data(a) for a in record["actions"]]
        for player in (ALICE, BOB):
            rolls = player_rolls(actions, player.id)
            assert row.dice is not None and sum(row.dice.get(player.id, [])) == len(rolls) > 0
            assert await svc.dice_stats(player) == dice_stats(rolls)
        jobs = svc.work.answered
        assert svc.heavy.made >= 2 and jobs == 0  # read from the tallies: no record was read
    finally:
        await svc.close()
        await svc.store.close()


async def test_under_overload_requests_wait_their_turn_and_only_past_the_bound_are_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    svc = GameService(store, dice=SeededDice(3), limits=LimitSettings(worker_processes=0, max_waiting_requests=3))
    try:
        opened = asyncio.Event()
        real = store.games_of

        async def slow_database(*args: Any, **kwargs: Any) -> Any:
            await opened.wait()  # the database is slow to answer: requests wait, in turn
            return await real(*args, **kwargs)

        store.games_of = slow_database  # type: ignore[method-assign]
        waiting = [asyncio.ensure_future(svc.game_list(who)) for who in (ALICE, BOB, ALICE)]
        while svc.in_flight < 3:
            await asyncio.sleep(0)
        with caplog.at_level("WARNING", logger="gammonbot"), pytest.raises(Refused) as refused:
            await svc.game_list(BOB)  # the fourth: past the bound, refused at once
        assert str(refused.value) == "the bot is very busy right now; try again in a moment"
        assert any("3 requests are under way" in r.getMessage() for r in caplog.records)
        opened.set()
        assert [await w for w in waiting] == [[], [], []]  # the others waited and were served
        assert svc.in_flight == 0 and await svc.game_list(BOB) == []
    finally:
        await svc.close()
        await store.close()


async def test_a_board_after_a_move_is_drawn_even_when_the_settings_cannot_be_read(tmp_path: Path) -> None:
    # A move stored, then the database too busy to read the viewer's board settings: the board is drawn the default
    # way, not answered "try again" (the player would think the move was not made).
    store = await Store.open(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    svc = GameService(store, dice=SeededDice(3), limits=LimitSettings(worker_processes=0))
    try:
        out = await svc.challenge(ALICE, BOB, variant="backgammon", length=1)
        gid = (await svc.accept(out.game.id, BOB)).game.id

        async def silent(*args: Any, **kwargs: Any) -> Any:
            raise Unavailable(Unavailable.MESSAGE)

        store.player_settings = silent  # type: ignore[method-assign]
        board = await svc.board(gid, ALICE)
        assert board.png.startswith(b"\x89PNG")
    finally:
        await svc.close()
        await store.close()


async def test_overload_warnings_are_one_a_minute_with_the_count_since(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    svc = GameService(store, dice=SeededDice(3), limits=LimitSettings(worker_processes=0))
    try:

        async def silent(*args: Any, **kwargs: Any) -> Any:
            raise Unavailable(Unavailable.MESSAGE)

        store.games_of = silent  # type: ignore[method-assign]
        with caplog.at_level("WARNING", logger="gammonbot"):
            for _ in range(50):
                with pytest.raises(Refused):
                    await svc.game_list(ALICE)
            lines = [r.getMessage() for r in caplog.records if "not answering" in r.getMessage()]
            assert len(lines) == 1  # the first at once, the next 49 counted
            svc._overload.last["database"] -= svc._overload.EVERY  # a minute later
            with pytest.raises(Refused):
                await svc.game_list(BOB)
        lines = [r.getMessage() for r in caplog.records if "not answering" in r.getMessage()]
        assert len(lines) == 2 and "(and 49 more such refusals in the last 60 s)" in lines[1]
    finally:
        await svc.close()
        await store.close()
