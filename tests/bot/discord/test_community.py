"""The community commands under ``/bg`` (leaderboard, profile, history, ids, watch, vacation, clocks, forget),
through simcord and the real discord.py command tree, after matches played in Discord.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.discord.cogs.stats import FORMER_PLAYER, leaderboard_table, result_line, streak_text
from bot.service import SYSTEM, Request
from engine.matchid import decode_match_id
from engine.plugins import registry
from engine.positionid import decode_position_id, encode_position_id
from engine.ratings import FibsRatings, Rating
from tests.bot.discord.helpers import Driver, World, reply, said, show_command, world

FIBS = FibsRatings()
ID_PAIR = re.compile(r"`([A-Za-z0-9+/]{14}):([A-Za-z0-9+/]{12})`")
ROW = re.compile(r"^\s*(\d+)\s+(.+?)\s+(\d+\.\d\d)\s+(\d+)\s+(\d+)\s+(\S+)$")


async def win(w: World, winner: str, loser: str, variant: str, length: int) -> int:
    """A match in Discord that ``winner`` wins: challenge, accept, then the loser resigns a backgammon on roll.

    Rolls and plays are clicks on the bot's buttons; the resignation is the typed ``/bg resign`` (a
    backgammon is the most a player can give, so it is accepted at once and ends these short matches).
    """
    gid, thread = await w.start(opponent=loser, challenger=winner, variant=variant, length=length)
    d = Driver(w, gid)
    lose = w.people[loser]
    for _ in range(40):
        v = await d.view()
        if v.status == "finished":
            assert v.winner == v.side_of(str(w.people[winner].id)), (winner, v)
            return gid
        if v.phase == "roll" and v.to_act == str(lose.id):
            r = await w.do(lose.slash(thread, "bg resign", level="backgammon"))
            assert r.acknowledged and "offers to resign" in said(r), said(r)  # told privately; shown in the thread
            # shown in the thread (followed by the match card when it ends the match)
            assert any("offers to resign" in m.content for m in thread.history()[-2:])
        else:
            await d.step()
    raise AssertionError(f"match #{gid} did not end")


def table_rows(message: simcord.ResponseMessage) -> list[tuple[int, str, str, int, int, str]]:
    """The rows of a leaderboard embed: (rank, name, rating as shown, won, lost, streak)."""
    (embed,) = message.embeds
    body = (embed.description or "").strip("`\n").splitlines()
    assert body[0].split() == ["#", "Player", "Rating", "Won", "Lost", "Streak"], body
    out = []
    for line in body[1:]:
        m = ROW.match(line)
        assert m is not None, line
        out.append((int(m[1]), m[2], m[3], int(m[4]), int(m[5]), m[6]))
    return out


def field(message: simcord.ResponseMessage, name: str) -> str:
    (embed,) = message.embeds
    found = [f.value or "" for f in embed.fields if f.name == name]
    assert found, f"no field {name!r} in {[f.name for f in embed.fields]}"
    return found[0]


@pytest.mark.asyncio
async def test_after_matches_in_two_rule_sets_leaderboards_and_profiles_show_exactly_the_expected_ratings(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        alice, bob, carol = (w.people[n] for n in ("alice", "bob", "carol"))
        expected: dict[tuple[str, str], Rating] = {}
        record: dict[tuple[str, str], list[bool]] = {}
        plan = [
            ("alice", "bob", "backgammon", 1),
            ("alice", "carol", "backgammon", 3),
            ("bob", "carol", "backgammon", 1),
            ("carol", "alice", "sprintgammon", 1),
            ("carol", "bob", "sprintgammon", 1),
        ]
        games = []
        for winner, loser, variant, length in plan:
            games.append(await win(w, winner, loser, variant, length))
            a, b = expected.get((winner, variant), Rating()), expected.get((loser, variant), Rating())
            expected[(winner, variant)], expected[(loser, variant)] = FIBS.update(a, b, length)
            record.setdefault((winner, variant), []).append(True)
            record.setdefault((loser, variant), []).append(False)

        def streak(player: str, variant: str) -> int:
            results = record[(player, variant)]
            n = 1
            while n < len(results) and results[-n - 1] == results[-1]:
                n += 1
            return n if results[-1] else -n

        def row(rank: int, player: str, variant: str) -> tuple[int, str, str, int, int, str]:
            results = record[(player, variant)]
            return (
                rank,
                player,
                f"{expected[(player, variant)].rating:.2f}",
                results.count(True),
                results.count(False),
                streak_text(streak(player, variant), short=True),
            )

        # The leaderboards: every player, best first, with exactly the FIBS ratings and the records.
        for variant in ("backgammon", "sprintgammon"):
            r = await w.do(bob.slash(w.channel, "bg-stats leaderboard", variant=variant))
            assert r.ephemeral
            order = sorted(("alice", "bob", "carol"), key=lambda p: -expected[(p, variant)].rating)
            assert table_rows(reply(r)) == [row(k, p, variant) for k, p in enumerate(order, 1)]
            shown = registry().find(variant).display_name
            assert reply(r).embeds[0].title == f"{shown} leaderboard"
        assert table_rows(reply(r))[0][:2] == (1, "carol")  # sprintgammon: carol won both
        assert expected[("alice", "backgammon")].rating > 1500 > expected[("carol", "backgammon")].rating

        # The rule set may be typed as an alias, and is suggested as it is typed.
        r = await w.do(alice.slash(w.channel, "bg-stats leaderboard", variant="sprint"))
        assert [x[1] for x in table_rows(reply(r))][0] == "carol"
        choices = await alice.autocomplete(w.channel, "bg-stats leaderboard", "variant", "sprint")
        assert [c["value"] for c in choices] == ["sprintgammon"]
        # Without a rule set: the server's (backgammon by default).
        r = await w.do(carol.slash(w.channel, "bg-stats leaderboard"))
        assert reply(r).embeds[0].title == "Backgammon leaderboard"
        # A minimum of matches nobody has yet, and a rule set that does not exist.
        r = await w.do(alice.slash(w.channel, "bg-stats leaderboard", variant="backgammon", min_matches=3))
        assert r.ephemeral and said(r).startswith("No Backgammon players here with at least 3 rated matches")
        r = await w.do(alice.slash(w.channel, "bg-stats leaderboard", variant="chess"))
        assert r.ephemeral and "chess" in said(r) and "backgammon" in said(r)

        # Profiles: rating, record and streak per rule set, and the recent matches, newest first.
        for name in ("alice", "bob", "carol"):
            r = await w.do(alice.slash(w.channel, "bg-stats profile", player=w.people[name]))
            assert r.ephemeral
            for variant, shown in (("backgammon", "Backgammon"), ("sprintgammon", "Sprintgammon")):
                results = record[(name, variant)]
                text = field(reply(r), shown)
                assert f"Rating **{expected[(name, variant)].rating:.2f}**" in text
                assert f"{results.count(True)} won, {results.count(False)} lost ({len(results)} rated)" in text
                assert f"Streak: {streak_text(streak(name, variant))}" in text
            recent = field(reply(r), "Recent matches").splitlines()
            mine = [g for g, p in zip(games, plan) if name in p[:2]][::-1]
            assert [int(re.findall(r"^#(\d+)", x)[0]) for x in recent] == mine
            assert [("**won**" in x) for x in recent] == [plan[games.index(g)][0] == name for g in mine]
        r = await w.do(carol.slash(w.channel, "bg-stats profile"))  # your own by default
        assert reply(r).embeds[0].title == "carol's backgammon"
        assert "Streak: won 2 in a row" in field(reply(r), "Sprintgammon")
        assert "Streak: lost 2 in a row" in field(reply(r), "Backgammon")
        r = await w.do(w.people["eve"].slash(w.channel, "bg-stats profile"))
        assert "No finished matches yet" in (reply(r).embeds[0].description or "")

        # History: every match, newest first, with a link to its thread.
        r = await w.do(alice.slash(w.channel, "bg-stats history"))
        lines = (reply(r).embeds[0].description or "").splitlines()
        assert [int(re.findall(r"^#(\d+)", x)[0]) for x in lines] == games[::-1]
        for gid, line in zip(games[::-1], lines):
            assert f"<#{(await w.view(gid)).thread_id}>" in line
        r = await w.do(alice.slash(w.channel, "bg-stats history", player=bob))
        lines = (reply(r).embeds[0].description or "").splitlines()
        assert len(lines) == 3 and all("bob" in x for x in lines)
        assert "— lost (" in lines[0] and "— **won** (" in lines[1]  # bob's view: carol beat him, he beat carol

        # GNU Backgammon IDs of a finished match: at its start, and its final position.
        r = await w.do(alice.slash(w.channel, "bg ids", game=games[1], after=0))
        found = ID_PAIR.search(said(r))
        assert r.ephemeral and found is not None, said(r)
        assert found[1] == "4HPwATDgc/ABMA" and decode_match_id(found[2]).length == 3
        r = await w.do(alice.slash(w.channel, "bg ids", game=games[1]))
        found = ID_PAIR.search(said(r))
        assert found is not None and (found[1], found[2]) == await w.bot.service.ids_at(games[1], SYSTEM)
        backgammon = registry().get("backgammon")
        assert encode_position_id(backgammon, decode_position_id(backgammon, found[1])) == found[1]
        assert decode_match_id(found[2]).length == 3
        choices = await alice.autocomplete(w.channel, "bg ids", "game", "")
        assert {c["value"] for c in choices} == {g for g, p in zip(games, plan) if "alice" in p[:2]}

        # Forgetting a player: /bg-admin is hidden from a member without Manage Server; where the server shows it to
        # them anyway (its Integrations settings), refused with the reason; done for an admin.
        assert not [c for c in carol.available_commands(w.channel) if c.startswith("bg-admin")]
        show_command(w, "bg-admin", carol)
        r = await w.do(carol.slash(w.channel, "bg-admin forget", player=bob))
        assert r.ephemeral and said(r) == "Only members with the Manage Server permission can remove a player's data."
        here = Request(str(carol.id), "carol", str(w.guild.id), "discord")
        assert (await w.bot.service.profile(here, str(bob.id)))["name"] == "bob"
        role = w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        admin = w.guild.add_member(w.env.create_user("admin"), roles=[role])
        r = await w.do(admin.slash(w.channel, "bg-admin forget", player=bob))
        assert r.ephemeral and f"<@{bob.id}>" in said(r) and FORMER_PLAYER in said(r)
        r = await w.do(alice.slash(w.channel, "bg-stats leaderboard", variant="backgammon"))
        assert {x[1] for x in table_rows(reply(r))} == {"alice", "carol"}  # his ratings here are gone
        r = await w.do(alice.slash(w.channel, "bg-stats history"))
        lines = (reply(r).embeds[0].description or "").splitlines()
        assert len(lines) == len(games) and not [x for x in lines if "bob" in x]  # his matches stay, unnamed
        assert len([x for x in lines if FORMER_PLAYER in x]) == 3
        r = await w.do(alice.slash(w.channel, "bg-stats profile"))
        assert f"Rating **{expected[('alice', 'backgammon')].rating:.2f}**" in field(reply(r), "Backgammon")


@pytest.mark.asyncio
async def test_watching_vacations_clocks_and_bad_input_get_clear_answers(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        alice, eve = w.people["alice"], w.people["eve"]
        gid, thread = await w.start(opponent="bob", challenger="alice", variant="backgammon", length=3)

        # Watching, from inside the match's thread (no game number needed), and stopping.
        r = await w.do(eve.slash(thread, "bg watch"))
        assert r.ephemeral and f"#{gid}" in said(r) and f"<#{thread.id}>" in said(r)
        assert await w.bot.service.watchers(gid) == [str(eve.id)]
        r = await w.do(eve.slash(w.channel, "bg watch", game=gid, off=True))
        assert r.ephemeral and "no longer follow" in said(r)
        assert await w.bot.service.watchers(gid) == []
        r = await w.do(alice.slash(w.channel, "bg watch", game=gid))
        assert r.ephemeral and "You are playing in game" in said(r)
        r = await w.do(eve.slash(w.channel, "bg watch"))
        assert r.ephemeral and "`game` option" in said(r)
        r = await w.do(eve.slash(w.channel, "bg watch", game=9999))
        assert r.ephemeral and "9999" in said(r)

        # IDs of the running match, from its thread.
        r = await w.do(eve.slash(thread, "bg ids"))
        found = ID_PAIR.search(said(r))
        assert found is not None and (found[1], found[2]) == await w.bot.service.ids_at(gid, SYSTEM)
        r = await w.do(eve.slash(thread, "bg ids", after=500))
        assert r.ephemeral and "pick a number from 0" in said(r)

        # A game of another server is not shown here.
        other = w.env.create_guild("Elsewhere")
        channel = other.create_text_channel("bg")
        stranger = other.add_member(w.env.create_user("zed"))
        r = await w.do(stranger.slash(channel, "bg ids", game=gid))
        assert r.ephemeral and said(r) == f"There is no game #{gid}"

        # Vacations end when asked, within the server's allowance.
        before = time.time()
        r = await w.do(alice.slash(w.channel, "bg-me vacation", days=2.5))
        ends = [int(x) for x in re.findall(r"<t:(\d+):F>", said(r))]
        assert r.ephemeral and len(ends) == 1 and before + 2.5 * 86400 - 2 <= ends[0] <= time.time() + 2.5 * 86400 + 2
        assert f"<#{thread.id}>" in said(r)  # where the opponent is told
        notice = thread.history()[-1]
        assert notice.content == f"alice is on vacation until <t:{ends[0]}:F>: their clock stands still until then."
        r = await w.do(alice.slash(w.channel, "bg-me vacation", days=30))
        assert r.ephemeral and "more vacation than this server allows" in said(r)

        # The time-control presets, each with its description.
        r = await w.do(eve.slash(w.channel, "bg-info clocks"))
        assert r.ephemeral
        for tc in w.bot.service.time_controls():
            assert f"**{tc.display_name}** `{tc.name}`: {tc.describe()}" in said(r)


@pytest.mark.asyncio
async def test_a_feature_cogs_commands_join_their_top_level_command_and_leave_it_on_unload(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ours = {"bg-stats leaderboard", "bg-stats profile", "bg-stats history"}
        tops = [c.name for c in w.bot.tree.get_commands()]
        assert "bg-stats" in tops and "bg" in tops
        assert ours <= set(w.people["alice"].available_commands(w.channel))
        await w.bot.unload_extension("bot.discord.cogs.stats")
        # Its top-level command, left empty, is gone too; the others stay.
        assert [c.name for c in w.bot.tree.get_commands()] == [t for t in tops if t != "bg-stats"]
        group = w.bot.tree.get_command("bg")
        assert isinstance(group, discord.app_commands.Group)
        assert "bg play" in {c.qualified_name for c in group.walk_commands()}
        await w.bot.load_extension("bot.discord.cogs.stats")
        assert {c.qualified_name for c in w.bot.tree.walk_commands()} >= ours
        # Two cogs share a top-level command: the tournaments' admin commands join /bg-admin beside the server's.
        admin = w.bot.tree.get_command("bg-admin")
        assert isinstance(admin, discord.app_commands.Group)
        assert {c.name for c in admin.commands} == {"config", "forget", "tour"}
        await w.bot.unload_extension("bot.discord.cogs.tour")
        assert {c.name for c in admin.commands} == {"config", "forget"} and w.bot.tree.get_command("bg-tour") is None


def test_text_helpers() -> None:
    rows: list[dict[str, Any]] = [
        {"rank": 1, "player": "1", "name": "Ann `x`", "rating": 1510.934, "wins": 2, "losses": 0, "streak": 2},
        {"rank": 2, "player": "2", "name": "Ben", "rating": 1489.5, "wins": 0, "losses": 2, "streak": -2},
    ]
    table = leaderboard_table(rows)
    assert table.count("```") == 2 and "Ann 'x'" in table
    assert "1510.93" in table and "1489.50" in table and " W2" in table and " L2" in table
    line = {
        "game_id": 4,
        "variant": "backgammon",
        "display_name": "Backgammon",
        "length": 3,
        "score": [3, 0],
        "sides": ["Ann", "Ben"],
        "winner": "Ann",
        "rated": True,
        "finished_at": 1700000000.5,
        "thread_id": "77",
        "won": False,
        "rating_change": -7.256,
    }
    assert result_line(line) == (
        "#4 Backgammon 3-point match: Ann 3 – 0 Ben, won by Ann — lost (-7.26) · <#77> · <t:1700000000:d>"
    )
    assert "unrated" in result_line({**line, "length": 0, "rated": False, "score": [1, 0]})
    assert streak_text(0) == "–" and streak_text(1) == "won the last one" and streak_text(-3) == "lost 3 in a row"
