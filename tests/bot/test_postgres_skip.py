"""A PostgreSQL URL naming no server skips the PostgreSQL tests with the reason, instead of erroring each."""

from __future__ import annotations

import socket

from tests.bot.conftest import postgres_unreachable


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_url_naming_no_server_gives_the_reason_once() -> None:
    port = _free_port()
    url = f"postgresql://postgres@127.0.0.1:{port}/test"
    why = postgres_unreachable(url)
    assert why, "a URL naming no server must give a reason to skip"
    assert str(port) in why or "refused" in why.lower(), why
    assert postgres_unreachable(url) == why  # asked once, remembered
