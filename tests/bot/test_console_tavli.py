"""Tavli's games through the game service and console: a clocked Plakoto match rated in its own ladder, the cube
refused in words, the board drawn with its pins, a 3-game Tavli match (Portes, Plakoto, Fevga, one score, rated as
Tavli) and an Acey-deucey match whose 1-2s are followed by named doublets (the rule sets are generic over the
registry: nothing here is special to them but the rules)."""

from __future__ import annotations

from pathlib import Path

from tests.bot.console_session import Session, refusals, run


def test_a_clocked_plakoto_match_is_rated_in_the_plakoto_ladder(tmp_path: Path) -> None:
    async def body(s: Session) -> tuple[str, str, str]:
        said = await s.type("alice: play bob plakoto 1 clock=correspondence", "bob: accept")
        said += await s.until(1, lambda v: False, limit=2000)
        plakoto = await s.type("alice: leaderboard plakoto")
        portes = await s.type("alice: leaderboard portes")
        return said, plakoto, portes

    said, plakoto, portes = run(tmp_path, body)
    assert not refusals(said), refusals(said)[:3]
    assert "Plakoto" in said and "Match over:" in said and "pinned (*)" in said
    names = [line.split()[1] for line in plakoto.splitlines() if line.strip().split(".")[0].isdigit()]
    assert sorted(names) == ["alice", "bob"], plakoto  # both rated, in Plakoto's own ladder
    assert "alice" not in portes and "bob" not in portes


def test_the_cube_is_refused_in_tavli_games_in_words(tmp_path: Path) -> None:
    async def body(s: Session) -> tuple[str, str]:
        jacoby = await s.type("alice: play bob portes money jacoby")
        await s.type("alice: play bob portes 3", "bob: accept")
        double = await s.type("alice: roll", "bob: roll", "alice: double")
        return jacoby, double

    jacoby, double = run(tmp_path, body)
    assert refusals(jacoby) and "Portes" in refusals(jacoby)[-1] and "cube" in refusals(jacoby)[-1]
    assert refusals(double) and "without the doubling cube" in refusals(double)[-1]


def test_a_3_game_tavli_match_in_the_console(tmp_path: Path) -> None:
    async def body(s: Session) -> tuple[str, str, str]:
        said = await s.type("alice: play bob tavli 3", "bob: accept")
        said += await s.until(1, lambda v: False, limit=3000)  # these dice give Portes, Plakoto, then Fevga
        return said, await s.type("alice: leaderboard tavli"), await s.type("alice: rules tavli")

    said, ladder, rules = run(tmp_path, body)
    assert not refusals(said), refusals(said)[:3]
    assert "Opening roll: alice 3, bob 6. bob starts and rolls both dice." in said  # a re-throw, not "plays 6-3"
    assert "#1 Tavli, game 1: Portes 3-point match" in said
    assert "Next: Tavli, game 2: Plakoto." in said and "Next: Tavli, game 3: Fevga." in said
    assert "wins 2 points: a mother is pinned (the last checker on its starting point)." in said  # not "a gammon"
    assert "Match over:" in said and "Ratings (Tavli)" in said
    names = sorted(line.split()[1] for line in ladder.splitlines() if line.strip().split(".")[0].isdigit())
    assert names == ["alice", "bob"]  # rated in Tavli's own ladder
    assert "Portes" in rules and "Plakoto" in rules and "Fevga" in rules


def test_an_acey_deucey_match_with_named_doublets_in_the_console(tmp_path: Path) -> None:
    async def body(s: Session) -> tuple[str, str, str]:
        said = await s.type("alice: play bob aceydeucey 1", "bob: accept")
        board = ""
        for _ in range(3000):
            view = await s.view(1)
            if view.status != "active":
                break
            if view.phase == "name double":
                early = await s.type(f"{'bob' if view.to_act == 'alice' else 'alice'}: name 6")
                assert early.startswith("! "), early  # not the other player's to name
                board = board or await s.type(f"{view.to_act}: board")
                said += await s.type(f"{view.to_act}: double 5")  # "double N" names N-N while one is due
            else:
                said += await s.step(1)
        return said, board, await s.type("alice: export")

    said, board, mat = run(tmp_path, body)
    assert not refusals(said), refusals(said)[:3]
    assert "names 5-5." in said and "to play the named 5-5" in said and "Match over:" in said
    assert "to name a doublet to play, 1 to 6" in board and "waiting to enter:" in board
    assert '[Variation "Acey-deucey"]' in mat and " in/" in mat


def test_a_tavli_match_is_played_to_5_points_unless_the_players_say_otherwise(tmp_path: Path) -> None:
    async def body(s: Session) -> str:
        return await s.type("alice: server default_length=1", "alice: play bob tavli", "alice: play carol portes")

    said = run(tmp_path, body)
    assert "a 5-point Tavli match" in said and "a 1-point Portes match" in said  # the rule set's usual length
