"""Gallery thumbnails, made once per image and, in a kernel, in the background as images arrive.

Decoding a 1024² PNG and scaling it costs tens of milliseconds; a gallery of
200 images must still open in under a second. So in a kernel (where
``KernelDisplay`` calls :func:`install`) every image the session makes is
queued to one daemon thread that decodes it once and keeps two JPEG data URIs:
the card's thumbnail and the larger view it opens to. A gallery shown before
the thread got to an image makes that image's pair itself (under the same lock,
so never twice). Untrusted bytes are decoded with the gateway's limits (see
:func:`_reduced`): an image declaring more than 40 megapixels (a few KB of PNG
can) gets a placeholder instead of being decoded.
"""

from __future__ import annotations

import base64
import io
import queue
import threading
import warnings
from html import escape
from typing import Any, Optional

__all__ = ["LARGE_PX", "THUMB_PX", "image_uris", "install"]

THUMB_PX = 200
LARGE_PX = 640
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


def _placeholder_uri(text: str) -> str:
    """A small grey SVG saying why there is no preview (``text`` is ours: sizes and a format name)."""
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{THUMB_PX}" height="{THUMB_PX}">'
        '<rect width="100%" height="100%" fill="#8884"/><text x="50%" y="50%" font-family="sans-serif" '
        f'font-size="11" text-anchor="middle" fill="#555">{escape(text)}</text></svg>'
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _reduced(data: bytes) -> Any:
    """``data`` decoded to an RGB picture of at most LARGE_PX a side, or a str saying why not.

    The gateway's limits for untrusted images: PNG, JPEG, WebP or GIF only, at most
    ``MAX_IMAGE_PIXELS`` declared (read from the header before any pixel is decoded);
    JPEG decoded at a reduced scale (``draft``); other formats reduced before any
    conversion, so no full-size RGB copy is ever made.
    """
    from PIL import Image

    from gatewaykit.types.images import API_IMAGE_FORMATS, MAX_IMAGE_PIXELS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            opened = Image.open(io.BytesIO(data), formats=API_IMAGE_FORMATS)
        except Exception:  # noqa: BLE001 - not one of the formats, or Pillow's own bomb refusal
            return "no preview: not a PNG, JPEG, WebP or GIF"
        width, height = opened.size
        if width * height > MAX_IMAGE_PIXELS:
            return f"no preview: {width}×{height} px"
        if opened.format == "JPEG":
            opened.draft("RGB", (LARGE_PX, LARGE_PX))  # DCT scaling: up to 8x fewer pixels decoded
        try:
            opened.load()
        except Exception:  # noqa: BLE001 - corrupt or truncated
            return "no preview: damaged image"
    picture: Any = opened
    if picture.mode == "1":
        picture = picture.convert("L")  # resizing needs grey levels (same size in memory)
    elif picture.mode not in ("L", "LA", "RGB", "RGBA"):
        picture = picture.convert("RGBA" if "transparency" in picture.info or "A" in picture.mode else "RGB")
    picture.thumbnail((LARGE_PX, LARGE_PX), reducing_gap=2.0)
    if picture.mode in ("RGBA", "LA"):
        flat = Image.new("RGB", picture.size, (255, 255, 255))
        flat.paste(picture.convert("RGBA"), mask=picture.convert("RGBA").getchannel("A"))
        return flat
    return picture.convert("RGB")


def image_uris(item: Any) -> tuple[str, str]:
    """(thumbnail, larger view) of an image item, as JPEG data URIs (an SVG placeholder past the limits); made once."""
    key = id(item)
    made = _made.get(key)
    if made is not None:
        return made
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        made = _made.get(key)
        if made is None:
            picture = _reduced(item.media())
            if isinstance(picture, str):
                placeholder = _placeholder_uri(picture)
                made = _made[key] = (placeholder, placeholder)
            else:
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
