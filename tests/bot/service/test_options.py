"""Every option reachable through the service: a challenge's options string, rule-set options kept with the game
(and after a restart), a server's default options applied where they can, and the terms of a game in words; on a
real SQLite file and the real PostgreSQL server."""

from __future__ import annotations

from typing import Any

from bot.service import SYSTEM, GameService, Refused, SeededDice
from tests.bot.service.test_service import ADMIN, ALICE, BOB, refused, run


def test_a_challenge_sets_rule_set_options_and_the_game_keeps_them(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, variant="longgammon", length=1, options="koks=on opening=reroll")
        assert "options: opening=reroll koks" in out.events[0].text
        gid = out.game.id
        terms = await svc.match_terms(gid, BOB)  # a challenge's terms, before anyone accepted
        assert "Longgammon, a 1-point match" in terms and any("koks on" in line for line in terms)
        await svc.accept(gid, BOB)
        state = await svc.state(gid, SYSTEM)
        assert state.variant.options["koks"] is True and str(state.options.opening) == "reroll"
        # Another process (no cache) loads the stored game with the same rule set and options.
        again = GameService(svc.store, dice=SeededDice(1))
        reloaded = await again.state(gid, SYSTEM)
        assert reloaded.variant == state.variant and reloaded.options == state.options
        lines = await again.match_terms(gid, ALICE)
        assert "Opening: one die each decides who starts, and the starter rolls both dice afresh" in lines
        assert "Clock: none" in lines and "Rated: yes" in lines

    run(db_url, body)


def test_refusals_name_the_option_and_the_combination(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        await refused(svc.challenge(ALICE, BOB, length=0, options="jacobi"), "did you mean 'jacoby'?")
        await refused(svc.challenge(ALICE, BOB, length=3, options="koks=on"), "koks is a Longgammon option")
        await refused(svc.challenge(ALICE, BOB, length=3, options="holland crawford=off"), "Crawford rule")
        await refused(svc.challenge(ALICE, BOB, length=0, options="max_cube=12"), "power of two")
        await refused(svc.challenge(ALICE, BOB, length=0, options={"beaver_limit": 1}), "only with beavers")
        await refused(svc.challenge(ALICE, BOB, length=5, options={"colour": "red"}), "unknown option 'colour'")
        assert await svc.my_games(ALICE) == []  # nothing was stored

    run(db_url, body)


def test_server_default_options_apply_where_they_can(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        # The console's crash: a JSON object (or a mapping) is read like an options string.
        settings = await svc.guild_settings(ADMIN, default_options='{"jacoby": true}')
        assert settings["default_options"] == {"jacoby": True}
        settings = await svc.guild_settings(ADMIN, default_options="jacoby beavers holland koks max_cube=16")
        stored = {"jacoby": True, "beavers": True, "holland": True, "max_cube": 16, "longgammon.koks": True}
        assert settings["default_options"] == stored
        assert svc.options_text(settings["default_options"]) == "max_cube=16 jacoby beavers holland longgammon.koks"
        money = await svc.challenge(ALICE, BOB, length=0)
        assert "(Jacoby, beavers)" in money.events[0].text and "max_cube=16" in money.events[0].text
        match = await svc.challenge(ALICE, BOB, length=3, options="crawford=off")
        text = match.events[0].text  # the player's Crawford choice leaves out the server's Holland rule
        assert "no Crawford rule" in text and "Holland" not in text and "Jacoby" not in text
        long = await svc.challenge(ALICE, BOB, variant="longgammon", length=1, options="beavers=off")
        assert "koks" in long.events[0].text
        await refused(svc.guild_settings(ADMIN, default_options="holland crawford=off"), "in matches")
        await refused(svc.guild_settings(ADMIN, default_options="koks=maybe"), "koks is on or off")
        await refused(svc.guild_settings(ALICE, default_options="jacoby"), "only a server admin")
        cleared = await svc.guild_settings(ADMIN, default_options="none")
        assert cleared["default_options"] == {} and svc.options_text({}) == "none"

    run(db_url, body)


def test_stored_defaults_an_older_version_wrote_never_stop_a_challenge(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        old: dict[str, Any] = {"colour": "red", "holland": True, "crawford": False, "jacoby": "perhaps"}
        await svc.store.save_guild_settings("g", {**await svc.server_settings("g"), "default_options": old})
        out = await svc.challenge(ALICE, BOB, length=3)
        text = out.events[0].text  # the unreadable ones are left out, and the Holland rule never without Crawford's
        assert out.game.status == "challenge" and not ("no Crawford rule" in text and "Holland" in text), text
        assert "Jacoby" not in text and "colour" not in text

    run(db_url, body)


def test_option_suggestions_follow_the_rule_set_and_the_kind_of_play(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        money = [v for _, v in await svc.option_suggestions(ALICE, "", length=0)]
        assert "jacoby" in money and "holland" not in money and len(money) <= 25
        assert [v for _, v in await svc.option_suggestions(ALICE, "ko", variant="longgammon")] == ["koks"]
        assert await svc.option_suggestions(ALICE, "ko", variant="chess") == []  # unknown rule set: the default's
        server = [v for _, v in await svc.option_suggestions(ADMIN, "jacoby ko", server=True)]
        assert server == ["jacoby koks"]

    run(db_url, body)


def test_the_terms_of_a_game_are_only_for_those_who_may_see_it(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB, length=0, options="jacoby games=3")
        lines = await svc.match_terms(out.game.id, BOB)
        assert lines[0] == "Backgammon for money, a session of 3 games" and "Rated: no" in lines[-1]
        elsewhere = type(ALICE)("zed", "Zed", "another server")
        try:
            await svc.match_terms(out.game.id, elsewhere)
        except Refused as exc:
            assert str(exc) == f"there is no game #{out.game.id}"
        else:
            raise AssertionError("another server saw the game's terms")

    run(db_url, body)


def test_a_rule_sets_default_options_reach_its_games(db_url: tuple[str, str | None]) -> None:
    async def body(svc: GameService) -> None:
        await svc.guild_settings(ADMIN, default_options="longgammon.first_turn_doublets=6,4")
        again = GameService(svc.store)  # another process: nothing cached
        assert (await again.server_settings("g"))["default_options"] == {"longgammon.first_turn_doublets": [6, 4]}
        out = await again.challenge(ALICE, BOB, variant="longgammon", length=1)
        await again.accept(out.game.id, BOB)
        assert (await again.state(out.game.id, SYSTEM)).variant.options["first_turn_doublets"] == (6, 4)

    run(db_url, body)
