"""Many servers share one bot: every request carries where it comes from, and a game belongs to its server.

A request from another server, or from a direct message of someone who does not play in a game, is refused
exactly as for a game that does not exist ("there is no game #N"), changing nothing, whether the service has the
game cached or reads it from the store. In a direct message players see and play their own games. Lists,
records, ratings and statistics of one server never show another's games; an admin's forget erases a player's
data in that server only, and a player's forget_me erases their name everywhere; a vacation pauses the clocks of
its own server only; only a server's admins change its settings; a player's board theme is checked, and used.

Runs on a SQLite file and on the real PostgreSQL server (when GAMMONBOT_TEST_POSTGRES_URL is set).
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from PIL import Image

from bot.service import PLAYER_DEFAULTS, SYSTEM, GameService, Outcome, PlayerRef, Refused, Request, SeededDice
from bot.storage import Scope, Store
from engine.fairdice import dice_stats, player_rolls
from engine.record import action_from_data
from tests.bot.service.playing import next_action

A, B = "guild-a", "guild-b"
EVERYTHING = Scope.system()  # the store read directly, for inspection
FORGOTTEN = "a former player"


def at(guild: str | None, pid: str, *, admin: bool = False) -> Request:
    """``pid`` asking from server ``guild`` (None: in a direct message)."""
    return Request(pid, pid.capitalize(), guild, "test", admin)


ALICE_A, BOB_A, DAN_A, FAY_A = at(A, "alice"), at(A, "bob"), at(A, "dan"), at(A, "fay")
ALICE_B, BOB_B, CAROL_B, DAN_B = at(B, "alice"), at(B, "bob"), at(B, "carol"), at(B, "dan")
ALICE_DM, BOB_DM, CAROL_DM = at(None, "alice"), at(None, "bob"), at(None, "carol")
ADMIN_A, ADMIN_B = at(A, "root", admin=True), at(B, "root", admin=True)


def run(db_url: tuple[str, str | None], body: Callable[[Store, GameService], Awaitable[Any]], **kw: Any) -> None:
    async def go() -> None:
        url, schema = db_url
        store = await Store.open(url, schema=schema, **({"clock": kw["clock"]} if "clock" in kw else {}))
        try:
            await body(store, GameService(store, **{"dice": SeededDice(7), **kw}))
        finally:
            await store.close()

    asyncio.run(go())


async def no_game(coro: Awaitable[Any], game_id: int) -> None:
    """Refused exactly as a game that does not exist is."""
    with pytest.raises(Refused) as info:
        await coro
    assert str(info.value) == f"there is no game #{game_id}", str(info.value)


async def act(svc: GameService, out: Outcome, guild: str | None, until: Callable[[Outcome], bool]) -> Outcome:
    """Whoever must act does (from ``guild``: None is each player's direct messages), until ``until`` holds."""
    for _ in range(400):
        if until(out) or out.game.status != "active":
            return out
        v = out.game
        out = await next_action(svc, v, at(guild, v.to_act or v.acting[0]))  # type: ignore[index]
    raise AssertionError("never got there")


def moving(out: Outcome) -> bool:
    return out.game.phase == "move"


def over(out: Outcome) -> bool:
    return out.game.status == "finished"


async def finished(svc: GameService, winner: Request, loser: Request, length: int = 1) -> int:
    """A match ``winner`` wins: ``loser`` forfeits it after a few turns (rated when ``length`` > 0)."""
    out = await svc.challenge(winner, loser, length=length)
    out = await svc.accept(out.game.id, loser)
    out = await act(svc, out, winner.guild_id, lambda o: o.game.version >= 12)  # some rolls of each
    out = await svc.forfeit(out.game.id, loser)
    assert out.game.status == "finished" and out.game.winner == 0
    return out.game.id


async def stored(store: Store, ids: list[int]) -> list[Any]:
    """What a refused request must not change: each game's row, log, draft, watchers and open proposals."""
    seen: list[Any] = []
    for gid in ids:
        row, logged = await store.load_game_and_actions(gid, scope=EVERYTHING)
        proposals = [await store.open_proposals(gid, side, len(logged)) for side in (0, 1)]
        seen.append(
            (row.status, row.version, row.players, row.draft, [a.action for a in logged], await store.watchers_of(gid))
        )
        seen.append(proposals)
    return seen


def test_another_servers_requests_and_strangers_direct_messages_find_no_game(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        svc.dice = None  # committed dice: record and verify work for whoever may see the game
        out = await act(
            svc, await svc.accept((await svc.challenge(ALICE_A, BOB_A, length=3)).game.id, BOB_A), A, moving
        )
        gid, mover = out.game.id, out.game.to_act
        assert mover is not None
        other = "bob" if mover == "alice" else "alice"
        play = out.game.plays[0]
        invited = (await svc.challenge(ALICE_A, BOB_A, length=1)).game.id
        open_challenge = (await svc.challenge(ALICE_A, None, length=1)).game.id
        team = await svc.challenge(ALICE_A, BOB_A, variant="doubles", length=1, teammate=DAN_A, opponent_teammate=FAY_A)
        await svc.accept(team.game.id, DAN_A)  # each player the challenge names accepts, the teammate too
        await svc.accept(team.game.id, FAY_A)
        team = await act(svc, await svc.accept(team.game.id, BOB_A), A, moving)
        team_id, acting = team.game.id, team.game.to_act
        assert acting is not None
        mate = next(p for side in team.game.sides if acting in side for p in side if p != acting)
        ids = [gid, invited, open_challenge, team_id]
        before = await stored(store, ids)

        # Who may see the games does: the same calls succeed from server A (so the refusals below are the scope's).
        assert (await svc.view(gid, at(A, "eve"))).id == gid
        assert (await svc.state(gid, ALICE_A)).dice is not None
        assert (await svc.record(gid, ALICE_A))["dice"]["seed"] is None
        await svc.verify(gid, ALICE_A)
        assert (await svc.board(gid, ALICE_A)).png.startswith(b"\x89PNG")
        assert "point match" in await svc.export(gid, ALICE_A)
        await svc.ids_at(gid, ALICE_A)
        assert await stored(store, ids) == before

        state = await svc.state(gid, ALICE_A)
        src, dst, _ = max(state.legal_plays(), key=lambda p: len(p.moves)).moves[0]

        def attempts(
            service: GameService, guild: str | None, stranger: str
        ) -> list[tuple[Callable[[], Awaitable[Any]], int]]:
            """Every kind of request, from ``guild``: the players themselves if it is another server (they play
            in server A, not there), ``stranger`` in a direct message (who plays in none of these games)."""

            def who(pid: str) -> Request:
                return at(guild, pid if guild is not None else stranger)

            s = service
            return [
                (lambda: s.view(gid, who(mover)), gid),
                (lambda: s.board(gid, who(mover)), gid),
                (lambda: s.export(gid, who(mover)), gid),
                (lambda: s.record(gid, who(mover)), gid),
                (lambda: s.verify(gid, who(mover)), gid),
                (lambda: s.ids_at(gid, who(mover)), gid),
                (lambda: s.state(gid, who(mover)), gid),
                (lambda: s.draft_options(gid, who(mover)), gid),
                (lambda: s.move(gid, who(mover), play), gid),
                (lambda: s.submove(gid, who(mover), src, dst), gid),
                (lambda: s.roll(gid, who(other)), gid),
                (lambda: s.roll(gid, who(mover)), gid),
                (lambda: s.double(gid, who(other)), gid),
                (lambda: s.resign(gid, who(mover), "single"), gid),
                (lambda: s.forfeit(gid, who(other)), gid),
                (lambda: s.hint(gid, who(mover)), gid),
                (lambda: s.watch(gid, who("eve")), gid),
                (lambda: s.accept(invited, who("bob")), invited),
                (lambda: s.decline(invited, who("bob")), invited),
                (lambda: s.accept(open_challenge, who("eve")), open_challenge),
                (lambda: s.propose(team_id, who(mate), team.game.plays[0]), team_id),
                (lambda: s.proposals(team_id, who(acting)), team_id),
                (lambda: s.move(team_id, who(acting), team.game.plays[0]), team_id),
                (lambda: s.choose_acting(team_id, who(mate), mate), team_id),
            ]

        for service in (svc, GameService(store)):  # the game cached, and read from the store
            for guild, stranger in ((B, "eve"), (None, "eve"), (None, "carol")):
                for attempt, target in attempts(service, guild, stranger):
                    await no_game(attempt(), target)
            await no_game(service.view(10**6, ALICE_A), 10**6)  # the same words as a game that does not exist
            # An admin of server B has no more power over server A's games than anyone there.
            await no_game(service.view(gid, ADMIN_B), gid)
            await no_game(service.forfeit(gid, at(B, mover, admin=True)), gid)
        assert await stored(store, ids) == before
        assert await svc.watchers(gid) == []

    run(db_url, body)


def test_in_a_direct_message_players_see_and_play_their_own_games(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        with pytest.raises(Refused, match="in a server's channel"):
            await svc.challenge(ALICE_DM, BOB_DM)
        challenge = await svc.challenge(ALICE_A, BOB_A, length=1)
        gid = challenge.game.id
        out = await svc.accept(gid, BOB_DM)  # invited: it is Bob's game, wherever he answers from
        assert out.game.status == "active" and out.game.guild_id == A
        out = await act(svc, out, None, moving)  # both play from their direct messages
        mover = at(None, out.game.to_act)  # type: ignore[arg-type]
        out = await svc.move(gid, mover, out.game.plays[0])
        assert out.events[0].kind == "move"
        for who in (ALICE_DM, BOB_DM):
            fresh = GameService(store)  # read from the store, scoped to the player's own games
            assert (await fresh.view(gid, who)).version == out.game.version
            assert (await fresh.state(gid, who)).game == 1
            assert (await fresh.board(gid, who)).png.startswith(b"\x89PNG")
            assert "point match" in await fresh.export(gid, who)
            assert len((await fresh.record(gid, who))["actions"]) == len(
                await store.load_actions(gid, scope=EVERYTHING)
            )
            await fresh.ids_at(gid, who)
            assert [v.id for v in await fresh.my_games(who)] == [gid]
        out = await act(svc, out, None, over)
        assert out.game.status == "finished"
        assert [line["game_id"] for line in await svc.history(ALICE_DM)] == [gid]
        assert [m["game_id"] for m in (await svc.profile(BOB_DM))["recent"]] == [gid]

    run(db_url, body)


def test_lists_records_and_statistics_of_one_server_never_show_anothers(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        won_in_a = await finished(svc, ALICE_A, BOB_A)
        won_in_b = await finished(svc, ALICE_B, CAROL_B)
        playing_a = (
            await act(svc, await svc.accept((await svc.challenge(ALICE_A, BOB_A)).game.id, BOB_A), A, moving)
        ).game.id
        asked_b = (await svc.challenge(CAROL_B, ALICE_B, length=1)).game.id

        assert {v.id for v in await svc.my_games(ALICE_A)} == {playing_a}
        assert {v.id for v in await svc.my_games(ALICE_B)} == {asked_b}
        assert {v.id for v in await svc.my_games(ALICE_DM)} == {playing_a, asked_b}  # everywhere: her own games
        assert await svc.my_games(BOB_B) == []

        assert [h["game_id"] for h in await svc.history(ALICE_B)] == [won_in_b]
        assert [h["game_id"] for h in await svc.history(ALICE_A)] == [won_in_a]
        assert await svc.history(ALICE_B, player_id="bob") == []
        assert {h["game_id"] for h in await svc.history(ALICE_DM)} == {won_in_a, won_in_b}

        profile = await svc.profile(ALICE_B)
        assert [m["game_id"] for m in profile["recent"]] == [won_in_b]
        assert profile["ratings"]["backgammon"]["wins"] == 1 and profile["ratings"]["backgammon"]["losses"] == 0
        bob = await svc.profile(ALICE_B, "bob")
        assert bob["ratings"] == {} and bob["recent"] == []
        assert (await svc.profile(ALICE_A, "bob"))["ratings"]["backgammon"]["losses"] == 1
        with pytest.raises(Refused, match="only your own"):
            await svc.profile(ALICE_DM, "bob")

        board_b = await svc.leaderboard(ALICE_B, "backgammon")
        assert {r["player"] for r in board_b} == {"alice", "carol"}
        assert {r["player"] for r in await svc.leaderboard(CAROL_B, "backgammon")} == {"alice", "carol"}
        assert {r["player"] for r in await svc.leaderboard(ALICE_A, "backgammon")} == {"alice", "bob"}
        assert [r["wins"] for r in board_b if r["player"] == "alice"] == [1]
        with pytest.raises(Refused, match="belong to a server"):
            await svc.leaderboard(ALICE_DM, "backgammon")

        async def rolls(pid: str, ids: list[int]) -> list[tuple[int, int]]:
            found = []
            for gid in ids:
                logged = await store.load_actions(gid, scope=EVERYTHING)
                found += player_rolls([action_from_data(a.action) for a in logged], pid)
            return found

        in_a, in_b = await rolls("alice", [won_in_a, playing_a]), await rolls("alice", [won_in_b])
        assert in_a and in_b  # both servers have rolls of Alice's to count
        assert await svc.dice_stats(ALICE_B) == dice_stats(in_b)
        assert await svc.dice_stats(ALICE_A) == dice_stats(in_a)
        assert await svc.dice_stats(ALICE_DM) == dice_stats(in_a + in_b)
        assert (await svc.dice_stats(ALICE_B, "bob")).rolls == 0
        assert await svc.dice_stats(CAROL_B, "alice") == dice_stats(in_b)
        with pytest.raises(Refused, match="only your own"):
            await svc.dice_stats(ALICE_DM, "bob")

    run(db_url, body)


def test_an_admins_forget_erases_a_player_in_that_server_only(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        in_a = await finished(svc, ALICE_A, BOB_A)
        in_b = await finished(svc, BOB_B, CAROL_B)
        watched_a = (await svc.accept((await svc.challenge(ALICE_A, DAN_A)).game.id, DAN_A)).game.id
        watched_b = (await svc.accept((await svc.challenge(CAROL_B, DAN_B)).game.id, DAN_B)).game.id
        await svc.watch(watched_a, BOB_A)
        await svc.watch(watched_b, BOB_B)
        await svc.vacation(BOB_A, 1)
        await svc.vacation(BOB_B, 1)
        await svc.player_settings(BOB_B, home="left")

        with pytest.raises(Refused, match="only a server admin"):
            await svc.forget(CAROL_B, "bob")
        with pytest.raises(Refused, match="in the server"):
            await svc.forget(at(None, "root", admin=True), "bob")
        assert await svc.forget(ADMIN_B, "bob") >= 1

        # Server B: Bob's name is gone from its match (the match stays, under a neutral name), with his ratings,
        # vacations and watching there.
        assert (await svc.history(CAROL_B))[0]["sides"] == [FORGOTTEN, "Carol"]
        assert "Bob" not in json.dumps(await svc.record(in_b, CAROL_B))
        mat = await svc.export(in_b, CAROL_B)
        assert "Bob" not in mat and f'; [Player 1 "{FORGOTTEN}"]' in mat
        assert "Bob" not in (await svc.view(in_b, CAROL_B)).names.values()
        assert {r["player"] for r in await svc.leaderboard(CAROL_B, "backgammon")} == {"carol"}
        assert await store.vacations_of("bob", B) == []
        assert await svc.watchers(watched_b) == []

        # Server A: untouched.
        assert (await svc.history(ALICE_A))[0]["sides"] == ["Alice", "Bob"]
        assert json.dumps(await svc.record(in_a, ALICE_A)).count("Bob") >= 1
        assert '; [Player 2 "Bob"]' in await svc.export(in_a, ALICE_A)
        assert (await svc.view(in_a, ALICE_A)).names["bob"] == "Bob"
        assert {r["player"] for r in await svc.leaderboard(ALICE_A, "backgammon")} == {"alice", "bob"}
        assert (await svc.profile(ALICE_A, "bob"))["ratings"]["backgammon"]["losses"] == 1
        assert len(await store.vacations_of("bob", A)) == 1
        assert await svc.watchers(watched_a) == ["bob"]
        # And Bob's own settings and name, which are his in every server.
        assert (await svc.settings_of("bob"))["home"] == "left"
        assert await store.player_name("bob") == "Bob"

    run(db_url, body)


def test_forget_me_erases_the_players_name_everywhere(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        in_a = await finished(svc, ALICE_A, BOB_A)
        in_b = await finished(svc, BOB_B, CAROL_B, length=3)
        playing = (
            await act(svc, await svc.accept((await svc.challenge(BOB_A, ALICE_A)).game.id, ALICE_A), A, moving)
        ).game.id
        await svc.player_settings(BOB_A, theme="high-contrast")
        await svc.vacation(BOB_A, 1)
        assert "Bob" in await svc.export(in_a, ALICE_A)  # before: the name is written in the match

        assert await svc.forget_me(BOB_DM) >= 3

        for gid, who in ((in_a, ALICE_A), (in_b, CAROL_B), (playing, ALICE_A)):
            mat = await svc.export(gid, who)
            assert "Bob" not in mat and f'"{FORGOTTEN}"]' in mat, mat[:300]
            record = await svc.record(gid, who)
            assert "Bob" not in json.dumps(record) and FORGOTTEN in record["setup"]["names"]
            assert (await svc.view(gid, who)).names["bob"] == FORGOTTEN
        for who in (ALICE_A, CAROL_B, ALICE_DM, CAROL_DM):
            lines = await svc.history(who)
            assert lines and "Bob" not in json.dumps(lines)
        assert (await svc.history(ALICE_A))[0]["sides"] == ["Alice", FORGOTTEN]
        # The opponents keep their results; Bob's settings, ratings and vacations are gone.
        alice = await svc.profile(ALICE_A)
        assert alice["recent"][0]["won"] is True and alice["ratings"]["backgammon"]["wins"] == 1
        assert {r["player"] for r in await svc.leaderboard(ALICE_A, "backgammon")} == {"alice"}
        assert {r["player"] for r in await svc.leaderboard(CAROL_B, "backgammon")} == {"carol"}
        assert await svc.settings_of("bob") == PLAYER_DEFAULTS
        assert await store.player_name("bob") == FORGOTTEN
        assert await store.vacations_of("bob", A) == []
        # A fresh service (no cache) reads the same.
        assert "Bob" not in await GameService(store).export(in_b, CAROL_B)

    run(db_url, body)


class FakeTime:
    def __init__(self) -> None:
        self.now = 2_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_vacation_moves_deadlines_only_in_its_own_server(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        games = {}
        for me, them in ((ALICE_A, BOB_A), (ALICE_B, CAROL_B)):
            out = await svc.challenge(me, them, length=3, time_control="correspondence")
            out = await svc.accept(out.game.id, them)
            out = await act(svc, out, me.guild_id, lambda o: o.game.to_act == "alice")  # Alice's clock runs
            games[me.guild_id] = out.game.id

        async def due() -> dict[str | None, float]:
            found = {}
            for guild, gid in games.items():
                [timeout] = [t.due_at for t in await store.pending_timers(gid) if t.kind == "timeout"]
                found[guild] = timeout
            return found

        async def alice_acts(guild: str) -> Outcome:
            view = await svc.view(games[guild], at(guild, "alice"))
            assert view.to_act == "alice"
            if view.phase == "move":
                return await svc.move(view.id, at(guild, "alice"), view.plays[0])
            return await svc.roll(view.id, at(guild, "alice"))

        start = await due()
        await svc.vacation(ALICE_A, 5)
        after = await due()
        assert after[A] - start[A] == pytest.approx(5 * 86400)
        assert after[B] == start[B]  # server B's clock runs on
        # Past server B's deadline, within server A's moved one: only in B has Alice's flag fallen.
        clock.now = max(start.values()) + 60
        assert clock.now < after[A]
        late = await alice_acts(B)
        assert "timeout" in [e.kind for e in late.events] and late.game.status == "finished"
        on_time = await alice_acts(A)
        assert "timeout" not in [e.kind for e in on_time.events] and on_time.game.status == "active"

        # Each server's allowance is its own (21 days a year): the 5 days taken in A leave B's whole.
        await svc.vacation(ALICE_B, 21)
        with pytest.raises(Refused, match="more vacation than this server allows"):
            await svc.vacation(ALICE_B, 1)
        await svc.vacation(ALICE_A, 16)
        with pytest.raises(Refused, match="more vacation than this server allows"):
            await svc.vacation(ALICE_A, 1)
        with pytest.raises(Refused, match="in the server"):
            await svc.vacation(ALICE_DM, 1)

    clock = FakeTime()
    run(db_url, body, clock=clock)


def test_only_a_servers_admins_change_its_settings(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        with pytest.raises(Refused, match="only a server admin"):
            await svc.guild_settings(ALICE_A, default_length=7)
        assert (await svc.guild_settings(ALICE_A))["default_length"] == 5  # reading is for everyone
        with pytest.raises(Refused, match="in the server"):
            await svc.guild_settings(at(None, "root", admin=True), default_length=7)
        assert (await svc.guild_settings(ADMIN_B, default_length=9))["default_length"] == 9
        assert (await svc.server_settings(B))["default_length"] == 9
        assert (await svc.server_settings(A))["default_length"] == 5  # an admin of B is nobody in A
        assert (await svc.guild_settings(ADMIN_A, default_length=3))["default_length"] == 3
        assert (await svc.server_settings(B))["default_length"] == 9
        assert (await svc.challenge(ALICE_B, CAROL_B)).game.length == 9
        assert (await svc.challenge(ALICE_A, BOB_A)).game.length == 3

    run(db_url, body)


def pixels(rendered: Any) -> bytes:
    """The decoded pixels of a board image (what players see, whatever the PNG encoder's choices)."""
    with Image.open(io.BytesIO(rendered.png)) as im:
        return im.convert("RGB").tobytes()


def test_a_players_board_theme_is_checked_and_drawn(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        gid = (
            await act(svc, await svc.accept((await svc.challenge(ALICE_A, BOB_A)).game.id, BOB_A), A, moving)
        ).game.id
        classic = pixels(await svc.board(gid, ALICE_A, theme="classic"))
        contrast = pixels(await svc.board(gid, ALICE_A, theme="high-contrast"))
        assert classic != contrast
        assert pixels(await svc.board(gid, ALICE_A)) == classic  # the default theme

        with pytest.raises(Refused, match="there is no board theme 'nope'"):
            await svc.player_settings(ALICE_A, theme="nope")
        assert (await svc.settings_of("alice"))["theme"] == "default"
        assert (await svc.player_settings(ALICE_A, theme="high-contrast"))["theme"] == "high-contrast"
        assert (await svc.settings_of("alice"))["theme"] == "high-contrast"

        assert pixels(await svc.board(gid, ALICE_A)) == contrast  # her setting, wherever she looks from
        assert pixels(await svc.board(gid, ALICE_DM)) == contrast
        assert pixels(await svc.board(gid, SYSTEM, viewer="alice")) == contrast
        assert pixels(await svc.board(gid, ALICE_A, theme="classic")) == classic  # a theme given wins
        assert pixels(await svc.board(gid, BOB_A)) == pixels(await svc.board(gid, BOB_A, theme="classic"))  # Bob's own

    run(db_url, body)


def test_a_plain_player_ref_is_not_a_request(db_url: tuple[str, str | None]) -> None:
    async def body(store: Store, svc: GameService) -> None:
        gid = (await svc.accept((await svc.challenge(ALICE_A, BOB_A)).game.id, BOB_A)).game.id
        before = await stored(store, [gid])
        for fresh in (svc, GameService(store)):
            with pytest.raises(TypeError, match="needs a Request"):
                await fresh.roll(gid, PlayerRef("alice", "Alice"))  # type: ignore[arg-type]
            with pytest.raises(TypeError, match="needs a Request"):
                await fresh.view(gid, PlayerRef("alice", "Alice"))  # type: ignore[arg-type]
        assert await stored(store, [gid]) == before

    run(db_url, body)
