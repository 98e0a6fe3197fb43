"""The notebook layer: rich display, live chat streams, job progress and players, magics.

Nothing here is imported by ``import gatewaykit`` and the core never names it:
``kernel_display.KernelDisplay`` implements the client's ``Display`` Protocol
(``chat.ask()`` → :func:`live.render_stream`, ``job.wait()`` →
:func:`job_wait.wait_with_progress`, the offline notice →
:func:`banner.show_offline_banner`), and :mod:`rendering` registers the rich
display of core objects with :mod:`gatewaykit.presentation`. The composition
root (``gatewaykit/_wiring.py``) plugs both in. Importing this package is cheap; IPython,
ipywidgets, markdown-it-py and nh3 load on first use.

Modules: ``html``/``media_html`` (pure renderers), ``markdown`` (sanitising
Markdown), ``rendering`` (mimebundles), ``live`` (streamed chats), ``job_progress``
(progress, dashboard), ``job_wait`` (a blocking wait: Cancel works, a short
interrupt), ``widget_events`` (widget clicks while a cell blocks), ``batch_view``
(many requests), ``players`` (embedded media), ``cancel`` (buttons),
``banner``, ``magics``, ``sinks`` (where live views send messages),
``kernel`` (threads that publish to the right cell), ``shown_once``,
``ledger_html`` (the ledger's table), ``kernel_display``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["render_stream", "show_progress", "wait_with_progress"]


def __getattr__(name: str) -> Any:
    if name == "render_stream":
        from gatewaykit.notebook.chat_views.live import render_stream

        return render_stream
    if name == "show_progress":
        from gatewaykit.notebook.job_views.job_progress import show_progress

        return show_progress
    if name == "wait_with_progress":
        from gatewaykit.notebook.job_views.job_wait import wait_with_progress

        return wait_with_progress
    raise AttributeError(f"module 'gatewaykit.notebook' has no attribute {name!r}")
