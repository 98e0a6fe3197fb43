"""Cancel buttons for running video jobs (ipywidgets when available, else nothing).

The buttons live in their own output below the progress display; when the
jobs finish that output is blanked, so saved notebooks keep no widget state.
A front end without the widget manager shows a one-line text instead.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Optional

from gatewaykit.notebook.cell_output.kernel import in_kernel, route_to_frontend_subshell
from gatewaykit.types import is_finished

__all__ = ["CancelButtons", "FALLBACK_TEXT", "enable_colab_widgets"]

FALLBACK_TEXT = "(Cancel buttons need ipywidgets in the front end; job.cancel() works anywhere.)"


def enable_colab_widgets() -> None:
    """In Colab, turn on its widget manager for ipywidgets 8 (off by default there); elsewhere nothing."""
    import sys

    if "google.colab" not in sys.modules:
        return
    try:
        from google.colab import output

        output.enable_custom_widget_manager()
    except Exception:  # noqa: BLE001 - without it the buttons' text fallback shows instead
        pass


def cancellable(job: Any) -> bool:
    return getattr(job, "object", None) == "video" and callable(getattr(job, "cancel", None)) and not is_finished(job.status)


REVEAL_AFTER = 0.75  # seconds a job runs before its buttons show: one that ends sooner never flashes them
SHOWN_AT_LEAST = 0.5  # seconds shown buttons stay before their output is blanked


class CancelButtons:
    """One ``Cancel <id>`` button per running video job; ``progress.poll_soon()`` after a click.

    Their output is made at once, blank, right under the card (:meth:`show`), and becomes the buttons
    once the job has run ``REVEAL_AFTER`` seconds (:meth:`reveal_when_due`, from the card's repaints).
    Buttons shown and taken away within moments made JupyterLab log "Could not add child view to
    box" and a TypeError (notebook 07's failing video): the output was replaced while the widget
    manager was still building the box's views. So a job that fails at once never shows them, and
    shown ones stay ``SHOWN_AT_LEAST`` seconds."""

    def __init__(self, progress: Any, jobs: list[Any], widgets: Any) -> None:
        self._progress = progress
        self._handle: Optional[Any] = None
        self._shown_at: Optional[float] = None
        self._revealed_at: Optional[float] = None
        # Clicks may arrive on two threads at once (a kernel subshell and the wait's own pump): one cancel per job.
        self._lock = threading.Lock()
        self._cancelling: set[str] = set()
        self.buttons = []
        for job in jobs:
            label = "Cancel" if len(jobs) == 1 else f"Cancel {job.id}"
            button = widgets.Button(description=label, button_style="warning", icon="stop", tooltip=f"Cancel video job {job.id}")
            button.add_class("gk-cancel")
            button.on_click(lambda clicked, job=job: self._cancel(clicked, job))
            self.buttons.append(button)
        self.box = widgets.HBox(self.buttons)
        route_to_frontend_subshell(self.box)  # a click is handled at once, even while another cell runs

    @classmethod
    def create(cls, progress: Any, jobs: list[Any]) -> Optional["CancelButtons"]:
        """Buttons for the cancellable jobs, or None (no kernel, no ipywidgets, nothing to cancel)."""
        targets = [job for job in jobs if cancellable(job)]
        if not targets or not in_kernel():
            return None
        try:
            import ipywidgets
        except ImportError:
            return None
        enable_colab_widgets()
        try:
            return cls(progress, targets, ipywidgets)
        except Exception:  # noqa: BLE001 - no buttons rather than a traceback
            return None

    def _cancel(self, button: Any, job: Any) -> None:
        with self._lock:
            if job.id in self._cancelling:  # a second click (or the same click by another path): already on it
                return
            self._cancelling.add(job.id)
        button.disabled = True
        button.description = "Cancelling…"
        try:
            job.cancel()
        except Exception as exc:  # noqa: BLE001 - report on the button, never raise into the front end
            with self._lock:
                self._cancelling.discard(job.id)  # a failed cancel may be tried again
            button.disabled = False
            button.description = "Cancel failed"
            button.tooltip = f"{type(exc).__name__}: {exc}"
        else:
            button.description = "Cancelled"
        self._progress.poll_soon()

    def show(self) -> None:
        """Make the buttons' output, blank for now: :meth:`reveal_when_due` fills it."""
        from IPython.display import display

        self._handle = display({"text/plain": ""}, raw=True, display_id=True)
        self._shown_at = time.monotonic()

    def reveal_when_due(self) -> None:
        """Show the buttons once their job has run ``REVEAL_AFTER`` seconds since :meth:`show`."""
        handle, shown_at = self._handle, self._shown_at
        if handle is None or shown_at is None or self._revealed_at is not None:
            return
        now = time.monotonic()
        if now - shown_at < REVEAL_AFTER:
            return
        bundle = _widget_view_bundle(self.box)
        bundle["text/plain"] = FALLBACK_TEXT
        try:
            handle.update(bundle, raw=True)
        except Exception:  # noqa: BLE001 - no buttons rather than a traceback
            return
        self._revealed_at = now

    def remove(self) -> None:
        """Blank the buttons' output (if they were shown) and close the widgets (idempotent)."""
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        try:
            if self._revealed_at is not None:
                left = SHOWN_AT_LEAST - (time.monotonic() - self._revealed_at)
                if left > 0:  # their views may still be in the making: replaced now, the browser logs errors
                    time.sleep(left)
                handle.update({"text/plain": ""}, raw=True)
            self.box.close()
            for button in self.buttons:
                button.close()
        except Exception:  # noqa: BLE001
            pass


def _widget_view_bundle(widget: Any) -> dict[str, Any]:
    """The widget's view as a MIME bundle: ipywidgets 8 has ``_repr_mimebundle_``, 7 (Colab's) does not."""
    own = getattr(widget, "_repr_mimebundle_", None)
    if own is not None:
        return dict(own())
    view = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    return {"application/vnd.jupyter.widget-view+json": view}
