"""Async plumbing the reads share: a future several callers await, and the small awaitables that
keep an adapter's gathers regular."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


def shared_future(awaitable: Awaitable[T]) -> asyncio.Future[T]:
    """A task several callers await (each through asyncio.shield). Its outcome counts as
    retrieved even if every caller stopped waiting, so no "exception was never retrieved"."""
    future = asyncio.ensure_future(awaitable)
    future.add_done_callback(_retrieve)
    return future


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def no_read() -> None:
    """In a gather, the place of a read that this position does not need."""
    return None


async def known(value: T) -> T:
    """In a gather, the place of a read whose answer is known without it (a version without the view)."""
    return value


async def first(call: Awaitable[tuple[Any, ...]]) -> Any:
    """The first (often only) value a call returns."""
    return (await call)[0]
