"""The composition root: the one place that knows every layer and plugs the defaults in.

The client core only defines seams (the ``Display`` Protocol, an offline gateway provider, the
presentation registry); ``import gatewaykit`` runs :func:`install_defaults`, which plugs in, each loaded
only when first needed: the conversation layer, the display chooser (the notebook's ``KernelDisplay``
or ``MarimoDisplay``, else ``TerminalDisplay``), the offline gateway and the rich display of core
objects. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Optional

from gatewaykit.client.core.config import OFFLINE_EXTRA_HINT, OfflineGateway, set_offline_gateway_provider
from gatewaykit.client.core.display import Display, NullDisplay, in_kernel, in_marimo, set_default_display
from gatewaykit.client.resources.session_seam import set_session_factory
from gatewaykit.client.terminal_display import TerminalDisplay
from gatewaykit.errors import ConfigurationError
from gatewaykit.presentation import Bundle, register_renderer

__all__ = ["install_defaults"]

# Third-party modules the offline gateway needs; missing one means the extra is not installed.
_OFFLINE_DEPENDENCIES = frozenset({"starlette", "uvicorn", "multipart", "python_multipart", "numpy", "PIL", "av", "lameenc", "orjson"})


def choose_default_display() -> Display:
    """The notebook layer's display inside a kernel or marimo, plain text elsewhere."""
    if in_kernel():
        try:
            from gatewaykit.notebook.displays.kernel_display import KernelDisplay
        except ImportError:  # the notebook extra is not installed: plain behaviour
            return NullDisplay()
        return KernelDisplay()
    if in_marimo():
        try:
            from gatewaykit.notebook.displays.marimo_display import MarimoDisplay
        except ImportError:
            return TerminalDisplay()
        return MarimoDisplay()
    return TerminalDisplay()


def start_offline_gateway() -> OfflineGateway:
    """The process-wide offline gateway (started on first use)."""
    from gatewaykit.client.core.grading_switches import current_switches

    switches = current_switches()  # GATEWAYKIT_SEED / GATEWAYKIT_OFFLINE: a reproducible gateway, jobs done at once
    if sys.platform == "emscripten":
        raise ConfigurationError(
            "No API key was found, and the offline gateway is a server, which cannot run in a browser page "
            "(Pyodide, JupyterLite): pass api_key= and base_url= (or set SVC_API_KEY and SVC_BASE_URL) for your "
            "class's classroom or a gateway, started with --cors-origin for this page's origin"
        )
    try:
        emulator = importlib.import_module("gatewaykit.emulator")
        return emulator.shared(  # type: ignore[no-any-return]
            seed=switches.offline_seed, time_scale=switches.offline_time_scale, reproducible=switches.grading
        )
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in _OFFLINE_DEPENDENCIES:
            raise
        raise ConfigurationError(
            f"The offline gateway needs packages that are not installed ({missing}): install them with "
            f'{OFFLINE_EXTRA_HINT}, or set SVC_API_KEY and SVC_BASE_URL to use a real gateway'
        ) from exc


def render_with_notebook_layer(obj: Any) -> Optional[Bundle]:
    """First display: import the notebook layer (it registers its renderer) and render with it."""
    try:
        rendering = importlib.import_module("gatewaykit.notebook.html_views.rendering")
    except ImportError:
        register_renderer(None)
        return None
    return rendering.mimebundle(obj)  # type: ignore[no-any-return]


def chat_session(client: Any, **settings: Any) -> Any:
    """``client.chat.session(...)``: a ``ChatSession`` (the conversation layer loads here, on first use)."""
    from gatewaykit.client.conversation import ChatSession

    return ChatSession(client, **settings)


def async_chat_session(client: Any, **settings: Any) -> Any:
    """``aclient.chat.session(...)``: an ``AsyncChatSession``."""
    from gatewaykit.client.conversation import AsyncChatSession

    return AsyncChatSession(client, **settings)


def install_defaults() -> None:
    set_session_factory("ChatSession", chat_session)
    set_session_factory("AsyncChatSession", async_chat_session)
    set_default_display(choose_default_display)
    set_offline_gateway_provider(start_offline_gateway)
    register_renderer(render_with_notebook_layer)
