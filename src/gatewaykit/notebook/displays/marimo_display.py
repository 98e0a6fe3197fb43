"""``MarimoDisplay``: the client's display in a running marimo notebook or app.

marimo has no IPython kernel: a cell's output is a stack of HTML items that
``marimo.output.append`` / ``replace_at_index`` rewrite while the cell runs.
:class:`MarimoSink` is one item of that stack, so the live views written for
Jupyter (the streamed answer, the batch view, a conversation turn with its
tool steps) run unchanged on it; a ``job.wait()`` shows the job card updated
at every poll, ending as the player. When the cell's last expression is the
result, marimo shows it in place of the live items (the same HTML), so nothing
shows twice.

marimo is imported only here, and this module only when the composition root
finds marimo already running. Every call into marimo is guarded: a failure
shows nothing and never raises into the user's cell.
"""

from __future__ import annotations

import html
import threading
import time
from typing import Any, Callable, Optional, TypeVar

from gatewaykit.client.core.display import BatchProgress, TurnView
from gatewaykit.client.core.streaming import AsyncChatStream, ChatStream
from gatewaykit.types import ChatCompletion

__all__ = ["MarimoDisplay", "MarimoSink"]

J = TypeVar("J")


def _html_of(bundle: dict[str, Any]) -> str:
    if "text/html" in bundle:
        return str(bundle["text/html"])
    if "text/plain" in bundle:
        return f"<pre>{html.escape(str(bundle['text/plain']))}</pre>"
    return ""


def _output_length() -> Optional[int]:
    """How many items the running cell's output has (None outside a marimo cell)."""
    try:
        from marimo._runtime.context import get_context

        context = get_context().execution_context
        return None if context is None else len(context.output)
    except Exception:  # noqa: BLE001 - marimo internals moved: fall back to append/replace
        return None


class MarimoSink:
    """One output item of the running marimo cell: ``show`` appends it, ``update`` replaces it in place."""

    def __init__(self) -> None:
        self._index: Optional[int] = None

    def show(self, bundle: dict[str, Any]) -> None:
        self.update(bundle)

    def update(self, bundle: dict[str, Any]) -> None:
        try:
            import marimo

            item = marimo.Html(_html_of(bundle))
            if self._index is None:
                self._index = _output_length()
                marimo.output.append(item)
            elif self._index < (_output_length() or 0):
                marimo.output.replace_at_index(item, self._index)
            else:
                marimo.output.append(item)
        except Exception:  # noqa: BLE001 - a display problem must never break the user's cell
            pass


def _job_bundle(job: Any, started: float) -> dict[str, Any]:
    """The job card: a progress bar while it runs, the player once it completed."""
    from gatewaykit.notebook.html_views import html as views
    from gatewaykit.notebook.html_views.rendering import mimebundle
    from gatewaykit.types import is_finished

    if is_finished(getattr(job, "status", None)):
        return mimebundle(job)
    progress = getattr(job, "progress", None)
    reported = float(progress) if isinstance(progress, (int, float)) else None
    return {"text/html": views.render_job_html(job, elapsed=time.monotonic() - started, reported=reported)}


class MarimoBatchProgress:
    """The notebook's live batch view, painted from a ``marimo.Thread`` (plain threads cannot reach the cell)."""

    def __init__(self, total: int) -> None:
        from gatewaykit.notebook.comparison_views.batch_view import LiveBatchProgress

        self._view = LiveBatchProgress(total, sink=MarimoSink(), painter=False)
        self._thread: Optional[threading.Thread] = None
        if total:
            try:
                import marimo

                self._thread = marimo.Thread(target=self._view._run, name="gatewaykit-batch-progress", daemon=True)
                self._thread.start()
            except Exception:  # noqa: BLE001 - no live painting: the summary still shows at close()
                self._thread = None
        self._view._thread = self._thread

    def item_done(self, result: Any) -> None:
        self._view.item_done(result)

    def settle(self, cost: float) -> None:
        self._view.settle(cost)

    def close(self) -> None:
        self._view.close()


class MarimoDisplay:
    """Live views in the running marimo cell."""

    def __init__(self) -> None:
        from gatewaykit.notebook.html_views import rendering  # noqa: F401 - registers the rich display of core objects

    def chat_stream(self, stream: ChatStream) -> ChatCompletion:
        from gatewaykit.notebook.chat_views.live import render_stream

        return render_stream(stream, sink=MarimoSink())

    async def async_chat_stream(self, stream: AsyncChatStream) -> ChatCompletion:
        from gatewaykit.notebook.chat_views.live import render_async_stream

        return await render_async_stream(stream, sink=MarimoSink())

    def job_wait(self, job: J, wait: Callable[[Optional[Callable[[Any], Any]]], J]) -> J:
        sink, started = MarimoSink(), time.monotonic()
        sink.show(_job_bundle(job, started))
        done = wait(lambda update: sink.update(_job_bundle(update, started)))
        sink.update(_job_bundle(done, started))
        return done

    def batch_progress(self, total: int) -> BatchProgress:
        return MarimoBatchProgress(total)

    def turn_view(self) -> TurnView:
        from gatewaykit.notebook.chat_views.turn_view import LiveTurnView

        return LiveTurnView(new_sink=MarimoSink)

    def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> Any:
        """Nothing live: the returned ``Comparison`` is the cell's output, the final grid."""
        from gatewaykit.client.core.comparison_view import NullComparisonView

        return NullComparisonView()

    def evaluate_view(self, evaluation: Any) -> Any:
        """Nothing live: the returned ``Evaluation`` is the cell's output, the final grid."""
        from gatewaykit.client.core.comparison_view import NullComparisonView

        return NullComparisonView()

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        from gatewaykit.notebook.html_views.html import render_offline_banner_html

        from gatewaykit.client.core.grading_switches import current_switches

        switches = current_switches().describe() if current_switches().offline else ""
        MarimoSink().show({"text/html": render_offline_banner_html(base_url, implicit=implicit, switches=switches)})

    def __repr__(self) -> str:
        return "MarimoDisplay()"
