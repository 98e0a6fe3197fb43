"""``client.evaluate`` in a notebook: the grid at once, each cell filled as its model answers.

``KernelDisplay.evaluate_view(evaluation)`` returns a :class:`LiveEvaluationView` that shows every cell
waiting, fills chat cells as they stream and job cells with their progress, adds scores as they come
(with ``repeats`` a row per case, a stability badge per scorer), and ends as the static grid, once.
One painter thread repaints at most :data:`UPDATES_PER_SECOND` times a second. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from gatewaykit.notebook.cell_output.kernel import start_thread, threads_available
from gatewaykit.notebook.cell_output.sinks import DisplaySink, default_sink
from gatewaykit.notebook.comparison_views.comparison_live import repaint_until_closed
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.evaluation_html import cell_html, grid_html, text_box
from gatewaykit.notebook.html_views.evaluation_repeats_html import group_cell_html, groups_by_row

__all__ = ["LiveEvaluationView", "UPDATES_PER_SECOND"]

UPDATES_PER_SECOND = 8


class _LiveCell:
    """One cell while the evaluation runs."""

    def __init__(self, cell: Any) -> None:
        self.cell = cell
        self.state = "waiting"
        self.started: Optional[float] = None
        self.parts: list[str] = []
        self.job: Any = None
        self.final_html: Optional[str] = None

    def html(self, now: float) -> str:
        cell = self.cell
        if self.state == "done":
            if self.final_html is None:
                self.final_html = cell_html(cell)
            return self.final_html
        elapsed = None if self.started is None else now - self.started
        clock = style.format_seconds(elapsed) if elapsed is not None else ""
        if self.parts:
            body = text_box("".join(self.parts))
        elif self.job is not None:
            from gatewaykit.notebook.html_views.media_html import render_job_html

            progress = getattr(self.job, "progress", None)
            reported = float(progress) if isinstance(progress, (int, float)) else None
            body = render_job_html(self.job, elapsed=elapsed, reported=reported)
        else:
            body = ""
        return cell_html(cell, body, state=self.state, clock=clock)


def _chunk_text(chunk: Any) -> str:
    try:
        return chunk.choices[0].delta.content or ""
    except (AttributeError, IndexError):
        return ""


class LiveEvaluationView:
    """The view a kernel gets for ``client.evaluate``: records from the workers, paints from one thread."""

    streams = True

    def __init__(
        self,
        evaluation: Any,
        *,
        sink: Optional[DisplaySink] = None,
        clock: Callable[[], float] = time.monotonic,
        painter: bool = True,
    ) -> None:
        self.evaluation = evaluation
        self.sink = sink if sink is not None else default_sink()
        self._clock = clock
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._closed = threading.Event()
        self._cells = {id(cell): _LiveCell(cell) for cell in evaluation.cells}
        self.paints = 0
        self.paint_seconds = 0.0
        self._send("show")  # the grid at once, every cell waiting
        threads = painter and threads_available()
        self._thread = start_thread(self._run, name="gatewaykit-evaluate-view") if threads else None
        self._inline = bool(painter) and self._thread is None  # Pyodide (no thread): repaint as each ends

    def started(self, cell: Any) -> None:
        live = self._cells[id(cell)]
        with self._lock:
            live.state, live.started = "running", self._clock()
        self._changed.set()

    def chunk(self, cell: Any, chunk: Any) -> None:
        text = _chunk_text(chunk)
        if text:
            self._cells[id(cell)].parts.append(text)
            self._changed.set()

    def job_update(self, cell: Any, job: Any) -> None:
        self._cells[id(cell)].job = job
        self._changed.set()

    def finished(self, cell: Any) -> None:
        with self._lock:
            self._cells[id(cell)].state = "done"
        self._changed.set()
        if self._inline:
            self.paint()

    def _bundle(self) -> dict[str, Any]:
        now = self._clock()
        with self._lock:
            live = list(self._cells.values())
            width = max(1, len(self.evaluation.models))
            htmls = [cell.html(now) for cell in live]
        done = sum(1 for cell in live if cell.state == "done")
        plain = f"{self.evaluation.kind} evaluation: {done} of {len(live)} cells finished"
        if self.evaluation.repeats > 1:
            return {"text/plain": plain, "text/html": grid_html(self.evaluation, self._grouped(htmls), grouped=True)}
        rows = [htmls[start : start + width] for start in range(0, len(htmls), width)]
        return {"text/plain": plain, "text/html": grid_html(self.evaluation, rows)}

    def _grouped(self, htmls: list[str]) -> list[list[str]]:
        """With repeats: a row per case; a cell none of whose repeats has finished shows its first repeat's
        state, the others their stability so far (a badge per scorer, the finished repeats on click)."""
        by_cell = {id(live.cell): (live, html) for live, html in zip(self._cells.values(), htmls)}
        rows = []
        for row in groups_by_row(self.evaluation):
            tds = []
            for cells in row:
                lives = [by_cell[id(cell)] for cell in cells]
                finished = [live.cell for live, _ in lives if live.state == "done"]
                if finished:
                    tds.append(group_cell_html(self.evaluation, cells, finished))
                else:
                    tds.append(next((html for live, html in lives if live.state == "running"), lives[0][1]))
            rows.append(tds)
        return rows

    def _send(self, how: str) -> None:
        started = time.perf_counter()
        getattr(self.sink, how)(self._bundle())
        self.paint_seconds += time.perf_counter() - started

    def paint(self) -> None:
        """Repaint the grid now (the painter thread calls this)."""
        if self._closed.is_set():
            return
        self._send("update")
        self.paints += 1

    def _run(self) -> None:
        repaint_until_closed(self._closed, self._changed, self._clock, self.paint, UPDATES_PER_SECOND)

    def close(self, evaluation: Any) -> None:
        """Every cell ended: the grid becomes the static evaluation (marks, summary), shown once."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._thread is not None:
            self._thread.join(5.0)
        from gatewaykit.notebook.html_views.rendering import mimebundle
        from gatewaykit.notebook.job_views.shown_once import mark_shown_live

        started = time.perf_counter()
        self.sink.update(mimebundle(evaluation))
        self.paint_seconds += time.perf_counter() - started
        mark_shown_live(evaluation)
