"""`gammonbot console`: a scripted session on standard input plays a whole game of every rule set."""

from __future__ import annotations

import asyncio
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.console import Console
from bot.service import SYSTEM, GameService, SeededDice
from bot.storage import Store

SEED = 11
TEAMS = {"doubles": "play bob doubles 1 teammate=carol partner=dave"}


async def _script(db: Path, variant: str) -> list[str]:
    """Play a 1-point match in-process, always taking the first listed play, and record every line typed."""
    store = await Store.open(f"sqlite:///{db}")
    service = GameService(store, dice=SeededDice(SEED))
    console = Console(service, io.StringIO())
    lines = [f"alice: {TEAMS.get(variant, f'play bob {variant} 1')}", "bob: accept"]
    if variant in TEAMS:
        lines += ["carol: accept", "dave: accept"]  # everyone a Doubles challenge names accepts
    for line in lines:
        assert await console.handle(line)
    for _ in range(2000):
        view = await service.view(1, SYSTEM)
        if view.status != "active":
            break
        actor = view.to_act or view.acting[0]  # type: ignore[index]
        line = f"{actor}: roll" if view.phase in ("opening", "roll") else f"{actor}: move {view.plays[0]}"
        lines.append(line)
        assert await console.handle(line)
    await store.close()
    return [*lines, "alice: board", "alice: export", "quit"]


def _console_command() -> list[str]:
    script = shutil.which("gammonbot")
    return [script] if script else [sys.executable, "-m", "bot.cli"]


@pytest.mark.parametrize(
    "variant", ["backgammon", "longgammon", "sprintgammon", "doubles", "portes", "plakoto", "fevga"]
)
def test_a_scripted_console_session_plays_a_whole_game(variant: str, tmp_path: Path) -> None:
    lines = asyncio.run(_script(tmp_path / "dry.sqlite3", variant))
    boards = tmp_path / "boards"
    png = ["--boards", str(boards)] if variant in ("sprintgammon", "doubles", "plakoto") else []  # PNGs cost time
    proc = subprocess.run(
        [*_console_command(), "console", "--db", str(tmp_path / "real.sqlite3"), "--seed", str(SEED), *png],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    refusals = [line for line in out.splitlines() if line.startswith("! ")]
    assert not refusals, refusals[:3]
    assert "accepted" in out and "Opening roll" in out
    assert "Match over:" in out and (" wins " in out or " win " in out)  # a team wins in the plural
    assert "+------------------+---+------------------+" in out  # ASCII boards
    assert "1 point match" in out  # the .mat export
    if png:
        pngs = sorted(boards.glob("*.png"))
        assert len(pngs) > 10 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_console_refusals_are_one_line_and_the_session_goes_on(tmp_path: Path) -> None:
    typed = "\n".join(
        ["roll", "as alice", "roll", "play bob chess", "play bob backgammon 1", "bob: roll", "help", "quit"]
    )
    proc = subprocess.run(
        [*_console_command(), "console", "--db", str(tmp_path / "c.sqlite3"), "--seed", "1"],
        input=typed + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "! who are you? type: as NAME" in out
    assert "! no current game" in out
    assert "! no rule set called 'chess'" in out
    assert "Alice challenges bob" in out or "alice challenges bob" in out
    assert "! game #1 has not started" in out
    assert "Commands" in out and "Traceback" not in out + proc.stderr
