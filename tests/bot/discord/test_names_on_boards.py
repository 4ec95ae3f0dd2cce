"""Players' names, never their ids, on every board, message, file name and alt text; and the end of every game drawn.

Matches are played through simcord and the real discord.py: a standard 3-point match between a member with a server
nickname and one with only a global display name (game 1 ends with a double passed while the match goes on, then a
player changes nickname), a Doubles match, and a match against the bot. Everything the bot sent to Discord (every
message posted or edited, thread names, attachments' file names and descriptions, every answer to an interaction,
ephemeral ones included) is searched for the players' ids; the boards, whose names are drawn into PNGs, are checked
through the snapshot and alt text each was rendered from.

Set ``GAMMONBOT_BOARDS_DIR`` to a directory to keep every board these tests draw, to look at them.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import render.board
from bot.service import SYSTEM, Request
from engine.snapshot import BoardSnapshot
from render.board import RenderedBoard
from tests.bot.discord.helpers import Driver, World, live_message, reply, world

pytestmark = pytest.mark.asyncio

#: Mentions (shown by Discord as names) and links carry ids by design; everything else must not.
MENTION_OR_LINK = re.compile(r"<[@#][!&]?\d+>|https?://\S+")


@contextmanager
def boards_drawn() -> Iterator[list[tuple[BoardSnapshot, RenderedBoard]]]:
    """Every board rendered meanwhile (in worker threads), with the snapshot it was drawn from."""
    drawn: list[tuple[BoardSnapshot, RenderedBoard]] = []
    lock = threading.Lock()
    original = render.board.render_board
    keep = os.environ.get("GAMMONBOT_BOARDS_DIR")

    def recording(snapshot: BoardSnapshot, *args: Any, **kwargs: Any) -> RenderedBoard:
        board = original(snapshot, *args, **kwargs)
        with lock:
            drawn.append((snapshot, board))
            if keep:
                Path(keep).mkdir(parents=True, exist_ok=True)
                name = f"{snapshot.variant_name}-{id(drawn) % 10000:04d}-{len(drawn):03d}.png"
                (Path(keep) / name).write_bytes(board.png)
        return board

    render.board.render_board = recording  # type: ignore[assignment]
    try:
        yield drawn
    finally:
        render.board.render_board = original  # type: ignore[assignment]


def _strings(value: Any, key: str = "") -> Iterator[str]:
    """Every string in a request body a user may see (not custom ids, nor who a message may ping)."""
    if key in ("custom_id", "allowed_mentions", "nonce"):
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, str(k))
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v, key)


def shown_to_users(w: World) -> list[str]:
    """Everything the bot sent that a user may read: request bodies (messages posted and edited, thread names,
    attachments' names and descriptions), the messages as they stand now, and every interaction's answers."""
    out: list[str] = []
    for call in w.env.http_requests:
        out.extend(_strings(call.json))
    channels = [w.channel, *w.channel.threads]
    out.extend(c.name or "" for c in channels)
    messages: list[Any] = [m for c in channels for m in c.history()]
    for r in w.results:
        messages.extend(m for m in (r.response, *r.followups) if m is not None)
    for m in messages:
        out.append(m.content or "")
        for a in m.attachments:
            out.extend((a.filename, a.description or ""))
        for e in m.embeds:
            out.extend(_strings(e.to_dict()))
    return [MENTION_OR_LINK.sub("", text) for text in out]


def assert_no_ids(w: World, ids: list[str]) -> None:
    shown = shown_to_users(w)
    assert any("Position ID" in text for text in shown), "no board's alt text was seen"
    leaks = [text for text in shown if any(pid in text for pid in ids)]
    assert not leaks, f"ids shown to users: {leaks[:5]}"


def assert_boards_named(drawn: list[tuple[BoardSnapshot, RenderedBoard]], ids: list[str], names: set[str]) -> None:
    """Every board drawn shows only these names (players, teams), and no id in its alt text."""
    assert drawn
    for snapshot, board in drawn:
        shown = {*snapshot.names, *(snapshot.team_names or ())}
        assert shown <= names, f"{shown - names} drawn on a board (names: {names})"
        assert not any(pid in board.alt_text for pid in ids), board.alt_text


async def resign(d: Driver, level: str) -> None:
    """The player to act offers to resign at ``level``; the other side accepts unless it was automatic."""
    who = await d.actor()
    r = await d.w.do(who.click(live_message(await d.thread()), label="Resign…"))
    await d.w.do(who.click(reply(r), label=level))
    if (await d.view()).phase == "resigned":
        await d.click("Accept resignation")


async def test_a_match_shows_names_and_draws_the_end_of_every_game(tmp_path: Path) -> None:
    with boards_drawn() as drawn:
        async with world(tmp_path) as w:
            ann = w.guild.add_member(w.env.create_user("ann_1990", global_name="Ann Global"), nick="Annie")
            ben = w.guild.add_member(w.env.create_user("ben_42", global_name="Benjamin"))
            w.people.update(ann=ann, ben=ben)
            ids = [str(ann.id), str(ben.id)]
            r = await w.do(ann.slash(w.channel, "bg play", opponent=ben, variant="backgammon", length=3))
            gid = int(re.search(r"game #(\d+)", reply(r).content)[1])  # type: ignore[index]
            await w.do(ben.click(reply(r), label="Accept"))
            d = Driver(w, gid)
            thread = await d.thread()
            assert thread.name == f"#{gid} Backgammon: Annie vs Benjamin"

            # Game 1: a double passed. The match goes on, and the final position is posted with its result.
            await d.until("roll", can_double=True)
            doubler = (await d.view()).to_act
            await d.click("Double")
            await d.click("Pass")
            assert (await d.view()).game == 2
            ends = [m for m in thread.history() if m.attachments and m.attachments[0].filename.endswith("-1-final.png")]
            assert len(ends) == 1, [m.content for m in thread.history()]
            winner = "Annie" if doubler == str(ann.id) else "Benjamin"
            loser = "Benjamin" if winner == "Annie" else "Annie"
            alt = ends[0].attachments[0].description or ""
            assert (
                alt.startswith("Backgammon · Position ID")
                and f"game 1 over: {winner} wins 1 point: {loser} passed" in alt
            )
            (end,) = [s for s, _ in drawn if s.result is not None]
            assert end.result is not None and end.result.game == 1 and end.result.reason == "pass"
            assert end.names[end.result.winner] == winner and not end.result.match_over
            assert sum(end.score) == 1 and end.dice is None and end.on_roll is None
            # The next turn comes after it, in a message of its own.
            assert thread.history()[-1].components and thread.history()[-1].id > ends[0].id

            # Ann changes her nickname: from her next action on, she is shown by her new name.
            w.env.backend.edit_member(w.guild.id, ann.id, {"nick": "Queen Ann"})
            before = len(drawn)
            assert (await d.view()).phase == "opening"
            await w.do(ann.click(live_message(thread), label="Roll"))
            assert (await d.view()).names[str(ann.id)] == "Queen Ann"
            assert any("Queen Ann" in s.names for s, _ in drawn[before:])

            # A play entered checker by checker is drawn as it is entered (what a turn message shows after each one).
            v = await d.view()
            assert v.phase == "move" and v.to_act is not None
            mover = Request(v.to_act, v.name(v.to_act), str(w.guild.id), "discord")
            (src, dst), *_ = await w.bot.service.draft_options(gid, SYSTEM)
            await w.bot.service.submove(gid, mover, src, dst)
            board = await w.bot.service.board(gid, SYSTEM, viewer=v.to_act)
            moving = drawn[-1][0]
            assert moving.draft and moving.last_play[0][:2] == (src, dst) and moving.dice_used
            assert f"{v.name(v.to_act)} is moving" in board.alt_text

            # Game 2 (and the match): the player moving resigns a backgammon (3 points win the match).
            await resign(d, "Resign a backgammon")
            v = await d.view()
            assert v.status == "finished"
            final = [s for s, _ in drawn if s.result is not None and s.result.match_over]
            assert final and final[-1].result is not None and final[-1].result.reason == "resign"
            files = {a.filename: a for m in thread.history()[-2:] for a in m.attachments}
            assert "Match over" in (files[f"game{gid}-final.png"].description or "")

            assert_no_ids(w, ids)
            assert_boards_named(drawn, ids, {"Annie", "Queen Ann", "Benjamin"})


async def test_doubles_boards_show_team_names_and_the_acting_member(tmp_path: Path) -> None:
    with boards_drawn() as drawn:
        async with world(tmp_path) as w:
            alice, bob, carol, dave = (w.people[n] for n in ("alice", "bob", "carol", "dave"))
            r = await w.do(
                alice.slash(
                    w.channel, "bg play", opponent=bob, variant="doubles", length=1, teammate=carol, partner=dave
                )
            )
            gid = int(re.search(r"game #(\d+)", reply(r).content)[1])  # type: ignore[index]
            for member in (carol, dave, bob):  # each player the challenge names accepts
                await w.do(member.click(reply(r), label="Accept"))
            d = Driver(w, gid)
            while (await d.view()).phase == "opening":
                await d.roll()
            await d.until("roll")
            await resign(d, "Resign a single game")
            assert (await d.view()).status == "finished"
            ids = [str(p.id) for p in (alice, bob, carol, dave)]
            assert_no_ids(w, ids)
            assert_boards_named(drawn, ids, {"alice", "bob", "carol", "dave", "alice & carol", "bob & dave"})
            final = drawn[-1][0]
            assert final.team_names is not None and set(final.team_names) == {"alice & carol", "bob & dave"}
            assert final.result is not None and final.result.match_over
            assert "alice & carol" in drawn[-1][1].alt_text and "bob & dave" in drawn[-1][1].alt_text


async def test_the_bot_opponent_is_shown_by_name_and_strength(tmp_path: Path) -> None:
    with boards_drawn() as drawn:
        async with world(tmp_path) as w:
            alice = w.people["alice"]
            r = await w.do(alice.slash(w.channel, "bg play", variant="backgammon", length=1, bot="casual"))
            gid = int(re.search(r"game #(\d+)", reply(r).content)[1])  # type: ignore[index]
            d = Driver(w, gid)
            for _ in range(40):
                v = await d.view()
                if v.to_act == str(alice.id) and v.phase == "roll":
                    break
                await d.step()
            await resign(d, "Resign a backgammon")
            view = await w.view(gid)
            assert view.status == "finished"
            bot_id = next(p for side in view.sides for p in side if p.startswith("bot:"))
            assert view.name(bot_id) == "Gammonbot (casual)"
            assert_no_ids(w, [str(alice.id), bot_id])
            assert_boards_named(drawn, [str(alice.id), bot_id], {"alice", "Gammonbot (casual)"})
            assert (await w.bot.service.state(gid, SYSTEM)).over


async def test_mentions_and_links_are_not_ids_shown() -> None:
    text = "<@123456789012345678> see https://discord.com/channels/1/2/3 in <#98765432109876543>"
    assert MENTION_OR_LINK.sub("", text) == " see  in "
