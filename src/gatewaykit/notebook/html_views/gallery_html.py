"""``render_gallery_html(gallery)``: this session's media as a grid of cards.

An image card is a thumbnail that opens (a ``<details>`` element: no script,
so it works in a saved notebook, nbconvert HTML and GitHub) to a larger view;
video and song cards are players. Each card says the model, the prompt, the
parameters, the cost (reported, "≈ … est." or not reported) and the time.
Thumbnails come from :mod:`gatewaykit.notebook.html_views.thumbnails` (made once, in a
kernel in the background as images arrive); at most :data:`SHOWN` of the most
recent items are drawn, with a line saying how to reach the rest.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from gatewaykit.notebook.html_views.thumbnails import image_uris
from gatewaykit.notebook.html_views.style import BOX, CODE, FOOTER, MUTED, esc, row_cost_text

__all__ = ["SHOWN", "render_gallery_html"]

SHOWN = 48
_CARD = "border:1px solid rgba(128,128,128,0.35);border-radius:6px;padding:6px;min-width:0;overflow:hidden;overflow-wrap:anywhere"
_GRID = "display:grid;gap:10px;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));align-items:start"


def _media_html(item: Any) -> str:
    if not item.ready:
        status = getattr(item.result, "status", "")
        return f'<div style="{MUTED};padding:2em 0;text-align:center">{esc(item.kind)} {esc(status)}</div>'
    if item.kind == "image":
        thumb, large = image_uris(item)
        alt = esc(item.prompt[:200])
        return (
            '<details class="gk-enlarge"><summary style="list-style:none;cursor:zoom-in">'
            f'<img src="{thumb}" alt="{alt}" style="width:100%;height:auto;display:block"/></summary>'
            f'<img src="{large}" alt="{alt}" style="width:100%;height:auto;margin-top:4px"/></details>'
        )
    from gatewaykit.notebook.html_views.players import media_player_html

    name = f"{item.job_id or item.kind}{'.mp4' if item.kind == 'video' else '.mp3'}"
    return media_player_html(item.media(), item.content_type, name)


def _card_html(item: Any) -> str:
    cost, source = item.cost()
    money = row_cost_text(cost, source)
    when = datetime.datetime.fromtimestamp(item.created).strftime("%H:%M:%S")
    params = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in sorted(item.params.items()))
    prompt = item.prompt if len(item.prompt) <= 160 else item.prompt[:159] + "…"
    return (
        f'<div class="gk-gallery-card" style="{_CARD}">{_media_html(item)}'
        f'<div style="margin-top:4px"><code style="{CODE}">{esc(item.model)}</code></div>'
        f'<div style="font-size:0.9em">{esc(prompt)}</div>'
        + (f'<div style="{MUTED};font-size:0.8em">{esc(params)}</div>' if params else "")
        + f'<div class="gk-footer" style="{FOOTER}">{esc(money)} · {esc(when)}</div></div>'
    )


def render_gallery_html(gallery: Any) -> str:
    """The gallery as cards, most recent :data:`SHOWN` items, oldest first."""
    items = list(gallery.items)
    if not items:
        return f'<div style="{BOX};{MUTED}">Nothing made yet in this session.</div>'
    hidden = max(0, len(items) - SHOWN)
    cards = "".join(_card_html(item) for item in items[hidden:])
    head = f'<div style="{MUTED};margin-bottom:6px">Gallery: {esc(gallery.summary() or "empty")}</div>'
    tail = (
        f'<div class="gk-footer" style="{FOOTER}">+ {hidden} earlier item{"s" if hidden != 1 else ""}: '
        f"gallery.save(folder) writes them all, gallery[i] is one</div>"
        if hidden
        else ""
    )
    return f'<div class="gk-gallery" style="{BOX}">{head}<div style="{_GRID}">{cards}</div>{tail}</div>'
