"""Network trouble, at start or during a run, is one clear line and a retry with backoff, never a traceback.

No test touches the network: the failures are raised where discord.py would meet them (its login request, the
gateway connection, its reconnect logs), and the waits between attempts are recorded, never slept.
"""

from __future__ import annotations

import asyncio
import io
import logging
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace, TracebackType
from typing import Any

import aiohttp
import discord
import pytest

from bot.cli import main
from bot.discord import network
from bot.discord.network import RETRY_CAP, OneLineReconnects, StorageUnreachable, quiet_reconnects, serve, unreachable


def dns_failure() -> aiohttp.ClientConnectorError:
    """What aiohttp raises when discord.com's name cannot be resolved (no network)."""
    key: Any = SimpleNamespace(host="discord.com", port=443, ssl=True, is_ssl=True)
    return aiohttp.ClientConnectorDNSError(key, socket.gaierror(socket.EAI_NONAME, "Name or service not known"))


class Lines(logging.Handler):
    """Every log line as it would be printed (a traceback included, if a record carries one)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
        self.text = io.StringIO()

    def emit(self, record: logging.LogRecord) -> None:
        self.text.write(self.format(record) + "\n")

    def lines(self, *, about: str = "") -> list[str]:
        return [line for line in self.text.getvalue().splitlines() if about in line]


@pytest.fixture
def printed() -> Iterator[Lines]:
    handler = Lines()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


class Waits:
    """A recorded ``sleep``: how long each wait would have been; stops the loop after ``stop_after`` waits."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.waits: list[float] = []
        self.stop_after = stop_after

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self.stop_after is not None and len(self.waits) >= self.stop_after:
            raise KeyboardInterrupt  # what stops the real loop: the operator


class FakeBot:
    """A bot whose connection attempt fails with the next of ``outcomes`` (None: it runs, then stops cleanly)."""

    made = 0

    def __init__(self, outcomes: list[BaseException | None], *, connected: bool = False) -> None:
        self.outcomes = outcomes
        self.connected_once = connected
        self.closed = False
        FakeBot.made += 1

    async def __aenter__(self) -> FakeBot:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.closed = True

    async def start(self, token: str, *, reconnect: bool = True) -> None:
        outcome = self.outcomes.pop(0)
        if outcome is not None:
            raise outcome


def test_no_network_at_start_is_one_line_per_attempt_and_the_waits_double_up_to_the_cap(printed: Lines) -> None:
    outcomes: list[BaseException | None] = [dns_failure() for _ in range(9)] + [discord.LoginFailure("bad")]
    bots: list[FakeBot] = []

    def make() -> FakeBot:
        bots.append(FakeBot(outcomes))
        return bots[-1]

    waits = Waits()
    assert asyncio.run(serve(make, "token", sleep=waits)) == 1
    assert waits.waits == [5, 10, 20, 40, 80, 160, 300, 300, 300] and max(waits.waits) == RETRY_CAP
    assert len(bots) == 10 and all(b.closed for b in bots)  # a fresh bot per attempt, each closed
    lines = printed.lines(about="gammonbot")
    assert lines[0] == (
        "WARNING:gammonbot.discord:cannot reach Discord (discord.com:443: Name or service not known); retrying in 5 s"
    )
    assert lines[6].endswith("retrying in 300 s")
    assert lines[-1] == (
        "ERROR:gammonbot.discord:Discord refused the token in DISCORD_TOKEN (reset it in the developer portal)"
    )
    assert len(lines) == 10 and "Traceback" not in printed.text.getvalue()


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        (discord.GatewayNotFound(), "its gateway was not found"),
        (ConnectionRefusedError(111, "Connection refused"), "Connection refused"),
        (TimeoutError(), "no answer in time"),
        (aiohttp.ServerDisconnectedError(), "Server disconnected"),
        (discord.ConnectionClosed(SimpleNamespace(close_code=1006), shard_id=None), "code 1006"),
        (StorageUnreachable("Connect call failed ('127.0.0.1', 5432)"), "the database"),
    ],
)
def test_each_kind_of_network_trouble_is_retried_in_one_line(
    printed: Lines, failure: BaseException, reason: str
) -> None:
    outcomes: list[BaseException | None] = [failure, failure, None]
    waits = Waits()
    assert asyncio.run(serve(lambda: FakeBot(outcomes), "token", sleep=waits)) == 0
    assert waits.waits == [5, 10]
    lines = printed.lines(about="retrying in")
    assert len(lines) == 2 and all(reason in line for line in lines), lines
    assert "Traceback" not in printed.text.getvalue()


