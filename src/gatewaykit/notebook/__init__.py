"""The notebook layer: rich display, live chat streams, job progress and players, magics.

Nothing here is imported by ``import gatewaykit`` and the core never names it:
``displays.kernel_display.KernelDisplay`` implements the client's ``Display`` Protocol
(``chat.ask()`` → :func:`chat_views.live.render_stream`, ``job.wait()`` →
:func:`job_views.job_wait.wait_with_progress`, the offline notice →
:func:`displays.banner.show_offline_banner`), and :mod:`html_views.rendering` registers the rich
display of core objects with :mod:`gatewaykit.presentation`. The composition
root (``gatewaykit/_wiring.py``) plugs both in. Importing this package is cheap; IPython,
ipywidgets, markdown-it-py and nh3 load on first use.

Packages, top to bottom (each imports only those below it; an exhaustive
import-linter contract in pyproject.toml): ``displays/`` (``KernelDisplay``,
``MarimoDisplay``, the banner and warning card) beside ``magics`` (``%%chat``,
``%%image``); ``widgets/`` (the chat box, the playground, the confirm card);
``comparison_views/`` (``compare``'s live grid, ``map``/``batch`` progress);
``chat_views/`` (streamed answers, conversation turns); ``job_views/`` (job
progress, a blocking ``job.wait()``, Cancel, ``shown_once``); ``cell_output/``
(the kernel, sinks, widget events while a cell blocks); ``html_views/`` (pure
HTML for every object, ``rendering``'s mimebundles); ``markdown_html/`` (model
text to safe HTML).
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
