"""Games of a rule set whose plugin is disabled (``GAMMONBOT_PLUGINS``) or uninstalled: kept, never lost, listed as
"rule set nackgammon is not installed", refused in words when acted on, their timers kept; once the plugin is back
they play on. On SQLite and PostgreSQL; the bot is "restarted" (a new service on the same database) each time the
plugins change, as an admin would.

The plugin is the outside test plugin, Nackgammon (``tests/plugins/nackgammon``, installed by the test command).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from bot.scheduler import Scheduler
from bot.service import GameService, Outcome, Refused, Request, SeededDice
from bot.service.types import DAY
from bot.storage import Store
from engine.plugins import DEFAULT_PLUGINS, is_installed, reset_registry

GUILD = "g"
ANN, BEN, CAT = (Request(p, p.title(), GUILD) for p in ("ann", "ben", "cat"))
PEOPLE = {r.id: r for r in (ANN, BEN, CAT)}
MISSING = "rule set nackgammon is not installed"


class FakeTime:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], None]]:
    """``plugins(False)`` leaves the Nackgammon plugin out (every built-in plugin stays), ``plugins(True)`` brings
    it back; the process registry is built again either way, and once more after the test."""

    def nackgammon(on: bool) -> None:
        if on:
            monkeypatch.delenv("GAMMONBOT_PLUGINS", raising=False)
        else:
            monkeypatch.setenv("GAMMONBOT_PLUGINS", ",".join(name for name, _ in DEFAULT_PLUGINS))
        reset_registry()
        assert is_installed("nackgammon") is on

    nackgammon(True)
    yield nackgammon
    reset_registry()


def run(db_url: tuple[str, str | None], body: Callable[[Store, FakeTime], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        url, schema = db_url
        t = FakeTime()
        store = await Store.open(url, schema=schema, clock=t)
        try:
            return await body(store, t)
        finally:
            await store.close()

    return asyncio.run(go())


async def started(svc: GameService, a: Request, b: Request, **terms: Any) -> Outcome:
    out = await svc.accept((await svc.challenge(a, b, **terms)).game.id, b)
    while out.game.phase == "opening":
        out = await svc.roll(out.game.id, a)
    return out


def test_games_of_an_uninstalled_rule_set_are_kept_listed_refused_in_words_and_play_on_once_it_is_back(
    db_url: tuple[str, str | None], plugins: Callable[[bool], None]
) -> None:
    async def body(store: Store, t: FakeTime) -> None:
        svc = GameService(store, dice=SeededDice(3), clock=t)
        live = (await started(svc, ANN, BEN, variant="nackgammon", length=3)).game
        timed = (await started(svc, ANN, CAT, variant="nack", length=1, time_control="correspondence")).game
        done = (await started(svc, BEN, ANN, variant="nackgammon", length=1)).game.id
        await svc.forfeit(done, ANN)  # a finished, rated match: history, profile and the leaderboard
        pending = (await svc.challenge(ANN, CAT, variant="nackgammon")).game.id
        other = (await started(svc, ANN, BEN, variant="backgammon", length=1)).game.id
        await svc.guild_settings(Request("ann", "Ann", GUILD, "console", True), default_variant="nackgammon")

        plugins(False)
        svc = GameService(store, dice=SeededDice(3), clock=t)  # the bot restarted without the plugin
        listed = {v.id: v for v in await svc.my_games(ANN)}
        assert set(listed) == {live.id, timed.id, pending, other}, "no game is lost"
        shown = listed[live.id]
        assert shown.unavailable == MISSING and shown.status == "active" and shown.variant == "nackgammon"
        assert shown.sides == (("ann",), ("ben",)) and shown.names == {"ann": "Ann", "ben": "Ben"}
        assert shown.length == 3 and shown.score == (0, 0) and shown.to_act is None and shown.plays == ()
        assert listed[pending].unavailable == MISSING and listed[pending].status == "challenge"
        assert listed[other].unavailable is None and listed[other].display_name == "Backgammon"
        refused = f"game #{live.id} is a game of nackgammon, which is not installed on this bot"
        mover = PEOPLE[live.to_act or ""]
        for call in (
            svc.view(live.id, ANN),
            svc.state(live.id, ANN),
            svc.move(live.id, mover, live.plays[0]),
            svc.board(live.id, ANN),
            svc.export(live.id, ANN),
            svc.ids_at(live.id, ANN),
            svc.match_card(live.id, ANN),
            svc.replay(live.id, ANN),
            svc.match_terms(live.id, ANN),
            svc.forfeit(live.id, ANN),
        ):
            with pytest.raises(Refused, match=f"^{refused}$"):
                await call
        for call in (svc.accept(pending, CAT), svc.match_terms(pending, ANN)):
            with pytest.raises(Refused, match=f"game #{pending} is a game of nackgammon, which is not installed"):
                await call
        (line,) = [x for x in await svc.history(ANN) if x["game_id"] == done]
        assert line["display_name"] == "Nackgammon" and line["unavailable"] == MISSING and line["winner"] == "Ben"
        profile = await svc.profile(ANN)
        assert profile["ratings"]["nackgammon"]["unavailable"] == MISSING and profile["ratings"]["nackgammon"]["losses"]
        assert [r["player"] for r in await svc.leaderboard(ANN, "nackgammon")] == ["ben", "ann"]
        with pytest.raises(Refused, match="no rule set called 'nowhere'"):
            await svc.leaderboard(ANN, "nowhere")
        # The timed game's flag falls meanwhile: its timer waits instead of being taken as done.
        t.now += 30 * DAY
        await Scheduler(store, svc, clock=t).tick()
        assert [r.kind for r in await store.pending_timers(timed.id)]
        assert (await svc.view(other, ANN)).status == "active"  # the rest of the bot works on
        with pytest.raises(Refused, match="this server's default rule set, nackgammon, is not installed on this bot"):
            await svc.challenge(BEN, CAT)
        assert (await svc.challenge(BEN, CAT, variant="bg")).game.status == "challenge"
        assert await svc.option_suggestions(BEN, "jaco")

        plugins(True)
        svc = GameService(store, dice=SeededDice(3), clock=t)  # and restarted with it again
        view = await svc.view(live.id, ANN)
        assert view.unavailable is None and view.display_name == "Nackgammon" and view.plays == live.plays
        out = await svc.move(live.id, mover, live.plays[0])
        assert out.game.to_act != mover.id and out.game.status == "active"  # the game plays on
        t.now += 3600  # past the lease of the timer the first try claimed
        fired = await Scheduler(store, svc, clock=t).tick()
        assert "timeout" in [e.kind for o in fired for e in o.events if o.game.id == timed.id]
        assert (await svc.view(timed.id, ANN)).status == "finished"
        assert all(v.unavailable is None for v in await svc.my_games(ANN))
        assert (await svc.view(pending, ANN)).status == "expired"  # unanswered for 30 days, as any challenge

    run(db_url, body)
