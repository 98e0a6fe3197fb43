"""Keeps a streamed answer or a waited-for job from showing twice in its own cell.

The live renderer (or ``wait_with_progress``) marks what it showed; a display formatter then skips
the first display of that object in the same cell, and shows it as usual anywhere else. A job still
running shows live wherever it is displayed. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import weakref
from typing import Any

from gatewaykit.notebook.cell_output.kernel import shell

__all__ = ["install_display_formatters", "mark_shown_live"]

_shown_live: dict[int, tuple["weakref.ref[Any]", Any]] = {}
_installed: "weakref.WeakSet[Any]" = weakref.WeakSet()


def mark_shown_live(obj: Any) -> None:
    """Record that ``obj`` is already on screen in the running cell."""
    ip = shell()
    if ip is None:
        return
    install_display_formatters(ip)
    key = id(obj)
    ref = weakref.ref(obj, lambda _ref: _shown_live.pop(key, None))
    _shown_live[key] = (ref, getattr(ip, "execution_count", None))


def _display_unless_shown(obj: Any) -> None:
    entry = _shown_live.pop(id(obj), None)
    ip = shell()
    if entry is not None and entry[0]() is obj and ip is not None and entry[1] == getattr(ip, "execution_count", None):
        return
    from IPython.display import display

    from gatewaykit.notebook.html_views.rendering import mimebundle
    from gatewaykit.types import Job, is_finished

    client = getattr(obj, "_client", None)
    if isinstance(obj, Job) and not is_finished(obj.status) and client is not None and not getattr(client, "_is_async", True):
        from gatewaykit.notebook.job_views.job_progress import JobProgress

        try:
            obj.refresh()  # show its state now, not the one it had when last polled
        except Exception:  # noqa: BLE001 - the live view retries and says so
            pass
        if is_finished(obj.status):
            display(mimebundle(obj), raw=True)
            return
        JobProgress(obj).start()  # live: updates in place from a thread, ends as the player
        return
    display(mimebundle(obj), raw=True)


def install_display_formatters(ip: Any) -> None:
    """Register the display formatter for live-shown types on ``ip`` (once)."""
    if ip in _installed:
        return
    from gatewaykit.client.session_tools.comparison import Comparison
    from gatewaykit.client.session_tools.evaluation import Evaluation
    from gatewaykit.types import ChatCompletion, MusicJob, VideoJob

    formatter = getattr(getattr(ip, "display_formatter", None), "ipython_display_formatter", None)
    if formatter is None:
        return
    for kind in (ChatCompletion, VideoJob, MusicJob, Comparison, Evaluation):
        formatter.for_type(kind, _display_unless_shown)
    _installed.add(ip)
