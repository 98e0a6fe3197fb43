"""The notebook layer: rich display, live chat streams, job progress and players, magics.

Nothing here is imported by ``import gatewaykit`` and the core never names it:
``displays.kernel_display.KernelDisplay`` implements the client's ``Display`` Protocol and
``html_views.rendering`` registers the rich reprs, both plugged in by the composition root.
The sub-packages and their order: ``docs/internals.md``.
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
