"""What this session made: every image, video and song, with the prompt and parameters that made it.

The ledger keeps costs but, on purpose, no prompts or media; the gallery
(``gk.gallery()``) needs both. Every image result and every job a client of
this process creates is remembered here, in memory only (nothing is written,
nothing outlives the process): the prompt, the parameters (without media
inputs), the ledger tags in force, and the result itself. A job's media is
fetched once, the first time something asks for it, and kept.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["MadeItem", "SessionMedia", "session_media"]

_BULKY = frozenset({"prompt", "lyrics_prompt", "input_reference", "image", "image[]", "messages"})


@dataclass
class MadeItem:
    """One image (of an image result), video or song made in this session."""

    kind: str  # "image", "video" or "music"
    model: Optional[str]
    prompt: str
    params: dict[str, Any]
    created: float
    tags: tuple
    result: Any  # ImageResult (with ``index``), VideoJob or MusicJob
    index: int = 0
    ledger: Any = None
    occurrence: int = 0  # how many earlier items are the same job (a re-run answered by the cache)
    _media: Optional[bytes] = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def job_id(self) -> Optional[str]:
        return None if self.kind == "image" else getattr(self.result, "id", None)

    @property
    def ready(self) -> bool:
        """Whether there is media to show (an image always; a job once completed)."""
        return self.kind == "image" or getattr(self.result, "status", None) == "completed"

    def media(self) -> bytes:
        """The media bytes: the image, or the job's content (fetched once, then kept)."""
        if self.kind == "image":
            return bytes(self.result.data[self.index].content)
        with self._lock:
            if self._media is None:
                self._media = self.result.content()
            return self._media

    @property
    def content_type(self) -> str:
        if self.kind == "image":
            from gatewaykit.types.images import image_extension

            return "image/" + image_extension(self.result.data[self.index].content).lstrip(".").replace("jpg", "jpeg")
        return "video/mp4" if self.kind == "video" else "audio/mpeg"

    def cost(self) -> tuple[Optional[float], str]:
        """(USD, source): an image result's reported share; a job's ledger row (estimated or not reported)."""
        if self.kind == "image":
            if "gatewaykit_cache" in (getattr(self.result, "model_extra", None) or {}):
                return 0.0, "cached"  # answered by the response cache: nothing was charged
            usage = getattr(self.result, "usage", None)
            total = getattr(getattr(usage, "cost", None), "total_cost", None)
            count = max(1, len(getattr(self.result, "data", None) or []))
            return (None, "not reported") if total is None else (total / count, "reported")
        rows = [row for row in getattr(self.ledger, "rows", None) or [] if row.get("id") == self.job_id]
        if not rows:
            return None, "not reported"
        row = rows[min(self.occurrence, len(rows) - 1)]  # the job's own row, then one per cached re-run
        return row.get("total_cost"), str(row.get("cost_source") or "not reported")


class SessionMedia:
    """The process's list of :class:`MadeItem`, in the order they were made (thread-safe)."""

    def __init__(self) -> None:
        self._items: list[MadeItem] = []
        self._lock = threading.Lock()
        self._listeners: list[Any] = []

    def add_listener(self, listener: Any) -> None:
        """Call ``listener(item)`` for every item made from now on (e.g. to make thumbnails early); once each."""
        with self._lock:
            if listener not in self._listeners:
                self._listeners.append(listener)

    def remember(self, kind: str, body: dict[str, Any], result: Any, ledger: Any) -> None:
        """Called by the client when an image result arrives or a job is created."""
        try:
            tags = tuple(getattr(ledger, "current_tags", ()) or ())
            prompt = str(body.get("prompt") or "")
            params = {k: v for k, v in body.items() if k not in _BULKY and k != "model"}
            now = time.time()
            if kind == "image":
                made = [
                    MadeItem("image", body.get("model"), prompt, params, now, tags, result, index=i, ledger=ledger)
                    for i in range(len(getattr(result, "data", None) or []))
                ]
            else:
                made = [MadeItem(kind, body.get("model"), prompt, params, now, tags, result, ledger=ledger)]
        except Exception:  # noqa: BLE001 - the gallery must never break a request
            return
        with self._lock:
            for item in made:
                if item.job_id is not None:
                    item.occurrence = sum(1 for earlier in self._items if earlier.job_id == item.job_id)
            self._items.extend(made)
            listeners = list(self._listeners)
        for listener in listeners:
            for item in made:
                try:
                    listener(item)
                except Exception:  # noqa: BLE001 - a listener must never break a request
                    pass

    def items(self) -> list[MadeItem]:
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


session_media = SessionMedia()
"""Everything this process made (``gk.gallery()`` reads it)."""
