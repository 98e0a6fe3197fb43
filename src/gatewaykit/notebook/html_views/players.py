"""Players for finished jobs: media bytes to an embedded, playable element.

Small media is embedded inline (``src="data:video/mp4;base64,..."``) so it
plays in a reopened notebook, nbconvert HTML, Binder and Colab with no
kernel. Colab truncates large outputs, so past :data:`EMBED_LIMIT` bytes of
output the media is saved next to the notebook (``gatewaykit-media/``) and
the player and the download link point at the file instead.
"""

from __future__ import annotations

import base64
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any, Optional

from gatewaykit.notebook.html_views.media_html import render_audio_player_html, render_video_player_html
from gatewaykit.notebook.html_views.style import esc

__all__ = ["EMBED_LIMIT", "MEDIA_DIR", "job_player_html", "media_player_html"]

EMBED_LIMIT = 8 * 1024 * 1024  # bytes of base64 one player may add to a cell's output
MEDIA_DIR = "gatewaykit-media"
_SUFFIX = {"video/mp4": ".mp4", "audio/mpeg": ".mp3", "audio/mp3": ".mp3", "video/webm": ".webm"}
_PLAYERS: "OrderedDict[tuple, str]" = OrderedDict()  # (id, completed_at, url) of a finished job -> player HTML
_PLAYER_CACHE_SIZE = 32


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name)[:120] or "media"


def media_player_html(
    content: bytes,
    content_type: str,
    name: str,
    *,
    limit: int = EMBED_LIMIT,
    directory: Optional[Path] = None,
) -> str:
    """An ``<audio>``/``<video>`` player and a download link for ``content``.

    Both inline when twice the base64 fits in ``limit``; the player inline and
    the download from a saved file when once fits; otherwise both from the file.
    """
    filename = _safe_name(name)
    encoded_size = 4 * ((len(content) + 2) // 3)
    src = download = None
    if encoded_size <= limit:
        src = f"data:{content_type};base64,{base64.b64encode(content).decode('ascii')}"
        if 2 * encoded_size <= limit:
            download = src
    if download is None:
        folder = directory if directory is not None else Path.cwd() / MEDIA_DIR
        folder.mkdir(parents=True, exist_ok=True)
        (folder / filename).write_bytes(content)
        relative = f"{MEDIA_DIR}/{filename}" if directory is None else str(folder / filename)
        download = relative
        src = src or relative
    assert src is not None and download is not None  # both set above: inline or from the saved file
    if content_type.startswith("audio/"):
        return render_audio_player_html(src, download_href=download, filename=filename)
    return render_video_player_html(src, download_href=download, filename=filename)


def _links(job: Any) -> list[Any]:
    return list(getattr(job, "videos", None) or getattr(job, "audio", None) or [])


def _of_an_async_client(job: Any) -> bool:
    try:
        return bool(getattr(job._bound(), "_is_async", False))
    except Exception:  # noqa: BLE001 - a job of no client (unpickled, built by hand): fetched as it can
        return False


def _linked_player(url: str, content_type: str, name: str) -> str:
    """A player whose source is the gateway's media link (an http(s) URL), for a job whose bytes need an await."""
    if not url.lower().startswith(("https://", "http://")):
        raise TypeError("an AsyncClient's job has no playable link: `await job.content()` gives its bytes")
    if content_type.startswith("audio/"):
        return render_audio_player_html(url, download_href=url, filename=_safe_name(name))
    return render_video_player_html(url, download_href=url, filename=_safe_name(name))


def job_player_html(job: Any) -> str:
    """The player for a completed job (cached per job id); a link or a note if content is unavailable."""
    job_id = str(getattr(job, "id", ""))
    links = _links(job)
    key = (job_id, getattr(job, "completed_at", None), links[0].url if links else None)
    if key in _PLAYERS:
        _PLAYERS.move_to_end(key)
        return _PLAYERS[key]
    is_music = getattr(job, "object", None) == "audio"
    content_type = (links[0].content_type if links else None) or ("audio/mpeg" if is_music else "video/mp4")
    fetch = getattr(job, "content", None)
    try:
        if not callable(fetch):
            raise TypeError("this job object cannot fetch its content")
        if _of_an_async_client(job):  # its bytes need an await, which a display cannot: the gateway's link plays
            html = _linked_player(links[0].url if links else "", content_type, job_id + _SUFFIX.get(content_type, ".bin"))
        else:
            html = media_player_html(fetch(), content_type, job_id + _SUFFIX.get(content_type, ".bin"))
    except Exception as exc:  # noqa: BLE001 - show what we can instead of a traceback
        url = links[0].url if links else ""
        link = ""
        if url.lower().startswith(("https://", "http://")):
            link = f' <a href="{esc(url)}">{esc(url)}</a>'
        return f'<div style="opacity:0.65">media not embedded ({esc(type(exc).__name__)}: {esc(exc)}).{link}</div>'
    _PLAYERS[key] = html
    while len(_PLAYERS) > _PLAYER_CACHE_SIZE:
        _PLAYERS.popitem(last=False)
    return html
