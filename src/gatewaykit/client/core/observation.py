"""The seam telemetry plugs into: one observer of every request, or none.

``current`` is ``None`` until :func:`gatewaykit.instrument` installs an observer; every hook reads it
first, so with telemetry off a request pays one module-attribute read and nothing is imported.
The hooks, in the order a request meets them: ``docs/internals.md``.
"""

from __future__ import annotations

import contextlib
from typing import Any, ContextManager, Optional, Protocol

# The request (``client.api_request.ApiRequest``) and its ledger row (``client.core.recording.Recording``)
# are typed ``Any`` here: recording.py calls this module, and even a type-only import back would be a cycle.
ApiRequest = Any
Recording = Any

__all__ = ["RequestObserver", "current", "install", "job_headers", "operation", "request_started", "tool_call"]


class RequestObserver(Protocol):
    """What an observer of requests answers (``gatewaykit/telemetry`` is the one implementation)."""

    def request_started(self, recording: Recording, request: ApiRequest, body: dict[str, Any]) -> ApiRequest: ...

    def request_finished(
        self, recording: Recording, handle: Any, status: str, fields: dict[str, Any], row: Any
    ) -> None: ...

    def job_seen(self, job: Any) -> None: ...

    def job_event(self, job: Any, name: str) -> None: ...

    def job_headers(self, job: Any) -> Optional[dict[str, str]]: ...

    def job_finished(self, job: Any, status: str, row: Any) -> None: ...

    def operation(self, name: str, attributes: dict[str, Any]) -> ContextManager[Any]: ...

    def tool_call(self, name: str, call_id: Optional[str]) -> ContextManager[Any]: ...


current: Optional[RequestObserver] = None
"""The installed observer, or None (telemetry off)."""

_NOTHING: ContextManager[Any] = contextlib.nullcontext()


def install(observer: Optional[RequestObserver]) -> None:
    """Install ``observer`` for every client in the process (None removes it)."""
    global current
    current = observer


def request_started(recording: Recording, request: ApiRequest, body: dict[str, Any]) -> ApiRequest:
    """The request to send: unchanged with telemetry off; else as the observer returns it."""
    observer = current
    if observer is None:
        return request
    return observer.request_started(recording, request, body)


def job_headers(job: Any) -> Optional[dict[str, str]]:
    """The headers a request about ``job`` carries (its span's ``traceparent``); None when off or not followed."""
    observer = current
    if observer is None:
        return None
    return observer.job_headers(job)


def operation(name: str, **attributes: Any) -> ContextManager[Any]:
    """A parent span around many requests (``map``, ``compare``, a session's turn ...); nothing when off."""
    observer = current
    if observer is None:
        return _NOTHING
    return observer.operation(name, attributes)


def tool_call(name: str, call_id: Optional[str]) -> ContextManager[Any]:
    """A span around one tool's run inside a chat session; nothing when off."""
    observer = current
    if observer is None:
        return _NOTHING
    return observer.tool_call(name, call_id)
