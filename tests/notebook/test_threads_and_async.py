"""Thread output routing (parent header) and the async live renderer."""

import asyncio

import pytest
from factories import chunks

from gatewaykit.notebook.cell_output import kernel
from gatewaykit.notebook.chat_views.live import render_async_stream
from gatewaykit.notebook.cell_output.sinks import CapturingSink


class FakeShell:
    """Records which parent header each thread set."""

    def __init__(self, parent, thread_setter=True):
        self.parent, self.seen = parent, []
        if thread_setter:
            self.set_thread_parent = self.seen.append

    def get_parent(self):
        return self.parent

    def set_parent(self, parent):
        self.seen.append(("global", parent))


def test_worker_thread_publishes_with_the_callers_parent(monkeypatch):
    """The worker sets the captured parent header with the thread-only setter."""
    monkeypatch.setattr(kernel, "_parent_is_context_local", lambda: True)
    shell = FakeShell({"msg_id": "cell-1"})
    kernel.start_thread(lambda: None, name="t", ip=shell).join()
    assert shell.seen == [{"msg_id": "cell-1"}]


def test_worker_falls_back_to_set_parent_on_ipykernel_7_0(monkeypatch):
    """Without set_thread_parent (ipykernel 7.0.x), set_parent is called in the worker."""
    monkeypatch.setattr(kernel, "_parent_is_context_local", lambda: True)
    shell = FakeShell({"msg_id": "cell-2"}, thread_setter=False)
    kernel.start_thread(lambda: None, name="t", ip=shell).join()
    assert shell.seen == [("global", {"msg_id": "cell-2"})]


def test_worker_leaves_global_parent_alone_before_ipykernel_7(monkeypatch):
    """On ipykernel < 7 the parent is process-global, so the worker does not touch it."""
    monkeypatch.setattr(kernel, "_parent_is_context_local", lambda: False)
    shell = FakeShell({"msg_id": "cell-3"})
    kernel.start_thread(lambda: None, name="t", ip=shell).join()
    assert shell.seen == []


def test_outside_ipython_there_is_no_shell():
    """In a plain interpreter the notebook layer sees no kernel."""
    assert not kernel.in_kernel()


class AsyncStream:
    def __init__(self, items, fail=None):
        self.items, self.fail, self.closed = items, fail, False

    def __aiter__(self):
        return self._gen()

    async def _gen(self):
        for index, item in enumerate(self.items):
            if index == 1 and self.fail is not None:
                raise self.fail
            yield item

    async def aclose(self):
        self.closed = True


def test_async_stream_renders_to_final_answer():
    """render_async_stream consumes an async stream and ends with the static answer."""
    sink = CapturingSink()
    completion = asyncio.run(render_async_stream(AsyncStream(chunks(["a", "b"])), sink=sink))
    assert completion.content == "ab"
    assert "gk-live" not in sink.last["text/html"]


def test_async_cancellation_keeps_partial_answer():
    """Cancelling the task closes the stream and keeps the partial answer."""
    sink = CapturingSink()
    stream = AsyncStream(chunks(["kept", "lost"]), fail=asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(render_async_stream(stream, sink=sink))
    assert stream.closed and "kept" in sink.last["text/plain"] and "interrupted" in sink.last["text/plain"]
