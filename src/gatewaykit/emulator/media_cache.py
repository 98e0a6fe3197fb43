"""A small bounded cache of rendered media, keyed by everything that shaped it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, TypeVar, cast

#: What the cache holds: encoded media (images, video clips), or encoded media with its
#: duration in seconds (songs). One cache serves every kind, so the budget is shared.
Rendered = TypeVar("Rendered", bytes, tuple[bytes, float])


def _size(item: bytes | tuple[bytes, float]) -> int:
    """Bytes of media in ``item`` (a song's duration costs nothing)."""
    return len(item) if isinstance(item, bytes) else len(item[0])


class MediaCache:
    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Any, bytes | tuple[bytes, float]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get_or_make(self, key: Any, make: Callable[[], Rendered]) -> Rendered:
        """The cached result for ``key``, or ``make()``'s (cached when it is at most a quarter of the budget).

        ``key`` must say what kind of result it is for (its first item is "image", "video",
        "song", ...), so a key always finds the type its ``make`` returns.
        """
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                # The key names the kind, so what it finds is what this ``make`` returns.
                return cast(Rendered, self._items[key])
        data = make()
        with self._lock:
            if key not in self._items and _size(data) <= self.max_bytes // 4:
                self._items[key] = data
                self._size += _size(data)
                while self._size > self.max_bytes:
                    _, old = self._items.popitem(last=False)
                    self._size -= _size(old)
        return data
