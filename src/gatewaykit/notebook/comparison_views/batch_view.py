"""``client.map`` / ``client.batch`` in a notebook: a live progress view, then a static summary.

``KernelDisplay.batch_progress(total)`` returns a :class:`LiveBatchProgress`.
The batch's worker threads only count (``item_done`` adds to a
:class:`~gatewaykit.client.core.display.BatchTally`); one painter thread, started
with the cell's parent header, repaints at most :data:`MAX_UPDATES_PER_SECOND`
times a second: done of total, failures, cost so far, an ETA. A batch that
ends within :data:`SHOW_AFTER` seconds never shows the live view (no flicker,
and a saved notebook's first output is the summary). ``close()`` leaves a
static summary without timings (done, failures, cost), so re-running a
notebook gives the same output.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from gatewaykit.client.core.display import BatchTally
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.cell_output.kernel import start_thread, threads_available
from gatewaykit.notebook.cell_output.sinks import DisplaySink, default_sink

__all__ = ["LiveBatchProgress", "MAX_UPDATES_PER_SECOND", "SHOW_AFTER", "batch_bundle"]

MAX_UPDATES_PER_SECOND = 10
SHOW_AFTER = 1.0  # seconds before the live view appears


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def batch_bundle(tally: BatchTally, *, elapsed: Optional[float] = None, final: bool = False) -> dict[str, Any]:
    """The view of a batch: a bar and a line while it runs; the summary when ``final``."""
    facts = [f"{tally.done} of {tally.total} done"]
    if tally.failures:
        facts.append(f"{tally.failures} failed")
    if tally.cost:
        facts.append(f"{style.format_cost(tally.cost)} so far" if not final else style.format_cost(tally.cost))
    if not final and elapsed is not None and 0 < tally.done < tally.total:
        left = elapsed / tally.done * (tally.total - tally.done)
        facts.append(f"about {style.format_seconds(left)} left")
    line = " · ".join(facts)
    fraction = tally.done / tally.total if tally.total else 1.0
    colour = "#198754" if not tally.failures else "#fd7e14"
    if final:
        mark = "✓" if not tally.failures else "⚠"
        head = f"{mark} {_plural(tally.total, 'request')}: {line}"
        plain = head
        html = f'<div class="gk-batch gk-batch-done" style="{style.MUTED};font-size:0.9em">{style.esc(head)}</div>'
        return {"text/plain": plain, "text/html": html}
    bar = (
        '<div style="height:6px;width:min(100%,360px);background:rgba(128,128,128,0.25);border-radius:3px">'
        f'<div class="gk-batch-fill" style="height:6px;width:{fraction * 100:.0f}%;background:{colour};'
        'border-radius:3px"></div></div>'
    )
    html = f'<div class="gk-batch">{bar}<div style="{style.MUTED};font-size:0.85em">{style.esc(line)}</div></div>'
    return {"text/plain": line, "text/html": html}


class LiveBatchProgress:
    """The ``BatchProgress`` a kernel gets: counts from any thread, paints from one."""

    def __init__(
        self,
        total: int,
        *,
        sink: Optional[DisplaySink] = None,
        clock: Callable[[], float] = time.monotonic,
        show_after: float = SHOW_AFTER,
        painter: bool = True,
    ) -> None:
        self.tally = BatchTally(total)
        self.sink = sink if sink is not None else default_sink()
        self._clock = clock
        self._started = clock()
        self._show_after = show_after
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._closed = threading.Event()
        self.shown = False
        self.paints = 0
        self._thread: Optional[threading.Thread] = None
        if painter and total and threads_available():
            self._thread = start_thread(self._run, name="gatewaykit-batch-progress")
        self._inline = bool(painter and total) and self._thread is None  # Pyodide (no thread): repaint as each ends

    def item_done(self, result: Any) -> None:
        with self._lock:
            self.tally.add(result)
        self._changed.set()
        if self._inline:
            self.paint()

    def settle(self, cost: float) -> None:
        with self._lock:
            self.tally.settle(cost)

    def paint(self) -> None:
        """Show or update the live view now (the painter thread calls this)."""
        with self._lock:
            bundle = batch_bundle(self.tally, elapsed=self._clock() - self._started)
        if self._closed.is_set():
            return
        if self.shown:
            self.sink.update(bundle)
        else:
            self.sink.show(bundle)
            self.shown = True
        self.paints += 1

    def _run(self) -> None:
        if self._closed.wait(self._show_after):
            return
        self.paint()
        while not self._closed.wait(1 / MAX_UPDATES_PER_SECOND):
            if self._changed.is_set():
                self._changed.clear()
                self.paint()

    def close(self) -> None:
        """The batch ended: the live view (or a new output) becomes the static summary."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._thread is not None:
            self._thread.join(1.0)
        with self._lock:
            bundle = batch_bundle(self.tally, final=True)
        if self.shown:
            self.sink.update(bundle)
        elif self.tally.total:
            self.sink.show(bundle)
