"""How core objects ask to be shown, without knowing who shows them.

Gateway types, errors and the ledger implement ``_repr_mimebundle_`` by calling
:func:`rich_bundle`. The presentation layer (the notebook package's ``rendering`` module)
registers the function that builds the rich bundle; until one is registered,
or when it fails, an object shows as ``text/plain`` only. The composition root
(``gatewaykit/_wiring.py``) registers a loader that imports the notebook layer
on the first display, so ``import gatewaykit`` stays light and a saved or
converted notebook still gets the HTML.

:func:`replayed_from_cassette` tells a display that a chat stream's answer is
one the client's cassette replayed (nothing sent, nothing charged), so the
notebook's live view and the terminal can say so.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

__all__ = ["Bundle", "Renderer", "register_renderer", "replayed_from_cassette", "rich_bundle"]

Bundle = dict[str, Any]
Renderer = Callable[[Any], Optional[Bundle]]

_renderer: Optional[Renderer] = None


def register_renderer(renderer: Optional[Renderer]) -> None:
    """Make ``renderer(obj)`` build every core object's display bundle (None: text only)."""
    global _renderer
    _renderer = renderer


def rich_bundle(obj: Any, plain: Optional[str] = None) -> Bundle:
    """``obj``'s display bundle: the registered renderer's, else (or on any error) ``text/plain``."""
    renderer = _renderer
    if renderer is not None:
        try:
            bundle = renderer(obj)
        except Exception:  # noqa: BLE001 - a display bug must never break the user's cell
            bundle = None
        if bundle:
            return bundle
    return {"text/plain": plain if plain is not None else _safe_repr(obj)}


def _safe_repr(obj: Any) -> str:
    try:
        return repr(obj)
    except Exception:  # noqa: BLE001
        return f"<{type(obj).__name__}>"


def replayed_from_cassette(stream: Any) -> bool:
    """Whether ``stream`` (a ``ChatStream``/``AsyncChatStream``) is an answer the client's cassette replayed.

    Its ledger hand-over knows, from the response extension only the cassette sets (never a header
    the network could send): the row it writes says ``cost_source="replayed"``. False for anything else.
    """
    recording = getattr(stream, "_recording", None)
    return getattr(recording, "replayed", False) is True
