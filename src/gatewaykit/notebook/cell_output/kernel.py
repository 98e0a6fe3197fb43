"""Where display output goes: the kernel, the cell that started a thread, or nowhere.

IPython is imported lazily and only if it is already loaded, so calling
:func:`shell` from a plain script costs nothing and never starts IPython.

Background threads (job progress) must publish with the parent header of the
cell that started them: on ipykernel 7.0.x, output from a thread without one
raises ``LookupError``, and elsewhere it would land in whatever cell runs at
the time. :func:`start_thread` captures ``get_parent()`` in the caller and
calls ``set_thread_parent`` (or ``set_parent``) in the worker, which also
runs in a copy of the caller's context. On ipykernel < 7 the parent is process
global, so it is left alone there (setting it would misroute the main
thread's output); updates by ``display_id`` find their output regardless.

The cell's own thread must never wait for such a thread with
``Thread.join()`` (nor ``is_alive()``, nor ``Event.wait()``): the stop button
raises ``KeyboardInterrupt`` in the middle of that wait, and on CPython before
3.13 an interrupted join marks the *running* thread as dead (python/cpython
gh-90882: ``_wait_for_tstate_lock`` releases the lock the live thread holds).
ipykernel's IOPub thread then closes the event pipe it keeps for that "dead"
thread (its periodic clean-up of dead threads' pipes), and the thread's next
output raises ``ZMQError: Socket operation on non-socket``: a live view that
froze after an interrupted ``progress.join()``. :func:`sleep_until` waits
in ``time.sleep`` instead, which holds no lock another thread shares; the
thread's :attr:`CellThread.ended` says when it is done.

:func:`open_widget_subshell` keeps a kernel that waits looking busy in
JupyterLab 4.4+ and Notebook 7 (see its docstring).
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from typing import Any, Callable, Optional

from gatewaykit.client.core.display import in_kernel  # the one kernel detector (the core chooses displays with it)

__all__ = ["CellThread", "in_kernel", "open_widget_subshell", "shell", "sleep_until", "start_thread"]


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
