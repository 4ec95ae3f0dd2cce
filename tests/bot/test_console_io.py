"""The console as a program: Ctrl-C and the end of input leave at once and cleanly, the README's quick start plays
as written, and the help teaches every command, notation, the cube and resigning."""

from __future__ import annotations

import asyncio
import io
import shlex
import signal
import subprocess
from pathlib import Path

import pytest

import bot.console
from bot.console import Console, run_console
from bot.console_text import COMMANDS, TOPICS, help_text
from tests.bot.test_console import _console_command

#: The README's quick start, exactly as the README gives it: the command, then the lines typed.
README_COMMAND = 'gammonbot console --db "$(mktemp -d)/games.sqlite3" --seed 15'
README_LINES = """\
as alice
play bob backgammon 3
as bob
accept
roll
move 13/7 8/7
as alice
roll
move 8/4 6/4
board
quit
"""


class Interrupting(io.StringIO):
    """Standard input whose ``n``-th read is interrupted by Ctrl-C (SIGINT raised as the read begins)."""

    def __init__(self, text: str, n: int) -> None:
        super().__init__(text)
        self.reads = 0
        self.n = n

    def readline(self, size: int | None = -1) -> str:
        self.reads += 1
        if self.reads == self.n:
            signal.raise_signal(signal.SIGINT)
        return super().readline()


def test_ctrl_c_while_waiting_for_a_line_ends_the_session_at_once(tmp_path: Path) -> None:
    inp = Interrupting("as alice\nplay bob backgammon 1\nplay carol backgammon 1\n", n=2)
    out = io.StringIO()
    status = asyncio.run(run_console(f"sqlite:///{tmp_path / 'c.sqlite3'}", inp, out))
    assert status == 0 and inp.reads == 2
    assert "you are alice" in out.getvalue() and "challenges" not in out.getvalue()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


def test_ctrl_c_during_a_command_cancels_it_and_ends_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handled: list[str] = []

    async def slow(self: Console, line: str) -> bool:
        handled.append(line)
        signal.raise_signal(signal.SIGINT)
        await asyncio.Event().wait()  # a command that would never end by itself
        return True

    monkeypatch.setattr(bot.console.Console, "handle", slow)
    out = io.StringIO()

    async def go() -> int:
        return await asyncio.wait_for(
            run_console(f"sqlite:///{tmp_path / 'c.sqlite3'}", io.StringIO("board\nboard\n"), out), 120
        )

    assert asyncio.run(go()) == 0
    assert handled == ["board\n"]


def test_ctrl_c_in_the_real_program_exits_cleanly_on_the_first_press(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [*_console_command(), "console", "--db", str(tmp_path / "c.sqlite3")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write("as alice\n")
        proc.stdin.flush()
        for line in proc.stdout:  # wait until the console has answered: it then waits for the next line
            if "you are alice" in line:
                break
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read()
    assert status == 0, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr


def test_the_readme_quick_start_plays_as_written(tmp_path: Path) -> None:
    """The README's commands and lines, run as they are (``gammonbot`` as installed, the shell's mktemp)."""
    program = " ".join(shlex.quote(word) for word in _console_command())
    command = README_COMMAND.replace("gammonbot", program, 1).replace("$(mktemp -d)", str(tmp_path))
    proc = subprocess.run(command, shell=True, input=README_LINES, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert not [line for line in out.splitlines() if line.startswith("! ")], out
    assert "Opening roll: alice 1, bob 6. bob plays 6-1." in out
    assert "bob played 13/7 8/7." in out and "alice played 8/4 6/4." in out
    assert "bob to roll or double." in out and "Traceback" not in proc.stderr


def test_the_help_teaches_every_command_notation_the_cube_and_resigning() -> None:
    text = help_text()
    for command in COMMANDS:
        assert command.usage in text and f"e.g. {command.example}" in text, command.name
    for topic in TOPICS.values():
        assert topic in text
    assert "move 13/7 8/7" in text and "bar/22" in text and "6/off" in text  # notation
    assert "take" in TOPICS["cube"] and "Crawford" in TOPICS["cube"] and "pass" in TOPICS["cube"]
    assert all(level in TOPICS["resign"] for level in ("single", "gammon", "backgammon"))
    assert "move PLAY" in help_text("move") and "example: move 13/7 8/7" in help_text("move")
    assert help_text("cube") == TOPICS["cube"]
    assert max(len(line) for line in text.splitlines()) <= 120  # fits a wide terminal
    assert "did you mean move?" in help_text("mvoe")
