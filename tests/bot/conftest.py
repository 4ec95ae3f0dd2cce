"""Storage back ends for bot tests: a real SQLite file always, the real PostgreSQL server when configured."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

POSTGRES_ENV = "GAMMONBOT_TEST_POSTGRES_URL"

#: The database timeouts of every store a test opens without naming them. In production they are 2 seconds, so
#: that a player hears "try again" within Discord's window; a test is about what the bot does, not about how
#: fast a loaded CI machine is, so it waits far longer (the tests of the timeouts themselves name small ones).
PATIENT_SECONDS = 300.0


@pytest.fixture(autouse=True)
def _patient_database(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.storage import Store

    original = Store.open.__func__  # type: ignore[attr-defined]

    async def open_patiently(cls: type[Store], url: str, **options: Any) -> Store:
        options.setdefault("acquire_timeout", PATIENT_SECONDS)
        options.setdefault("statement_timeout", PATIENT_SECONDS)
        store: Store = await original(cls, url, **options)
        return store

    monkeypatch.setattr(Store, "open", classmethod(open_patiently))


def postgres_url() -> str | None:
    return os.environ.get(POSTGRES_ENV) or None


#: Why the PostgreSQL tests skip, once known ("" when the server answers): asked once per test run.
_UNREACHABLE: dict[str, str] = {}
#: How many PostgreSQL tests this run skipped (the line at the end says why).
_SKIPPED = [0]


def postgres_unreachable(url: str) -> str:
    """Why the server ``url`` names cannot be used ("" when it answers), asked once per run: a URL naming no
    server skips the PostgreSQL tests with one line, instead of erroring each of them."""
    if url not in _UNREACHABLE:
        try:
            asyncio.run(asyncio.wait_for(_admin(url, "SELECT 1"), 30))
            _UNREACHABLE[url] = ""
        except Exception as exc:  # refused, unknown host, no such database, bad credentials, timeout
            _UNREACHABLE[url] = f"{type(exc).__name__}: {exc}".strip()
    return _UNREACHABLE[url]


async def _admin(url: str, sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str | None]]:
    """(URL, schema) of an empty database: a SQLite file, or a fresh schema on the test PostgreSQL server."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.sqlite3'}", None
        return
    url = postgres_url()
    if url is None:
        _SKIPPED[0] += 1
        pytest.skip(f"{POSTGRES_ENV} is not set; .ci/run sets it to the local PostgreSQL server")
    why = postgres_unreachable(url)
    if why:
        _SKIPPED[0] += 1
        pytest.skip(f"{POSTGRES_ENV}={url} cannot be used ({why}): the PostgreSQL tests skip; see the README's Tests")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(url, f"CREATE SCHEMA {schema}"))
    try:
        yield url, schema
    finally:
        asyncio.run(_admin(url, f"DROP SCHEMA {schema} CASCADE"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line at the end of the run saying whether the PostgreSQL tests ran, and how to run them."""
    url = postgres_url()
    if not _SKIPPED[0]:
        return
    if url is None:
        line = f"PostgreSQL tests skipped: {POSTGRES_ENV} is not set (set it to a server's URL to run them)"
    elif _UNREACHABLE.get(url):
        line = f"PostgreSQL tests skipped: {POSTGRES_ENV}={url} cannot be used ({_UNREACHABLE[url]})"
    else:
        return
    line = f"{_SKIPPED[0]} " + line
    terminalreporter.write_line(line, yellow=True)
