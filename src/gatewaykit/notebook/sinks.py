"""Display sinks: where a live view sends its messages.

A sink has two methods, ``show(bundle)`` for the first display and
``update(bundle)`` for every later state. The live renderers only talk to a
sink, so tests and the benchmark record messages without a kernel, and the
kernel sink is a thin wrapper over IPython's display handles (``display_id``
updates work in JupyterLab, Notebook 7, VS Code and Colab, with or without
ipywidgets).
"""

from __future__ import annotations

from typing import Any, Optional, Protocol

__all__ = ["DisplaySink", "IPythonSink", "NullSink", "CapturingSink", "default_sink"]

Bundle = dict[str, Any]


class DisplaySink(Protocol):
    def show(self, bundle: Bundle) -> None: ...

    def update(self, bundle: Bundle) -> None: ...


class CapturingSink:
    """Keeps every message: ``messages`` is a list of ``("show" | "update", bundle)``."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, Bundle]] = []

    def show(self, bundle: Bundle) -> None:
        self.messages.append(("show", bundle))

    def update(self, bundle: Bundle) -> None:
        self.messages.append(("update", bundle))

    @property
    def last(self) -> Bundle:
        return self.messages[-1][1]


class NullSink:
    """Shows nothing (outside a kernel, where nobody could see a live view)."""

    def show(self, bundle: Bundle) -> None:
        pass

    def update(self, bundle: Bundle) -> None:
        pass


class IPythonSink:
    """One output in the current cell, replaced in place by ``update_display_data``."""

    def __init__(self) -> None:
        self._handle: Optional[Any] = None

    def show(self, bundle: Bundle) -> None:
        from IPython.display import display

        self._handle = display(bundle, raw=True, display_id=True)

    def update(self, bundle: Bundle) -> None:
        if self._handle is None:
            self.show(bundle)
        else:
            self._handle.update(bundle, raw=True)


def default_sink() -> DisplaySink:
    """An :class:`IPythonSink` inside a kernel, otherwise a :class:`NullSink`."""
    from gatewaykit.notebook.kernel import in_kernel

    return IPythonSink() if in_kernel() else NullSink()
