"""Widget events while a cell blocks: what lets a Cancel button work during ``job.wait()``.

A kernel handles one shell message at a time; :func:`widget_events` gives a ``pump()`` that handles
the widget (comm) messages that arrived and keeps every other request to run in order after the
cell. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from gatewaykit.notebook.cell_output.kernel import shell

__all__ = ["widget_events"]

_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})


def _nothing() -> None:
    pass


@contextlib.contextmanager
def widget_events() -> Iterator[Callable[[], None]]:
    """A ``pump()`` that handles pending widget messages (see the module docstring)."""
    ip = shell()
    kernel = getattr(ip, "kernel", None)
    if kernel is None:
        yield _nothing
        return
    if callable(getattr(kernel, "do_one_iteration", None)):
        try:
            from jupyter_ui_poll import ui_events
        except ImportError:
            yield _nothing
            return
        with ui_events() as poll:
            yield lambda: poll(10)
        return
    pump = _ShellStreamPump.attach(kernel)
    if pump is None:
        yield _nothing
        return
    try:
        yield pump.pump
    finally:
        pump.release()


class _ShellStreamPump:
    """ipykernel 7: drain the main shell stream; dispatch comm messages, hold the rest."""

    def __init__(self, kernel: Any, stream: Any) -> None:
        self.kernel, self.stream = kernel, stream
        self.held: list[Any] = []
        self.parent = kernel.get_parent("shell") if _takes_channel(kernel) else kernel.get_parent()
        self.ident = getattr(kernel, "_parent_ident", {}).get("shell", b"") if hasattr(kernel, "_parent_ident") else b""

    @classmethod
    def attach(cls, kernel: Any) -> "_ShellStreamPump | None":
        try:
            from ipykernel.eventloops import get_shell_stream

            stream = get_shell_stream(kernel)
        except Exception:  # noqa: BLE001 - an unknown kernel: no pump, the wait still works
            return None
        if stream is None or getattr(stream, "_recv_callback", None) is None or kernel.session is None:
            return None
        return cls(kernel, stream)

    def pump(self) -> None:
        import zmq

        for _ in range(50):
            try:
                frames = self.stream.socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.ZMQError:
                return
            if not self._dispatch_comm(frames):
                self.held.append(frames)

    def _dispatch_comm(self, frames: Any) -> bool:
        session = self.kernel.session
        try:
            idents, rest = session.feed_identities(frames, copy=False)
            header = session.deserialize(rest, content=False, copy=False)["header"]
        except Exception:  # noqa: BLE001 - not ours to judge: the kernel handles it later
            return False
        msg_type = header.get("msg_type")
        if msg_type not in _COMM_TYPES:
            return False
        handler = self.kernel.shell_handlers.get(msg_type)
        if handler is None:
            return False
        msg = session.deserialize(rest, content=True, copy=False)
        self.kernel.set_parent(idents, msg, channel="shell")
        try:
            result = handler(self.stream, idents, msg)
            if hasattr(result, "close"):  # a coroutine handler (comm_info_request): leave it to the kernel
                result.close()
                return False
        except Exception:  # noqa: BLE001 - a widget handler's error must not end the wait
            pass
        finally:
            self.kernel.set_parent(self.ident, self.parent, channel="shell")
        return True

    def release(self) -> None:
        """Hand the held requests back to the kernel, in order (they run after this cell)."""
        held, self.held = self.held, []
        for frames in held:
            try:
                self.stream._run_callback(self.stream._recv_callback, frames)
            except Exception:  # noqa: BLE001
                pass


def _takes_channel(kernel: Any) -> bool:
    import inspect

    try:
        return "channel" in inspect.signature(kernel.get_parent).parameters
    except (TypeError, ValueError):
        return False
