"""Where display output goes: the kernel, the cell that started a thread, or nowhere.

IPython is used only if already loaded. Background threads publish with the parent header of the
cell that started them (:func:`start_thread`), and the cell's own thread never waits for one with
``join()``: an interrupted join on CPython < 3.13 marks the live thread dead and ipykernel then closes
its output pipe, so :func:`sleep_until` waits in ``time.sleep``. The full story: ``docs/internals.md``.
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from typing import Any, Callable, Optional

from gatewaykit.client.core.display import in_kernel  # the one kernel detector (the core chooses displays with it)

__all__ = ["CellThread", "in_kernel", "open_widget_subshell", "route_to_frontend_subshell", "shell", "sleep_until",
           "start_thread", "threads_available"]


def shell() -> Optional[Any]:
    """The running IPython shell, or None (never imports IPython itself)."""
    if "IPython" not in sys.modules:
        return None
    try:
        from IPython import get_ipython
    except Exception:  # noqa: BLE001
        return None
    return get_ipython()


def _parent_is_context_local() -> bool:
    kernel_module = sys.modules.get("ipykernel")
    version = getattr(kernel_module, "version_info", None) or (0,)
    return tuple(version)[:1] >= (7,)


def _capture_parent(ip: Any) -> Optional[dict]:
    get_parent = getattr(ip, "get_parent", None)
    if get_parent is None:
        return None
    try:
        return get_parent()
    except Exception:  # noqa: BLE001 - LookupError on ipykernel 7.0.x outside a cell
        return None


class CellThread(threading.Thread):
    """A daemon thread from :func:`start_thread`; :attr:`ended` is set once its target returned or raised."""

    def __init__(self, run: Callable[[], None], *, name: str) -> None:
        super().__init__(target=run, name=name, daemon=True)
        self.ended = threading.Event()


def sleep_until(flag: threading.Event, seconds: float) -> bool:
    """Whether ``flag`` is set, looking again after ``seconds`` if not: safe to interrupt (module docstring)."""
    if not flag.is_set():
        time.sleep(seconds)
    return flag.is_set()


def threads_available() -> bool:
    """False in a browser page's Python (Pyodide, ``sys.platform == "emscripten"``): it cannot start a thread,
    so what would follow a cell from one runs in the cell itself."""
    return sys.platform != "emscripten"


def start_thread(target: Callable[[], None], *, name: str, ip: Any = None) -> CellThread:
    """Run ``target`` in a daemon thread whose output goes to the calling cell."""
    ip = ip if ip is not None else shell()
    parent = _capture_parent(ip) if ip is not None else None
    context = contextvars.copy_context()

    def run() -> None:
        if parent is not None and _parent_is_context_local():
            # ipykernel >= 7.1 has a thread-only setter; 7.0.x only set_parent (a contextvar there).
            setter = getattr(ip, "set_thread_parent", None) or ip.set_parent
            try:
                setter(parent)
            except Exception:  # noqa: BLE001 - output then falls back to the kernel's default
                pass
        try:
            target()
        finally:
            thread.ended.set()

    thread = CellThread(lambda: context.run(run), name=name)
    thread.start()
    return thread


_widget_keeper: Optional[Any] = None  # one never-closed widget per kernel process (open_widget_subshell)


def open_widget_subshell(ip: Any = None) -> bool:
    """Open a widget comm now and keep it open, so the front end makes its widget subshell now.

    JupyterLab 4.4+ (and Notebook 7) send widget messages through a kernel
    subshell, one per comm target, created when the first comm of the target
    opens and deleted when the last one closes. The ``create_subshell_request``
    goes on the control channel, and its ``busy``/``idle`` status reached the
    status bar: a ``job.wait()`` whose Cancel button was the kernel's first
    widget read "Idle" for the rest of the cell. Called while the cell that
    builds the client runs (a quick cell), this makes the subshell then and
    keeps it for the kernel's life. Only on kernels with subshells (ipykernel 7+);
    never raises. True when a widget comm is open.
    """
    global _widget_keeper
    if _widget_keeper is not None:
        return True
    ip = ip if ip is not None else shell()
    kernel = getattr(ip, "kernel", None)
    try:
        if kernel is None or not getattr(kernel, "_supports_kernel_subshells", False):
            return False
        import ipywidgets

        _widget_keeper = ipywidgets.Layout()  # the smallest widget model; never displayed, never closed
    except Exception:  # noqa: BLE001 - no widgets here: waits work as before
        return False
    return True


def _frontend_subshell(_data: Any, subshell_id: Optional[str]) -> Optional[str]:
    return subshell_id  # where the front end sent the message (None: the main shell)


def route_to_frontend_subshell(widget: Any) -> None:
    """Have the kernel handle the front end's messages for ``widget`` and the widgets inside it where the front
    end sends them: on its widget subshell, while another cell keeps the main shell busy.

    ipykernel 7.3+ does not route a comm's incoming messages by their ``subshell_id``: it sends them to the shell
    that last published on the comm (``BaseComm._reply_subshell_for``, asked by the shell channel thread), so an
    async cell awaiting a widget's answer gets it on its own loop. A widget built in a cell last published from
    the main shell, so a click JupyterLab sent through its subshell waited for any busy cell to end (a shown
    job's Cancel did nothing until the sleeping cell after it ended), until a click handled while idle changed
    the button from a message carrying the subshell's id, after which its clicks did go there. gatewaykit's
    handlers await nothing and are safe on another thread (long work runs in threads of its own), so its
    widgets take the front end's choice; other comms keep ipykernel's routing. Call it again after adding
    widgets to the tree. Older kernels: nothing to do; never raises.
    """
    pending, seen = [widget], set()
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        comm = getattr(item, "comm", None)
        try:
            if comm is not None and hasattr(comm, "_reply_subshell_for"):
                comm._reply_subshell_for = _frontend_subshell
            pending.extend(getattr(item, "children", None) or ())
        except Exception:  # noqa: BLE001 - that widget keeps the kernel's routing
            pass
