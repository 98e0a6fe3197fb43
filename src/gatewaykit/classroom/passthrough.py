"""Passing an upstream answer on to the student, and settling the hold it was sent under.

A buffered answer settles at its reported cost; a stream is passed on as it arrives and settles
before its end. A request that never left is released; once it left, an unknown outcome is charged
at its hold, since the gateway may have billed it. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import re
from typing import Any, AsyncIterator, Optional

import orjson
from starlette.background import BackgroundTask
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from gatewaykit.classroom.budgets import Hold, unknown_status
from gatewaykit.classroom.request_bodies import classroom_busy
from gatewaykit.classroom.buffered_bytes import AnswerTooLarge, BuffersFull
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.classroom.store import NO_BALANCE
from gatewaykit.classroom.keepalive import ConnectionFailed
from gatewaykit.classroom.prompt_log import PromptLog, Transcript, answer_of, answer_of_stream
from gatewaykit.classroom.upstream import UpstreamFailure, UpstreamResponse
from gatewaykit.money import format_usd, nanos_to_usd, usd_to_nanos
from gatewaykit.serving.errors import ApiError

__all__ = ["forward_billed", "reported_cost", "unanswered", "upstream_error"]

_TOTAL_COST = re.compile(rb'"total_cost"\s*:\s*(-?[0-9][0-9.eE+-]*)')
_CARRY = 64  # bytes kept from one chunk to the next, so a cost split across chunks is still found


def upstream_error(failure: UpstreamFailure, charged_nanos: Optional[int] = None) -> ApiError:
    """502/504 for a gateway that did not answer; ``charged_nanos``: the request had reached it and was charged
    at its worst case (the student reads that, and why), else nothing was charged."""
    if charged_nanos is not None:
        what = ("did not answer in time" if failure.timed_out
                else "broke the connection before its answer was complete")
        cost = format_usd(nanos_to_usd(charged_nanos))
        message = (f"The gateway behind your classroom {what}, after it had your request: it may have carried it "
                   f"out and billed your class, so it was charged at its worst case ({cost}). A retry is a new "
                   "request; tell your teacher if this keeps happening.")
        return ApiError(504 if failure.timed_out else 502, message, type="api_error",
                        code="upstream_timeout" if failure.timed_out else "upstream_unreachable")
    if failure.busy:
        return classroom_busy()
    if failure.too_large:
        return ApiError(502, "The gateway's answer is larger than the classroom passes on "
                        f"({failure.cause or 'over its limit'}). Ask for less (fewer or smaller images, a lower "
                        "max_tokens), or tell whoever runs the classroom.", type="api_error",
                        code="upstream_answer_too_large")
    if failure.timed_out:
        return ApiError(504, "The gateway behind your classroom did not answer in time. Nothing was charged; "
                        "try again.", type="api_error", code="upstream_timeout")
    return ApiError(502, "The classroom could not reach the gateway behind it. Nothing was charged; try again "
                    "in a moment.", type="api_error", code="upstream_unreachable")


def unanswered(state: ClassroomState, hold: Hold, failure: UpstreamFailure) -> ApiError:
    """Settle a request the gateway did not answer: released if it never left, else charged at its hold (its
    outcome is unknown); the error the student gets, saying which."""
    if not failure.sent:
        state.budgets.release(hold.row_id, "timeout" if failure.timed_out else "unreachable")
        return upstream_error(failure)
    state.budgets.settle(hold.row_id, hold.nanos, unknown_status("timed out" if failure.timed_out
                                                                 else "connection lost"))
    return upstream_error(failure, charged_nanos=hold.nanos)


def reported_cost(body: Any) -> Optional[int]:
    """Nanos of ``usage.cost.total_cost`` in a JSON answer, or None."""
    usage = body.get("usage") if isinstance(body, dict) else None
    cost = usage.get("cost") if isinstance(usage, dict) else None
    total = cost.get("total_cost") if isinstance(cost, dict) else None
    if isinstance(total, bool) or not isinstance(total, (int, float)) or total < 0:
        return None
    return usd_to_nanos(total)


def _upstream_id(response: UpstreamResponse, body: Any) -> Optional[str]:
    found = response.headers.get("x-request-id")
    if not found and isinstance(body, dict) and isinstance(body.get("id"), str):
        found = body["id"]
    return found[:200] if found else None


class _PassedOn(Response):
    """A buffered answer whose bytes are given back to the classroom's count once it was sent (or failed to be)."""

    def __init__(self, answer: UpstreamResponse, content: bytes, status_code: int, headers: dict[str, str]) -> None:
        super().__init__(content, status_code=status_code, headers=headers)
        self._answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._answer.release()


