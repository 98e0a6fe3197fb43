"""The seam the conversation layer plugs into: what ``client.chat.session()`` builds.

The conversation layer (``client/conversation/``) is built on the public client,
so the client core never imports it. The composition root
(``gatewaykit._wiring``) registers a factory per session type here, by name
(``"ChatSession"``, ``"AsyncChatSession"``); ``Chat.session`` looks its own up.
Registering imports nothing: the conversation layer loads with the first session.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["session_factory", "set_session_factory"]

_factories: dict[str, Callable[..., Any]] = {}


def set_session_factory(name: str, factory: Callable[..., Any]) -> None:
    """``factory(client, **settings)`` builds the session type ``name``."""
    _factories[name] = factory


def session_factory(name: str) -> Callable[..., Any]:
    try:
        return _factories[name]
    except KeyError:  # pragma: no cover - the composition root always plugs them in
        raise RuntimeError(
            f"no conversation layer is installed for {name} (gatewaykit._wiring.install_defaults plugs it in)"
        ) from None