def test_a_bot_that_was_connected_starts_its_waits_over() -> None:
    outcomes: list[BaseException | None] = [dns_failure(), dns_failure(), dns_failure(), dns_failure(), None]
    connected = iter([False, False, True, False, False])
    waits = Waits()
    assert asyncio.run(serve(lambda: FakeBot(outcomes, connected=next(connected)), "t", sleep=waits)) == 0
    assert waits.waits == [5, 10, 5, 10]


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (discord.LoginFailure("Improper token has been passed."), "refused the token"),
        (discord.PrivilegedIntentsRequired(None), "refused the intents"),
        (discord.ConnectionClosed(SimpleNamespace(close_code=4004), shard_id=None), "refused the token"),
        (discord.ConnectionClosed(SimpleNamespace(close_code=4013), shard_id=None), "code 4013"),
    ],
)
def test_a_refusal_is_one_fatal_line_and_no_retry(printed: Lines, failure: BaseException, said: str) -> None:
    waits = Waits()
    assert asyncio.run(serve(lambda: FakeBot([failure]), "token", sleep=waits)) == 1
    assert waits.waits == []
    lines = printed.lines(about="gammonbot")
    assert len(lines) == 1 and lines[0].startswith("ERROR:") and said in lines[0], lines


def test_an_unexpected_error_is_not_hidden() -> None:
    with pytest.raises(ZeroDivisionError):
        asyncio.run(serve(lambda: FakeBot([ZeroDivisionError()]), "token", sleep=Waits()))


def test_unreachable_names_network_trouble_only() -> None:
    assert unreachable(dns_failure()) == "discord.com:443: Name or service not known"
    assert unreachable(ValueError("x")) is None
    assert unreachable(discord.LoginFailure()) is None


def test_the_gateway_reconnect_logs_of_discord_py_become_one_line(printed: Lines) -> None:
    quiet_reconnects()
    quiet_reconnects()  # once is enough: not two filters
    client_log, shard_log = logging.getLogger("discord.client"), logging.getLogger("discord.shard")
    assert sum(isinstance(f, OneLineReconnects) for f in client_log.filters) == 1
    try:
        raise dns_failure()
    except aiohttp.ClientError:
        client_log.exception("Attempting a reconnect in %.2fs", 0.734)
        shard_log.error("Attempting a reconnect for shard ID %s in %.2fs", 3, 12.5, exc_info=sys.exc_info()[1])
        shard_log.exception("Failed to connect for shard_id: %s. Retrying...", 1)
    client_log.exception("Attempting a reconnect in %.2fs", 1.0)  # no exception at hand: still one line
    logging.getLogger("discord.gateway").warning("Shard ID %s has stopped responding to the gateway.", 0)
    assert printed.lines(about="discord.") == [
        "WARNING:discord.client:cannot reach Discord (discord.com:443: Name or service not known); retrying in 0.7 s",
        "WARNING:discord.shard:cannot reach Discord (shard 3: discord.com:443: Name or service not known); "
        "retrying in 12 s",
        "WARNING:discord.shard:cannot reach Discord (shard 1: discord.com:443: Name or service not known); "
        "retrying in 5 s",
        "WARNING:discord.client:cannot reach Discord (no reason given); retrying in 1 s",
        "WARNING:discord.gateway:Shard ID 0 has stopped responding to the gateway.",
    ]
    assert "Traceback" not in printed.text.getvalue()


def test_gammonbot_run_without_network_retries_in_one_line_until_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, printed: Lines
) -> None:
    """The real command and the real bot: discord.py's login request fails as it does with no network (three times),
    then the operator presses Ctrl-C during a wait. The database was opened and closed before the first login."""
    calls: list[str] = []

    async def no_network(self: Any, token: str) -> None:
        calls.append(token)
        raise dns_failure()

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", no_network)
    waits = Waits(stop_after=3)
    monkeypatch.setattr(network, "wait", waits)
    monkeypatch.setenv("DISCORD_TOKEN", "abc.def.ghi")
    config = tmp_path / "config.toml"
    config.write_text(f'[storage]\nurl = "sqlite:///{tmp_path / "games.sqlite3"}"\n')
    assert main(["run", "--config", str(config)]) == 0
    assert calls == ["abc.def.ghi"] * 3 and waits.waits == [5, 10, 20]
    retries = printed.lines(about="cannot reach Discord")
    assert [line.rsplit(" ", 2)[-2] for line in retries] == ["5", "10", "20"]
    assert "Traceback" not in printed.text.getvalue()
    assert (tmp_path / "games.sqlite3").exists()  # the database is checked before logging in (issue 33)
