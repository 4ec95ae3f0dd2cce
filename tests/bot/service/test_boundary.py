"""Malformed values at the service's boundary (issue 33 item 22): a refusal naming what is wrong, never a traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.service import GameService, PlayerRef, Refused, Request
from bot.storage import Store

ANN, BEN = Request("ann", "Ann", "g"), Request("ben", "Ben", "g")


async def _refusal(call: Any) -> str:
    try:
        await call
    except Refused as exc:
        return str(exc)
    raise AssertionError("expected a refusal")


def test_surrogates_nuls_nan_and_huge_numbers_are_refused_naming_the_argument(tmp_path: Path) -> None:
    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        svc = GameService(store)
        said = await _refusal(svc.challenge(Request("cat", "Cat\ud83d", "g"), BEN, length=1))
        assert said == "challenger name has a character that cannot be stored (U+D83D): send it without that character"
        said = await _refusal(svc.challenge(ANN, PlayerRef("dan", "D\x00n"), length=1))
        assert said.startswith("opponent name has a character that cannot be stored (U+0000)")
        assert await _refusal(svc.challenge(ANN, BEN, length=float("nan"))) == "length must be a finite number, not nan"
        said = await _refusal(svc.challenge(ANN, BEN, time_control={"base": float("inf")}))
        assert said == "time control base must be a finite number, not inf"
        said = await _refusal(svc.vacation(ANN, 10**5000))
        assert said == "days is too large a number (more than 18 digits)"
        said = await _refusal(svc.player_settings(ANN, theme="dark\udc00"))
        assert said.startswith("theme has a character that cannot be stored (U+DC00)")
        # Nothing was stored meanwhile; a well-formed request is served as before.
        assert (await svc.challenge(ANN, BEN, length=1)).game.status == "challenge"
        await store.close()

    asyncio.run(go())


def test_resigning_at_a_level_of_thousands_of_digits_is_refused(tmp_path: Path) -> None:
    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        svc = GameService(store)
        gid = (await svc.accept((await svc.challenge(ANN, BEN, length=1)).game.id, BEN)).game.id
        levels = ("1" * 4301, "²")
        said = [await _refusal(svc.resign(gid, ANN, level)) for level in levels]
        assert said == [
            "resign a single game (1), a gammon (2) or a backgammon (3): '111111111111…' is not one of them",
            "resign a single game (1), a gammon (2) or a backgammon (3): '²' is not one of them",
        ]
        await store.close()

    asyncio.run(go())
