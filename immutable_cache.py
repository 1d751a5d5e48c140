"""A bounded LRU for values that never change for their key, shared by all requests: chain facts
(symbols, decimals, interfaces) and the analyses of GraphQL documents. Bounded in entries and in
bytes, since what it holds comes from untrusted contracts and clients."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any


class ImmutableCache:
    """Least recently used entries go first, once there are more than `size` or they weigh more
    than `max_bytes`."""

    def __init__(self, size: int, max_bytes: int) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> Any:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: tuple[Any, ...], value: Any, value_bytes: int | None = None) -> None:
        """`value_bytes` is what the value holds where `weight` cannot see it (a parsed document)."""
        size = weight(key) + (weight(value) if value_bytes is None else value_bytes)
        if size > self.max_bytes:
            return
        if key in self._items:
            self.bytes -= self._items.pop(key)[1]
        self._items[key] = (value, size)
        self.bytes += size
        while len(self._items) > self.size or self.bytes > self.max_bytes:
            self.bytes -= self._items.popitem(last=False)[1][1]

    def __len__(self) -> int:
        return len(self._items)


def weight(value: Any) -> int:
    """Roughly the bytes a value holds (a cached one, or JSON-RPC params): its text and data,
    plus a little per item."""
    if isinstance(value, (str, bytes)):
        return 48 + len(value)
    if isinstance(value, (tuple, list)):
        return 56 + sum(weight(item) for item in value)
    if isinstance(value, dict):
        return 56 + sum(weight(key) + weight(item) for key, item in value.items())
    return 32
