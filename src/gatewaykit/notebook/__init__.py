"""The notebook layer: rich display, live chat streams, job progress and players, magics.

Nothing here is imported by ``import gatewaykit``; the core reaches it lazily
(``GatewayModel._repr_mimebundle_`` → :func:`rendering.mimebundle`,
``chat.ask()`` → :func:`live.render_stream`, ``job.wait()`` →
:func:`jobs.wait_with_progress`, the offline fallback →
:func:`banner.show_offline_banner`). Importing this package is cheap; IPython,
ipywidgets, markdown-it-py and nh3 load on first use.

Modules: ``html``/``media_html`` (pure renderers), ``markdown`` (sanitising
Markdown), ``rendering`` (mimebundles), ``live`` (streamed chats), ``jobs``
(progress, dashboard), ``players`` (embedded media), ``cancel`` (buttons),
``banner``, ``magics``, ``sinks`` (where live views send messages),
``kernel`` (threads that publish to the right cell), ``display``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["render_stream", "show_progress", "wait_with_progress"]


def __getattr__(name: str) -> Any:
    if name == "render_stream":
        from gatewaykit.notebook.live import render_stream

        return render_stream
    if name in ("show_progress", "wait_with_progress"):
        from gatewaykit.notebook import job_progress

        return getattr(jobs, name)
    raise AttributeError(f"module 'gatewaykit.notebook' has no attribute {name!r}")
