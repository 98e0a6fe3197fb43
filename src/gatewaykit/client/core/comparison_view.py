"""How ``client.compare`` shows its columns while the models run: the :class:`ComparisonView` Protocol.

``Display.compare_view(...)`` opens one view per comparison; the runner tells it each column's
``started``, ``chunk``, ``job_update`` and ``finished`` from its worker threads, then ``close`` once in
the caller's thread. Every call is guarded (:class:`GuardedComparisonView`), so a display bug costs
the display, not the answers. Details: ``docs/internals.md``.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, runtime_checkable

__all__ = ["ComparisonView", "GuardedComparisonView", "NullComparisonView", "comparison_view_of", "evaluation_view_of"]


@runtime_checkable
class ComparisonView(Protocol):
    """One comparison on screen, column by column (see the module docstring)."""

    streams: bool

    def started(self, entry: Any) -> None: ...

    def chunk(self, entry: Any, chunk: Any) -> None: ...

    def job_update(self, entry: Any, job: Any) -> None: ...

    def finished(self, entry: Any) -> None: ...

    def close(self, comparison: Any) -> None: ...


class NullComparisonView:
    """Shows nothing; chat columns are requested whole (no stream)."""

    streams = False

    def started(self, entry: Any) -> None:
        pass

    def chunk(self, entry: Any, chunk: Any) -> None:
        pass

    def job_update(self, entry: Any, job: Any) -> None:
        pass

    def finished(self, entry: Any) -> None:
        pass

    def close(self, comparison: Any) -> None:
        pass


_NULL_VIEW = NullComparisonView()


class GuardedComparisonView:
    """Wraps a view so that none of its errors reaches the comparison (the first one turns it off but for ``close``)."""

    def __init__(self, view: Any) -> None:
        self._view = view
        self.streams = bool(getattr(view, "streams", False))
        self.error: Optional[BaseException] = None

    def _call(self, name: str, *args: Any) -> None:
        if self.error is not None:
            return
        try:
            getattr(self._view, name)(*args)
        except Exception as exc:  # noqa: BLE001 - a display bug must never lose a model's answer
            self.error = exc

    def started(self, entry: Any) -> None:
        self._call("started", entry)

    def chunk(self, entry: Any, chunk: Any) -> None:
        self._call("chunk", entry, chunk)

    def job_update(self, entry: Any, job: Any) -> None:
        self._call("job_update", entry, job)

    def finished(self, entry: Any) -> None:
        self._call("finished", entry)

    def close(self, comparison: Any) -> None:
        """Always tried, even after an error: a live view must stop painting and leave its last state."""
        try:
            self._view.close(comparison)
        except Exception as exc:  # noqa: BLE001
            self.error = self.error or exc


def comparison_view_of(display: Any, prompt: str, kind: str, entries: list[Any]) -> GuardedComparisonView:
    """The (guarded) view a comparison shows through: ``display.compare_view(...)``, or none."""
    opener = getattr(display, "compare_view", None)
    view: Any = _NULL_VIEW
    if callable(opener):
        try:
            view = opener(prompt, kind, entries)
        except Exception:  # noqa: BLE001 - no live view; the returned Comparison still shows the grid
            view = _NULL_VIEW
    return GuardedComparisonView(view)


def evaluation_view_of(display: Any, evaluation: Any) -> GuardedComparisonView:
    """The (guarded) view an evaluation shows through: ``display.evaluate_view(evaluation)``, or none.

    It is told what a comparison's view is (``started``, ``chunk``, ``job_update``,
    ``finished``), of each cell (an :class:`~gatewaykit.client.session_tools.evaluation.EvaluationCell`,
    ``finished`` once its scores are in), then ``close(evaluation)``.
    """
    opener = getattr(display, "evaluate_view", None)
    view: Any = _NULL_VIEW
    if callable(opener):
        try:
            view = opener(evaluation)
        except Exception:  # noqa: BLE001 - no live view; the returned Evaluation still shows the grid
            view = _NULL_VIEW
    return GuardedComparisonView(view)
