"""``client.compare`` in a notebook: the grid at once, each column filled as its model answers.

``KernelDisplay.compare_view(...)`` returns a :class:`LiveComparisonView` that shows every column
waiting, streams a chat column through the live chat renderer, shows a job column's progress, and
ends as the static grid the returned ``Comparison`` displays. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.comparison_html import column_footer, column_shell, finished_body, grid_html
from gatewaykit.notebook.cell_output.kernel import start_thread, threads_available
from gatewaykit.notebook.cell_output.sinks import DisplaySink, default_sink

__all__ = ["LiveComparisonView", "UPDATES_PER_SECOND", "repaint_until_closed"]

UPDATES_PER_SECOND = 15
_CLOCK_EVERY = 1.0  # seconds between repaints that only move the running columns' clocks


def repaint_until_closed(
    closed: threading.Event, changed: threading.Event, clock: Callable[[], float], paint: Callable[[], None],
    per_second: float,
) -> None:
    """A live grid's painter thread: ``paint()`` at most ``per_second`` times a second when ``changed`` is set,
    and every :data:`_CLOCK_EVERY` seconds anyway (the running cells' clocks move), until ``closed`` is set."""
    last = clock()
    while not closed.wait(1 / per_second):
        now = clock()
        if changed.is_set() or now - last >= _CLOCK_EVERY:
            changed.clear()
            last = now
            paint()


class _ColumnSink:
    """Where a chat column's live renderer sends its view: kept for the grid's next paint, not shown itself."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self.html = ""
        self._changed = changed

    def show(self, bundle: dict[str, Any]) -> None:
        self.html = str(bundle.get("text/html", ""))
        self._changed()

    update = show


class _Column:
    """One model's column while the comparison runs."""

    def __init__(self, entry: Any, changed: Callable[[], None]) -> None:
        self.entry = entry
        self.state = "waiting"
        self.started: Optional[float] = None
        self.job: Any = None
        self.sink = _ColumnSink(changed)
        self.renderer: Any = None
        self.final_html: Optional[str] = None  # rendered once, when the column finished

    def html(self, now: float) -> str:
        entry = self.entry
        if self.state == "done":
            if self.final_html is None:
                self.final_html = column_shell(entry.model, finished_body(entry), column_footer(entry),
                                               state="failed" if entry.error is not None else "")  # fmt: skip
            return self.final_html
        elapsed = None if self.started is None else now - self.started
        clock = style.format_seconds(elapsed) if elapsed is not None else ""
        if self.sink.html:
            body = self.sink.html
        elif self.job is not None:
            from gatewaykit.notebook.html_views.media_html import render_job_html

            progress = getattr(self.job, "progress", None)
            reported = float(progress) if isinstance(progress, (int, float)) else None
            body = render_job_html(self.job, elapsed=elapsed, reported=reported)
        else:
            note = "running…" if self.state == "running" else "waiting for its turn…"
            body = f'<div class="gk-compare-pending" style="{style.MUTED}">{note}</div>'
        return column_shell(entry.model, body, style.esc(clock), state=self.state)


class LiveComparisonView:
    """The ``ComparisonView`` a kernel gets: records from the workers, paints from one thread."""

    streams = True

    def __init__(
        self,
        prompt: str,
        kind: str,
        entries: list[Any],
        *,
        sink: Optional[DisplaySink] = None,
        clock: Callable[[], float] = time.monotonic,
        painter: bool = True,
    ) -> None:
        self.prompt, self.kind = prompt, kind
        self.sink = sink if sink is not None else default_sink()
        self._clock = clock
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._closed = threading.Event()
        self._columns = {id(entry): _Column(entry, self._changed.set) for entry in entries}
        self.paints = 0
        self.sink.show(self._bundle())  # the grid at once, every column waiting
        threads = painter and threads_available()
        self._thread = start_thread(self._run, name="gatewaykit-compare-view") if threads else None
        self._inline = bool(painter) and self._thread is None  # Pyodide (no thread): repaint as each ends

    def _column(self, entry: Any) -> _Column:
        return self._columns[id(entry)]

    def started(self, entry: Any) -> None:
        column = self._column(entry)
        with self._lock:
            column.state, column.started = "running", self._clock()
        if entry.kind == "chat":
            from gatewaykit.notebook.chat_views.live_renderer import LiveChatRenderer

            column.renderer = LiveChatRenderer(column.sink, model=entry.model, clock=self._clock)
            column.renderer.start()
        self._changed.set()

    def chunk(self, entry: Any, chunk: Any) -> None:
        renderer = self._column(entry).renderer
        if renderer is not None:
            renderer.feed(chunk)  # the renderer throttles; its sink only keeps the HTML

    def job_update(self, entry: Any, job: Any) -> None:
        self._column(entry).job = job
        self._changed.set()

    def finished(self, entry: Any) -> None:
        column = self._column(entry)
        if column.renderer is not None and entry.error is None and entry.result is not None:
            column.renderer.done(entry.result)  # completes the incremental Markdown the final answer reuses
        with self._lock:
            column.state = "done"
        self._changed.set()
        if self._inline:
            self.paint()

    def _bundle(self) -> dict[str, Any]:
        now = self._clock()
        with self._lock:
            columns = [column.html(now) for column in self._columns.values()]
        done = sum(1 for column in self._columns.values() if column.state == "done")
        plain = f"{self.kind} comparison: {done} of {len(columns)} models finished"
        return {"text/plain": plain, "text/html": grid_html(self.prompt, self.kind, columns)}

    def paint(self) -> None:
        """Repaint the grid now (the painter thread calls this)."""
        if self._closed.is_set():
            return
        self.sink.update(self._bundle())
        self.paints += 1

    def _run(self) -> None:
        repaint_until_closed(self._closed, self._changed, self._clock, self.paint, UPDATES_PER_SECOND)

    def close(self, comparison: Any) -> None:
        """Every column ended: the grid becomes the static comparison (marks included), shown once."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._thread is not None:
            self._thread.join(5.0)
        from gatewaykit.notebook.html_views.rendering import mimebundle
        from gatewaykit.notebook.job_views.shown_once import mark_shown_live

        self.sink.update(mimebundle(comparison))
        mark_shown_live(comparison)
