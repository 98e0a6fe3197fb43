"""``client.videos.quote(...)``, ``client.music.quote(...)``, ``client.images.quote(...)``: a price, nothing sent.

A quote takes the arguments its ``create``/``generate`` takes, checks them
against the model's catalog entry as the call would (an unknown model or a
value the model does not offer raises the same error class, naming it), and
prices the request: the ledger's price table first, then the prices the
gateway's catalog states (:mod:`gatewaykit.costs.catalog_prices`). Nothing is
sent but the one catalog read a client makes anyway; nothing is recorded.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Callable, Optional

from gatewaykit.costs.quotes import Quote
from gatewaykit.errors import ModelNotFoundError

if TYPE_CHECKING:
    from gatewaykit.client.core.base import BaseClient
    from gatewaykit.client.core.flows import Flow

__all__ = ["quote_flow"]


def quote_flow(
    client: "BaseClient", kind: str, body: dict[str, Any], check: Callable[..., None], **check_options: Any
) -> "Flow[Quote]":
    """Check ``body`` against the catalog as the call would, then price it (a :class:`Quote`)."""
    model: Optional[str] = body.get("model")
    entry = yield from client._catalog_entry(model)
    catalog = client._catalog
    if entry is None and catalog is not None:
        known = [m.id for m in catalog.data if m.kind == kind.split(".")[0]]
        close = difflib.get_close_matches(str(model), known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ModelNotFoundError(
            f"model {model!r} is not in this gateway's catalog, so it cannot be quoted{hint} "
            f"({kind} models: {', '.join(known) or 'none'}); nothing was sent",
            status=400, code="model_not_found", param="model",
        )  # fmt: skip
    if entry is not None:
        check(entry, body, **check_options)
    return client._quote(kind, model, body)
