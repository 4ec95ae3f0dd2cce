"""A player with very many games and challenges: ``/bg games`` shows them a page at a time, and suggestions, ``/bg
move`` and ``/bg board`` look at a bounded number of them (they never load every game of the player)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.config import LimitSettings
from bot.discord.context import MAX_CHOICES, PAGE_SIZE, VIEW_BUDGET
from bot.service import GameService, PlayerRef, Request
from tests.bot.discord.helpers import World, components, labels, late_answers, reply, said, world

pytestmark = pytest.mark.asyncio

GAMES = 60


def listing(result: Any) -> list[str]:
    """The lines of a ``/bg games`` page (in its embed)."""
    (embed,) = reply(result).embeds
    return (embed.description or "").split("\n")


def numbers(lines: list[str]) -> list[int]:
    return [int(re.match(r"#(\d+) ", line)[1]) for line in lines]  # type: ignore[index]


@asynccontextmanager
async def counting_views(service: GameService) -> AsyncIterator[list[int]]:
    """Count the games the service loads for views while the block runs (and forbid listing all of a player's, as
    views or as rows: the database reads at most a page, or a suggestion's budget, of their list)."""
    loaded: list[int] = []
    view = service.view
    listed = service.store.games_of

    async def counted(game_id: int, who: Any) -> Any:
        loaded.append(game_id)
        return await view(game_id, who)

    async def bounded(*args: Any, **kwargs: Any) -> Any:
        rows = await listed(*args, **kwargs)
        assert len(rows) <= max(PAGE_SIZE, VIEW_BUDGET), f"{len(rows)} rows of the player's list were read"
        return rows

    async def everything(who: Any) -> Any:
        raise AssertionError("my_games loads every game of the player")

    service.view = counted  # type: ignore[method-assign]
    service.my_games = everything  # type: ignore[method-assign]
    service.store.games_of = bounded  # type: ignore[method-assign]
    try:
        yield loaded
    finally:
        del service.view
        del service.my_games
        del service.store.games_of


async def sixty_games(w: World) -> tuple[list[int], list[int], list[int]]:
    """60 games of alice's, made through the service: challenges to her from four players (every other one accepted),
    and, every tenth, a challenge of hers. Returns (running games, challenges to her, hers), oldest first."""
    svc = w.bot.service
    svc.limits = LimitSettings(max_open_challenges_per_player=GAMES, max_open_challenges_per_server=GAMES)
    guild = str(w.guild.id)
    alice = w.people["alice"]
    me = Request(str(alice.id), "alice", guild, "discord")
    others = [w.people[n] for n in ("bob", "carol", "dave", "eve")]
    here = {"variant": "sprintgammon", "length": 1, "channel_id": str(w.channel.id)}
    running: list[int] = []
    incoming: list[int] = []
    outgoing: list[int] = []
    for k in range(GAMES):
        who = others[k % len(others)]
        them = Request(str(who.id), who.name, guild, "discord")
        if k % 10 == 9:
            outgoing.append((await svc.challenge(me, PlayerRef(them.id, them.name), **here)).game.id)
            continue
        out = await svc.challenge(them, PlayerRef(me.id, me.name), **here)
        if k % 2:
            incoming.append(out.game.id)
        else:
            await svc.accept(out.game.id, me, entropy=f"accept {k}")
            running.append(out.game.id)
    return running, incoming, outgoing


async def test_games_are_listed_a_page_at_a_time_and_lookups_stay_bounded(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice = w.people["alice"]
        running, incoming, outgoing = await sixty_games(w)
        svc = w.bot.service
        pages = -(-GAMES // PAGE_SIZE)

        # /bg games: the first page (all waiting for alice: challenges to her, opening rolls), and the way on.
        async with counting_views(svc) as loaded:
            r = await w.do(alice.slash(w.channel, "bg games"))
        assert len(loaded) <= PAGE_SIZE, loaded  # the games of this page only
        assert r.ephemeral and f"{GAMES} in all" in said(r) and f"Page 1 of {pages}" in said(r), said(r)
        first = listing(r)
        assert len(first) == PAGE_SIZE and all("**your turn**" in line for line in first), first
        assert labels(reply(r)) == ["Previous", "Next"]
        previous = next(c for c in components(reply(r)) if c.get("label") == "Previous")
        assert previous.get("disabled")

        # Next, and Next again: the same message shows the following pages; every game appears once.
        seen = numbers(first)
        for page in range(2, pages + 1):
            async with counting_views(svc) as loaded:
                await w.do(alice.click(reply(r), label="Next"))
            assert len(loaded) <= PAGE_SIZE, loaded
            assert f"Page {page} of {pages}" in reply(r).content, reply(r).content
            seen += numbers(listing(r))
        assert sorted(seen) == sorted(running + incoming + outgoing)
        assert sorted(seen[-len(outgoing) :]) == outgoing  # alice's own challenges wait for others: listed last
        nxt = next(c for c in components(reply(r)) if c.get("label") == "Next")
        assert nxt.get("disabled")
        await w.do(alice.click(reply(r), label="Previous"))
        assert f"Page {pages - 1} of {pages}" in reply(r).content

        # The page option: any page, and past the last one, the last.
        r = await w.do(alice.slash(w.channel, "bg games", page=2))
        assert f"Page 2 of {pages}" in said(r) and numbers(listing(r)) == seen[PAGE_SIZE : 2 * PAGE_SIZE]
        r = await w.do(alice.slash(w.channel, "bg games", page=99))
        assert f"Page {pages} of {pages}" in said(r) and len(listing(r)) == GAMES - (pages - 1) * PAGE_SIZE

        # Suggestions at each keystroke: at most 25, from a bounded number of games; digits find an old game.
        async def suggest(typed: str) -> list[int]:
            async with counting_views(svc) as loaded:
                choices = await alice.autocomplete(w.channel, "bg board", "game", typed)
            assert len(loaded) <= VIEW_BUDGET, (typed, len(loaded))
            assert len(choices) <= MAX_CHOICES
            return [int(c["value"]) for c in choices]

        assert len(await suggest("")) == MAX_CHOICES
        oldest = min(running)
        assert oldest in await suggest(str(oldest))
        assert await suggest("no such name") == []

        # /bg move and /bg board without a game number: alice has 30 running, none waiting for her alone.
        bounded: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("move", lambda: alice.slash(w.channel, "bg move", play="24/23")),
            ("board", lambda: alice.slash(w.channel, "bg board")),
        ]
        for _name, command in bounded:
            async with counting_views(svc) as loaded:
                r = await w.do(command())
            assert len(loaded) <= VIEW_BUDGET, len(loaded)
            assert r.ephemeral and f"You have {len(running)} games running" in said(r), said(r)
        assert not late_answers(w)
