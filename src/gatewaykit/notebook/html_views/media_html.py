"""Pure HTML for media: image grids, before/after edits, players and job cards.

Media is embedded as ``<video src="data:...">`` / ``<audio src="data:...">``,
never with a ``<source>`` child: JupyterLab's sanitizer strips a source's
``src`` when a notebook is reopened untrusted. Image sources must be inline
``data:image/...`` URIs or http(s) URLs; anything else is not rendered.
"""

from __future__ import annotations

import base64
import re
from typing import Any, Iterable, Optional, Sequence

from gatewaykit.notebook.html_views import style
from gatewaykit.types.replayed import not_charged_note
from gatewaykit.notebook.html_views.style import esc
from gatewaykit.types.jobs import is_finished, is_finishing

__all__ = [
    "image_data_uri",
    "job_cost",
    "render_audio_player_html",
    "render_edit_html",
    "render_image_grid_html",
    "render_job_html",
    "render_jobs_dashboard_html",
    "render_video_player_html",
    "sniff_image_type",
]

_IMAGE_URI = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$")


def sniff_image_type(head: bytes) -> str:
    """The MIME type of PNG, JPEG, GIF or WebP bytes (PNG when unknown)."""
    if head.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if head.startswith(b"GIF8"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return "image/png"


def image_data_uri(image: Any) -> Optional[str]:
    """A safe ``src`` for an ``ImageData``, raw bytes or a URI string; None if unusable."""
    if isinstance(image, (bytes, bytearray)):
        data = bytes(image)
        return f"data:{sniff_image_type(data[:16])};base64,{base64.b64encode(data).decode('ascii')}"
    b64 = getattr(image, "b64_json", None)
    if b64:
        try:
            head = base64.b64decode(b64[:24] + "=" * (-len(b64[:24]) % 4))
        except ValueError:
            return None
        return f"data:{sniff_image_type(head)};base64,{b64}"
    url = image if isinstance(image, str) else getattr(image, "url", None)
    if not url:
        return None
    if url.startswith("data:"):
        return url if _IMAGE_URI.match(url) else None
    return url if url.lower().startswith(("https://", "http://")) else None


def _figure(src: Optional[str], label: str, caption: str = "", width: str = "512px") -> str:
    if src is None:
        body = f'<div style="{style.MUTED}">({esc(label)}: no displayable image)</div>'
    else:
        body = (
            f'<img src="{esc(src)}" alt="{esc(label)}" '
            f'style="max-width:100%;height:auto;display:block;border-radius:4px">'
        )
    cap = f'<figcaption style="{style.MUTED};font-size:0.8em">{esc(caption)}</figcaption>' if caption else ""
    return f'<figure style="margin:0;max-width:min(100%,{width})">{body}{cap}</figure>'


def _grid(figures: Sequence[str]) -> str:
    return f'<div class="gk-image-grid" style="display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start">{"".join(figures)}</div>'


def _caption(text: Optional[str]) -> str:
    if not text:
        return ""
    return text if len(text) <= 200 else text[:199] + "…"


def render_image_grid_html(result: Any) -> str:
    """An image result: the image, or a grid of several, with a quiet footer."""
    data = list(result.data or [])
    width = "512px" if len(data) == 1 else "320px"
    figures = [
        _figure(image_data_uri(item), f"image {item.index + 1}", _caption(item.revised_prompt), width)
        for item in data
    ]
    count = f"{len(data)} image{'s' if len(data) != 1 else ''}"
    parts = [esc(result.model), esc(result.size), count]
    cached = not_charged_note(result)
    if cached:
        parts.append(esc(cached))
    elif result.usage is not None and result.usage.total_cost is not None:
        parts.append(esc(style.format_cost(result.usage.total_cost)))
    return f'<div class="gk-images" style="{style.BOX}">{_grid(figures)}{style.footer(parts)}</div>'


def render_edit_html(inputs: Iterable[Any], result: Any) -> str:
    """An edit: the input images beside the output."""
    sources = [_figure(image_data_uri(image), f"input {i + 1}", width="240px") for i, image in enumerate(inputs)]
    return (
        f'<div class="gk-edit" style="{style.BOX};display:flex;flex-wrap:wrap;gap:12px;align-items:center">'
        f"<div>{_grid(sources)}</div>"
        f'<div style="font-size:1.5em;{style.MUTED}">→</div>'
        f"<div>{render_image_grid_html(result)}</div></div>"
    )


def _safe_media_url(url: Optional[str]) -> str:
    """``url`` if it is a data: URI, http(s) or a relative path; "" for javascript: and other schemes."""
    from gatewaykit.notebook.markdown_html.markdown import is_safe_url

    if not url:
        return ""
    return url if url.lstrip().lower().startswith("data:") or is_safe_url(url) else ""


def _download_link(href: Optional[str], filename: str) -> str:
    href = _safe_media_url(href)
    if not href:
        return ""
    kind = filename.rpartition(".")[2].upper() if "." in filename else "file"  # the saved file keeps its whole name
    return (f'<div style="font-size:0.85em"><a href="{esc(href)}" download="{esc(filename)}" title="{esc(filename)}">'
            f"Download {esc(kind)}</a></div>")


def render_video_player_html(src: str, *, download_href: Optional[str] = None, filename: str = "video.mp4") -> str:
    """A playable ``<video>`` (``src`` a data URI or a file path) and a download link."""
    return (
        f'<video class="gk-video" controls preload="metadata" src="{esc(_safe_media_url(src))}" '
        f'style="max-width:100%;max-height:480px;display:block"></video>' + _download_link(download_href, filename)
    )


def render_audio_player_html(src: str, *, download_href: Optional[str] = None, filename: str = "audio.mp3") -> str:
    """A playable ``<audio>`` (``src`` a data URI or a file path) and a download link."""
    return (
        f'<audio class="gk-audio" controls preload="metadata" src="{esc(_safe_media_url(src))}" style="display:block;width:min(100%,480px)"></audio>'
        + _download_link(download_href, filename)
    )


# The bar sits below the status pill's line, never on it.
_TRACK = ("height:6px;width:min(100%,360px);background:rgba(128,128,128,0.25);border-radius:3px;overflow:hidden;"
          "margin:6px 0 2px")


def _progress_bar(elapsed: Optional[float], estimate: Optional[float], reported: Optional[float] = None,
                  queued: bool = False, guess: bool = False) -> str:
    """A bar while the job runs: the gateway's own ``progress`` (0-100) when it sends one, else
    elapsed/estimate; past the estimate (or with neither) a striped, moving "still working" bar.
    A queued job has not started: a striped bar that says so (no percentage beside a "queued" pill).
    A job the gateway says is 99 % done is finishing: a striped bar, never one stuck near the end nor
    one that jumps back to a time estimate. ``guess``: the estimate is the built-in first guess for the
    kind (no job of this model finished yet this session), not a measured "usually"."""
    if elapsed is None:
        return ""
    fraction: Optional[float] = None
    shown_elapsed = style.format_seconds(elapsed)
    if queued:
        label = f"waiting in the queue · {shown_elapsed}"
    elif is_finishing(reported):
        label = f"finishing · {shown_elapsed} elapsed"
    elif reported is not None:
        fraction = max(reported, 0) / 100
        label = f"{reported:.0f}% · {shown_elapsed} elapsed"
    elif estimate and elapsed < estimate:
        fraction = elapsed / estimate
        usually = "a first guess" if guess else f"usually {style.format_seconds(estimate)}"
        label = f"{shown_elapsed} elapsed · about {style.format_seconds(estimate - elapsed)} left ({usually})"
    elif estimate and not guess:
        label = f"{shown_elapsed} elapsed · taking longer than usual ({style.format_seconds(estimate)})"
    elif estimate:
        label = f"{shown_elapsed} elapsed · still working"
    else:
        label = f"{shown_elapsed} elapsed"
    if fraction is not None:
        fill = (
            f'<div class="gk-progress-fill" style="height:6px;width:{min(fraction, 0.99) * 100:.0f}%;'
            'background:#0d6efd;border-radius:3px"></div>'
        )
    else:  # indeterminate: stripes that move one step per repaint
        fill = (
            '<div class="gk-progress-busy" style="height:6px;width:100%;opacity:0.6;'
            "background:repeating-linear-gradient(45deg,#0d6efd 0 8px,rgba(13,110,253,0.25) 8px 16px);"
            f'background-position:{int(elapsed) * 6 % 32}px 0"></div>'
        )
    bar = f'<div class="gk-progress" style="{_TRACK}">{fill}</div>'
    return f'{bar}<div class="gk-elapsed" style="{style.MUTED};font-size:0.85em">{esc(label)}</div>'


def _job_kind(job: Any) -> str:
    return "music" if getattr(job, "object", None) == "audio" else "video"


def job_cost(job: Any) -> str:
    """What a completed job cost, as its client's ledger has it (``$0.40``, ``≈ $0.06 est.`` when the gateway
    reported no amount, ``cost not reported``); "" when the job has no client or ledger, or no row there."""
    ledger = getattr(getattr(job, "_client", None), "ledger", None)
    rows_as_recorded = getattr(ledger, "rows_as_recorded", None)
    if rows_as_recorded is None:
        return ""
    try:
        rows = [row for row in rows_as_recorded() if row.get("id") == job.id]
    except Exception:  # noqa: BLE001 - a card never fails over its cost line
        return ""
    if not rows:
        return ""
    return style.row_cost_text(rows[0].get("total_cost"), rows[0].get("cost_source"), rows[0].get("note"))


def render_job_html(
    job: Any,
    *,
    elapsed: Optional[float] = None,
    estimate: Optional[float] = None,
    player: str = "",
    hint: str = "",
    reported: Optional[float] = None,
    estimate_is_guess: bool = False,
    cost: str = "",
) -> str:
    """A video or music job: kind, model, status, billed size/length, progress, error or player.

    ``elapsed``/``estimate`` (seconds) and ``reported`` (the gateway's own 0-100
    ``progress``) add a progress bar; leave them out for a deterministic snapshot (``estimate_is_guess``: the
    estimate is the kind's built-in first guess, not this session's measured run time of the model). ``player`` is
    already-built player HTML; ``cost`` what the job cost, as its ledger row says (``≈ $0.06 est.``).
    """
    status = getattr(job, "status", None)
    facts = [esc(_job_kind(job)), f'<code style="{style.CODE}">{esc(getattr(job, "model", ""))}</code>']
    if getattr(job, "size", None):
        facts.append(esc(job.size))
    if getattr(job, "seconds", None):
        facts.append(f"{esc(job.seconds)}s")
    if cost:  # a finished job's, from the ledger (the job object carries none)
        facts.append(esc(cost))
    head = (
        f'<div>{style.status_badge(status)} {" · ".join(facts)} '
        f'<span style="{style.MUTED};font-size:0.8em">{esc(getattr(job, "id", ""))}</span></div>'
    )
    body = ""
    if not is_finished(status):
        body = _progress_bar(elapsed, estimate, reported, queued=status == "queued", guess=estimate_is_guess)
    error = getattr(job, "error", None)
    if status == "failed":
        message = getattr(error, "message", None) or "the job failed"
        body += f'<div class="gk-job-error" style="{style.ERROR_BOX};margin-top:4px">{esc(message)}</div>'
    if status in ("cancelled", "canceled", "deleted"):
        body += f'<div style="{style.MUTED};font-size:0.85em">Cancelled: a cancelled job is never charged.</div>'
    if player:
        body += f'<div style="margin-top:4px">{player}</div>'
    if hint:
        body += f'<div style="{style.MUTED};font-size:0.85em">{esc(hint)}</div>'
    return (
        f'<div class="gk-job" data-status="{esc(status)}" data-job-id="{esc(getattr(job, "id", ""))}" '
        f'style="{style.BOX};padding:4px 0">'
        f"{head}{body}</div>"
    )


def render_jobs_dashboard_html(cards: Sequence[str], statuses: Sequence[str]) -> str:
    """Several job cards (from :func:`render_job_html`) as one dashboard with a summary."""
    done = sum(is_finished(status) for status in statuses)
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    summary = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(counts.items()))
    return (
        f'<div class="gk-jobs" style="{style.BOX}">'
        f'<div style="font-weight:600">{len(statuses)} jobs · {done} finished'
        f' <span style="{style.MUTED};font-weight:normal">({esc(summary)})</span></div>'
        + "".join(f'<div style="border-top:1px solid rgba(128,128,128,0.3)">{card}</div>' for card in cards)
        + "</div>"
    )