async def forward_billed(state: ClassroomState, hold: Hold, request_headers: Any, path: str, content: bytes,
                         content_type: Optional[str], *, stream: bool,
                         transcript: Optional[Transcript] = None) -> Response:
    """Send a billed request upstream under ``hold`` and pass the answer on, settling the hold; ``transcript``
    (a course that keeps prompts): given the answer's text."""
    upstream = state.upstream
    buffers = upstream.buffers  # the student's body counts in it already (request_bodies.py)
    try:
        response = await upstream.send("POST", path, headers=request_headers, content=content,
                                       content_type=content_type, stream=True)
    except UpstreamFailure as failure:
        raise unanswered(state, hold, failure) from None
    headers = upstream.response_headers(response)
    if response.status_code == 200:
        state.balance.paid()
    if response.status_code == 200 and stream and response.headers.get("content-type", "").startswith(
            "text/event-stream"):
        return StreamingResponse(_relay(state, hold, response, transcript), status_code=200, headers=headers,
                                 background=BackgroundTask(response.aclose))
    try:
        data = await response.aread(buffers)
    except ConnectionFailed as exc:  # the answer began: the gateway had the request (a cut-off body, too slow)
        if response.status_code != 200:  # a refusal, cut off: the gateway said no before its body broke
            state.budgets.release(hold.row_id, f"refused {response.status_code}, cut off")
            raise upstream_error(UpstreamFailure(timed_out=exc.timed_out)) from None
        raise unanswered(state, hold, UpstreamFailure(timed_out=exc.timed_out, sent=True)) from None
    except (AnswerTooLarge, BuffersFull) as exc:
        raise await _not_passed_on(state, hold, response, exc) from None
    finally:
        await response.aclose()
    try:
        return await _settled(state, hold, response, data, headers, transcript)
    except BaseException:
        response.release()
        raise


async def _not_passed_on(state: ClassroomState, hold: Hold, response: UpstreamResponse,
                         exc: Exception) -> Exception:
    """The error for an answer not read to its end (too large, or the classroom too full): once the gateway said
    200 it has billed the teacher, so the hold is charged (its cost was never read)."""
    busy = isinstance(exc, BuffersFull)
    if response.status_code == 200:
        await state.budgets.settle_grouped(hold.row_id, hold.nanos, "unreported", _upstream_id(response, None))
    else:
        await state.budgets.release_grouped(hold.row_id, f"refused {response.status_code}")
    return upstream_error(UpstreamFailure(False, str(exc), too_large=not busy, busy=busy))


async def _settled(state: ClassroomState, hold: Hold, response: UpstreamResponse, data: bytes,
                   headers: dict[str, str], transcript: Optional[Transcript] = None) -> Response:
    upstream = state.upstream
    if response.status_code == 402:  # the teacher's key cannot pay: the class's problem, never the student's
        await state.budgets.release_grouped(hold.row_id, NO_BALANCE)
        raise state.balance.used_up()
    if response.status_code != 200:
        await state.budgets.release_grouped(hold.row_id, f"refused {response.status_code}")
        return _PassedOn(response, upstream.scrub(data), response.status_code, headers)
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError:
        body = None
    cost = reported_cost(body)
    if transcript is not None:
        transcript.answered(answer_of(transcript.kind, body) if body is not None else None)
    if cost is None:
        await state.budgets.settle_grouped(hold.row_id, hold.nanos, "unreported", _upstream_id(response, body))
    else:
        await state.budgets.settle_grouped(hold.row_id, cost, "ok", _upstream_id(response, body))
    return _PassedOn(response, upstream.scrub(data), 200, headers)


async def _relay(state: ClassroomState, hold: Hold, response: UpstreamResponse,
                 transcript: Optional[Transcript] = None) -> AsyncIterator[bytes]:
    scrub = state.upstream.scrub
    kept: Optional[bytearray] = bytearray() if transcript is not None else None  # the stream, for its text
    upstream_id = response.headers.get("x-request-id")
    cost: Optional[int] = None
    carry = b""
    finished = False
    try:
        async for chunk in response.aiter_raw():
            window = carry + chunk
            if b"total_cost" in window:
                for match in _TOTAL_COST.finditer(window):
                    try:
                        cost = usd_to_nanos(match.group(1).decode())
                    except ArithmeticError:
                        pass
            carry = window[-_CARRY:]
            if kept is not None and len(kept) < PromptLog.max_stream_bytes:
                kept += chunk
            if upstream_id is None and b'"id"' in chunk:
                found = re.search(rb'"id"\s*:\s*"([^"]{1,200})"', chunk)
                upstream_id = found.group(1).decode("utf-8", "replace") if found else None
            yield scrub(chunk)
        finished = True
    except ConnectionFailed:
        pass  # the upstream broke off: settled below, the student sees the stream end early
    finally:
        if transcript is not None and kept is not None:
            transcript.answered(answer_of_stream(bytes(kept)))
        if cost is not None:
            state.budgets.settle(hold.row_id, cost, "ok" if finished else "ok, cut off", upstream_id)
        elif finished:
            state.budgets.settle(hold.row_id, hold.nanos, "unreported", upstream_id)
        else:
            state.budgets.release(hold.row_id, "interrupted", upstream_id)
        await response.aclose()
