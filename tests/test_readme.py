"""Every example in the README runs as written.

Each line of each ```sh block of the README is either run here, in a fresh directory, as the shell would run it
(with ``gammonbot`` as installed), or listed in :data:`NOT_RUN_HERE` with the reason it cannot be (it installs the
project, which ``.ci/run`` itself does; it needs Discord; it takes minutes). A new example the test does not know
fails it, so every example a reader may copy is checked. The console quick start (a ``console`` command and the
lines typed after "Then type:") is played and must play without a refusal.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: Example lines that are not run here, by their start, with the reason.
NOT_RUN_HERE = {
    "pip install": "installs the project: .ci/run installs it the same way before running the tests",
    "python3 -m venv": "makes a virtual environment and installs into it: .ci/run does exactly this",
    "export DISCORD_TOKEN=": "a placeholder for the admin's own token",
    "gammonbot run": "connects to Discord, which this machine cannot reach (tests/bot/discord cover the bot)",
    "python benchmarks/": "benchmarks run on demand and take minutes; they print figures, not pass or fail",
    "GAMMONBOT_TEST_POSTGRES_URL=": "runs the whole test suite (this is part of it); .ci/run sets that variable",
}

#: The shell's word for the program, as installed in the environment the tests run in.
_INSTALLED = shutil.which("gammonbot")
PROGRAM = " ".join(shlex.quote(w) for w in ([_INSTALLED] if _INSTALLED else [sys.executable, "-m", "bot.cli"]))


def readme() -> str:
    return README.read_text(encoding="utf-8")


def sh_lines() -> list[str]:
    """Every command line of the README's ```sh blocks, without its trailing comment."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", readme(), re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def skipped(line: str) -> str | None:
    return next((why for start, why in NOT_RUN_HERE.items() if line.startswith(start)), None)


def console_quick_start() -> tuple[str, str]:
    """The README's console command and the lines it tells the reader to type."""
    text = readme()
    command = next(line for line in sh_lines() if line.startswith("gammonbot console"))
    typed = re.search(r"Then type:\n\n```\n(.*?)```", text, re.S)
    assert typed is not None, "the quick start's typed lines are missing"
    return command, typed[1]


def run(line: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    command = re.sub(r"(^|&& |\| )gammonbot ", lambda m: f"{m[1]}{PROGRAM} ", line)
    return subprocess.run(command, shell=True, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600)


def test_every_example_is_run_or_has_a_reason_not_to_be() -> None:
    lines = sh_lines()
    assert len(lines) >= 10, lines
    unknown = [line for line in lines if skipped(line) is None and not RUNNABLE.match(line)]
    assert not unknown, f"README examples this test neither runs nor explains: {unknown}"


#: The examples run here: the bot's own tools and SQLite's backup.
RUNNABLE = re.compile(r"^(gammonbot (plays|variants|selfplay|import|console|verify)\b|sqlite3 )")


def test_the_console_quick_start_plays_as_written(tmp_path: Path) -> None:
    command, typed = console_quick_start()
    proc = run(command, tmp_path, typed)
    assert proc.returncode == 0, proc.stderr
    refusals = [line for line in proc.stdout.splitlines() if line.startswith("! ")]
    assert not refusals, proc.stdout
    # What the README says happens, happens.
    assert "bob played 13/7 8/7." in proc.stdout and "alice played 8/4 6/4." in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stderr


def test_every_tool_example_runs_in_reading_order(tmp_path: Path) -> None:
    """The examples build on each other in reading order (selfplay writes match.mat, import reads it): they run one
    after another in one directory. The backup example copies the bot's database: one is made first, as the bot
    would make it, by playing the console quick start into it."""
    lines = [line for line in sh_lines() if RUNNABLE.match(line) and not line.startswith("gammonbot console")]
    assert any(line.startswith("gammonbot import") for line in lines), lines
    failed = []
    for line in lines:
        if line.startswith("sqlite3 "):
            database = re.search(r"sqlite3 (\S+)", line)
            assert database is not None
            command, typed = console_quick_start()
            made = run(f"gammonbot console --db {database[1]} --seed 15", tmp_path, typed)
            assert made.returncode == 0, made.stderr
        proc = run(line, tmp_path)
        quiet_is_fine = line.startswith(("sqlite3 ", "gammonbot selfplay"))
        if proc.returncode != 0 or "Traceback" in proc.stderr or not (proc.stdout.strip() or quiet_is_fine):
            failed.append(f"{line}\n  exit {proc.returncode}\n  {proc.stdout[-500:]}\n  {proc.stderr[-500:]}")
    assert not failed, "README examples that do not run as written:\n" + "\n".join(failed)
