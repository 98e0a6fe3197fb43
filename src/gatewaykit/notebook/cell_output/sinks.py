"""Display sinks: where a live view sends its messages.

A sink has two methods, ``show(bundle)`` for the first display and
``update(bundle)`` for every later state. A sink that can also ``open()`` a
new output below its own (returning a sink for it) lets the live chat view
send each finished part of an answer once, as its own output, and update only
the open tail; a sink without ``open`` (an HTML widget) gets the whole view in
every update. The live renderers only talk to a
sink, so tests and the benchmark record messages without a kernel, and the
kernel sink is a thin wrapper over IPython's display handles (``display_id``
updates work in JupyterLab, Notebook 7, VS Code and Colab, with or without
ipywidgets).
"""

from __future__ import annotations

from typing import Any, Optional, Protocol

from gatewaykit.notebook.html_views.style import aligned_in_exports

__all__ = ["DisplaySink", "IPythonSink", "NullSink", "CapturingSink", "default_sink"]

Bundle = dict[str, Any]


class DisplaySink(Protocol):
    def show(self, bundle: Bundle) -> None: ...

    def update(self, bundle: Bundle) -> None: ...


class CapturingSink:
    """Keeps every message: ``messages`` is a list of ``("show" | "update", bundle)``.

    ``open()`` gives a sink for the next output of the same cell; all of them
    log into one ``messages`` list, ``targets[i]`` being the output that
    message ``i`` went to, and :meth:`saved` is what a saved notebook keeps.
    """

    def __init__(self, _cell: Optional["CapturingSink"] = None) -> None:
        self._cell = self if _cell is None else _cell
        self.index = 0 if _cell is None else len(_cell.outputs)
        if _cell is None:
            self.messages: list[tuple[str, Bundle]] = []
            self.targets: list[int] = []
            self.outputs: list[Bundle] = []

    def show(self, bundle: Bundle) -> None:
        self._record("show", bundle)

    def update(self, bundle: Bundle) -> None:
        self._record("update", bundle)

    def open(self) -> "CapturingSink":
        return CapturingSink(self._cell)

    def _record(self, kind: str, bundle: Bundle) -> None:
        cell = self._cell
        cell.messages.append((kind, bundle))
        cell.targets.append(self.index)
        while len(cell.outputs) <= self.index:
            cell.outputs.append({})
        cell.outputs[self.index] = bundle

    def saved(self) -> list[Bundle]:
        """Each output's last bundle, empty ones left out: what a saved notebook shows."""
        return [bundle for bundle in self._cell.outputs if bundle]

    @property
    def last(self) -> Bundle:
        return self._cell.messages[-1][1]


class NullSink:
    """Shows nothing (outside a kernel, where nobody could see a live view)."""

    def show(self, bundle: Bundle) -> None:
        pass

    def update(self, bundle: Bundle) -> None:
        pass

    def open(self) -> "NullSink":
        return self


class IPythonSink:
    """One output in the current cell, replaced in place by ``update_display_data``."""

    def __init__(self) -> None:
        self._handle: Optional[Any] = None

    def show(self, bundle: Bundle) -> None:
        from IPython.display import display

        self._handle = display(aligned_in_exports(bundle), raw=True, display_id=True)

    def update(self, bundle: Bundle) -> None:
        if self._handle is None:
            self.show(bundle)
        else:
            self._handle.update(aligned_in_exports(bundle), raw=True)

    def open(self) -> "IPythonSink":
        """A sink for a new output below the ones shown so far (in the same cell)."""
        return IPythonSink()


def default_sink() -> DisplaySink:
    """An :class:`IPythonSink` inside a kernel, otherwise a :class:`NullSink`."""
    from gatewaykit.notebook.cell_output.kernel import in_kernel

    return IPythonSink() if in_kernel() else NullSink()
