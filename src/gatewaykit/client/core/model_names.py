"""A misspelled model id, named with the closest id of the catalog: "did you mean 'image-pixels'?"."""

from __future__ import annotations

import difflib
from typing import Iterable, Optional

from gatewaykit.errors import GatewayError, ModelNotFoundError

__all__ = ["closest_model", "suggest_model"]


def closest_model(model: str, ids: Iterable[str]) -> Optional[str]:
    """The catalog id closest to ``model`` (a typo away), or None when none is close."""
    close = difflib.get_close_matches(model, list(ids), n=1, cutoff=0.6)
    return close[0] if close else None


def suggest_model(error: GatewayError, model: Optional[str], ids: Optional[Iterable[str]]) -> None:
    """Add "did you mean ...?" to a 400 ModelNotFoundError the gateway sent without one (the client knows
    the catalog; the real gateway's message need not suggest anything)."""
    if not isinstance(error, ModelNotFoundError) or error.status == 403 or not model or ids is None:
        return
    if "did you mean" in error.message.lower():
        return
    close = closest_model(model, ids)
    if close and close != model:
        error.message = f"{error.message.rstrip()} Did you mean {close!r}?"
        error.args = (error.message,)
