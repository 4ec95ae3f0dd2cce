"""Tavli's games through the game service and console: a clocked Plakoto match rated in its own ladder, the cube
refused in words, and the board drawn with its pins (the rule sets are generic over the registry: nothing here is
special to them but the rules)."""

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
