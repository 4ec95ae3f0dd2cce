"""A child process for the pool test: it starts the service's worker processes, gives one a job that runs until a
file appears (it never does), says when the job is running and which the workers are, and waits to be killed.

Usage: python -m tests.bot.pool_child MARKER RELEASE
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from bot.service.pool import WorkPool


def busy(marker: str, release: str) -> str:
    """A worker job: says it runs (``marker``), then runs until ``release`` exists."""
    Path(marker).write_text("running")
    while not Path(release).exists():
        time.sleep(0.05)
    return "released"


async def main(marker: str, release: str) -> None:
    pool = WorkPool(3)
    assert await pool.start()
    print("PIDS", " ".join(map(str, pool.pids)), flush=True)
    await pool.run(busy, (), (marker, release), large=True, lane="long")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
