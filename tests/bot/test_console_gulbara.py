"""Gul bara through the game service and console: a whole match whose doublets from the fourth turn cascade, each
later stage prompted with the dice the rules give, and its ``.mat`` export read back with the cascade's stages."""

from __future__ import annotations

from pathlib import Path

from engine.matread import read_mat
from tests.bot.console_session import Session, refusals, run


def test_a_gul_bara_match_with_cascades_in_the_console(tmp_path: Path) -> None:
    async def body(s: Session) -> tuple[str, str, str]:
        said = await s.type("alice: play bob gulbara 1", "bob: accept")
        board = ""
        for _ in range(3000):
            view = await s.view(1)
            if view.status != "active":
                break
            step = await s.step(1)
            if not board and "next, in the same turn" in step:
                board = await s.type(f"{view.to_act}: board")
            said += step
        return said, board, await s.type("alice: export")

    said, board, mat = run(tmp_path, body)
    assert not refusals(said), refusals(said)[:3]
    assert "The rules give 3-3 next, in the same turn." in said and "Match over:" in said
    assert "given by the rules after" in board  # the prompt of a stage the rules give
    assert '[Variation "Gul bara"]' in mat
    text = mat[mat.index(";") :] if ";" in mat else mat
    assert read_mat(text).state.over
