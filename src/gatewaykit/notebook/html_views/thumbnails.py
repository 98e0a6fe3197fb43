"""Gallery thumbnails, made once per image and, in a kernel, in the background as images arrive.

Decoding a 1024² PNG and scaling it costs tens of milliseconds; a gallery of
200 images must still open in under a second. So in a kernel (where
``KernelDisplay`` calls :func:`install`) every image the session makes is
queued to one daemon thread that decodes it once and keeps two JPEG data URIs:
the card's thumbnail and the larger view it opens to. A gallery shown before
the thread got to an image makes that image's pair itself (under the same lock,
so never twice). Untrusted bytes are opened only as PNG, JPEG, WebP or GIF.
"""

from __future__ import annotations

import base64
import io
import queue
import threading
from typing import Any, Optional

__all__ = ["LARGE_PX", "THUMB_PX", "image_uris", "install"]

THUMB_PX = 200
LARGE_PX = 640
_FORMATS = ["PNG", "JPEG", "WEBP", "GIF"]
_made: dict[int, tuple[str, str]] = {}  # id(item) -> (thumbnail, large); items live as long as the session
_locks: dict[int, threading.Lock] = {}
_guard = threading.Lock()
_queue: "queue.Queue[Any]" = queue.Queue()
_worker: Optional[threading.Thread] = None


def _jpeg_uri(picture: Any, size: int) -> str:
    copy = picture.copy()
    copy.thumbnail((size, size))
    out = io.BytesIO()
    copy.save(out, format="JPEG", quality=80)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def image_uris(item: Any) -> tuple[str, str]:
    """(thumbnail, larger view) of an image item, as JPEG data URIs; made once."""
    key = id(item)
    made = _made.get(key)
    if made is not None:
        return made
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        made = _made.get(key)
        if made is None:
            from PIL import Image

            opened = Image.open(io.BytesIO(item.media()), formats=_FORMATS)
            opened.draft("RGB", (LARGE_PX, LARGE_PX))  # JPEG: decode at a reduced scale
            picture = opened.convert("RGB")
            picture.thumbnail((LARGE_PX, LARGE_PX))
            made = _made[key] = (_jpeg_uri(picture, THUMB_PX), _jpeg_uri(picture, LARGE_PX))
    return made


def _work() -> None:
    while True:
        item = _queue.get()
        try:
            image_uris(item)
        except Exception:  # noqa: BLE001 - the gallery shows what it can; a bad image fails there, once
            pass
        finally:
            _queue.task_done()


def _prepare(item: Any) -> None:
    global _worker
    if item.kind != "image":
        return
    with _guard:
        if _worker is None:
            _worker = threading.Thread(target=_work, name="gatewaykit-thumbnails", daemon=True)
            _worker.start()
    _queue.put(item)


def install() -> None:
    """Make thumbnails in the background for every image this session makes from now on (idempotent)."""
    from gatewaykit.client.resources.session_media import session_media

    session_media.add_listener(_prepare)


def drain() -> None:
    """Wait until every queued image has its thumbnails (benchmarks and tests)."""
    _queue.join()
