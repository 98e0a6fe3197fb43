"""The playground's quote beside Run: what the form's request would cost, as one short escaped line."""

from __future__ import annotations

from typing import Any

from gatewaykit.errors import GatewayError
from gatewaykit.money import format_usd
from gatewaykit.notebook.html_views import style

__all__ = ["quote_html"]


def quote_html(client: Any, entry: Any, request: dict[str, Any]) -> str:
    """``≈ $0.40 est. (catalog)`` for a video, song or image request; a chat says its cost comes after."""
    kind = entry.kind
    if kind == "chat":
        text, title = "cost reported after the run", "A chat's exact cost is reported with its answer."
    else:
        resource = {"image": client.images, "video": client.videos, "music": client.music}[kind]
        try:
            quote = resource.quote(**request)
        except GatewayError:
            return ""  # the form's own check message says what is wrong
        if quote.total_cost is None:
            text = "cost unknown before the run"
        else:
            text = f"≈ {format_usd(quote.total_cost)} est."
        title = quote.summary
    return (
        f'<span class="gk-quote" style="{style.MUTED};line-height:28px;margin-left:8px" '
        f'title="{style.esc(title)}">{style.esc(text)}</span>'
    )
