"""A small bounded cache of rendered media, keyed by everything that shaped it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable


class MediaCache:
    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Any, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get_or_make(self, key: Any, make: Callable[[], bytes]) -> bytes:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        data = make()
        with self._lock:
            if key not in self._items and len(data) <= self.max_bytes // 4:
                self._items[key] = data
                self._size += len(data)
                while self._size > self.max_bytes:
                    _, old = self._items.popitem(last=False)
                    self._size -= len(old)
        return data
