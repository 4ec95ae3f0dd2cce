"""KeyedLocks: one lock per key, the same while held or awaited, idle ones forgotten beyond the limit."""

from __future__ import annotations

import asyncio

from bot.locks import KeyedLocks


def test_one_lock_per_key_and_memory_stays_bounded() -> None:
    async def go() -> None:
        locks: KeyedLocks[int] = KeyedLocks(limit=3)
        assert locks(1) is locks(1) and locks(1) is not locks(2)
        held = locks(7)
        async with held:
            for key in range(100, 200):
                locks(key)
                assert len(locks) <= 4  # the limit, plus the one made after forgetting idle ones
            assert locks(7) is held  # never forgotten while held: two holders would break the exclusion

    asyncio.run(go())


def test_a_lock_someone_waits_for_is_kept_when_released() -> None:
    async def go() -> None:
        locks: KeyedLocks[str] = KeyedLocks(limit=1)
        lock = locks("game")
        order: list[str] = []

        async def second() -> None:
            async with locks("game"):
                order.append("second")

        await lock.acquire()
        task = asyncio.create_task(second())
        await asyncio.sleep(0)  # the second task now waits for the lock
        lock.release()  # released, its waiter not yet running: not idle
        assert locks("other") is not lock and locks("game") is lock
        await task
        assert order == ["second"]

    asyncio.run(go())
