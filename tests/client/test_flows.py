"""Retry and job-polling flows driven by hand: no network, no sleeping."""

from __future__ import annotations

from typing import Any

import pytest

from gatewaykit import APIConnectionError, JobFailedError, JobTimeoutError, RetryPolicy, VideoJob
from gatewaykit.client.core.flows import Sleep, send_with_retries
from gatewaykit.client.resources.job_flows import wait_flow
from gatewaykit.client.api_request import ApiRequest

POLICY = RetryPolicy(max_retries=2, backoff_base=1.0, backoff_cap=8.0, retry_after_cap=20.0)


class Answer:
    def __init__(self, status: int, headers: dict[str, str] | None = None, content: bytes = b"") -> None:
        self.status_code = status
        self.headers = headers or {}
        self.content = content


def lost(sent: bool) -> APIConnectionError:
    error = APIConnectionError("connection dropped")
    error.request_sent = sent  # type: ignore[attr-defined]
    return error


def drive(flow: Any, outcomes: list[Any]) -> tuple[list[Any], Any]:
    """Run a flow, answering each request with the next outcome; returns (instructions, result)."""
    seen: list[Any] = []
    instruction = next(flow)
    try:
        while True:
            seen.append(instruction)
            if isinstance(instruction, Sleep):
                instruction = flow.send(None)
                continue
            outcome = outcomes.pop(0)
            instruction = flow.throw(outcome) if isinstance(outcome, Exception) else flow.send(outcome)
    except StopIteration as stop:
        return seen, stop.value


POST = ApiRequest("POST", "/v1/chat/completions")
JOB_POST = ApiRequest("POST", "/v1/videos", creates_job=True)
GET = ApiRequest("GET", "/v1/videos/x", replay_safe=True)


def test_429_and_5xx_are_retried_then_returned() -> None:
    """A 429 then a 503 are retried; the third answer is returned with attempts=3."""
    seen, (response, attempts) = drive(send_with_retries(POST, POLICY), [Answer(429), Answer(503), Answer(200)])
    assert (response.status_code, attempts) == (200, 3)
    assert sum(isinstance(i, Sleep) for i in seen) == 2


def test_retries_stop_at_max_retries() -> None:
    """After max_retries the last error answer is returned for mapping."""
    _, (response, attempts) = drive(send_with_retries(POST, POLICY), [Answer(500)] * 3)
    assert (response.status_code, attempts) == (500, 3)


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404])
def test_client_errors_are_never_retried(status: int) -> None:
    """400/401/402/403/404 come back at once."""
    seen, (response, attempts) = drive(send_with_retries(POST, POLICY), [Answer(status)])
    assert (response.status_code, attempts, len(seen)) == (status, 1, 1)


def test_retry_after_is_waited_exactly() -> None:
    """A Retry-After within the cap is the sleep before the next attempt."""
    seen, _ = drive(send_with_retries(POST, POLICY), [Answer(429, {"retry-after": "3"}), Answer(200)])
    assert [i.seconds for i in seen if isinstance(i, Sleep)] == [3.0]


def test_retry_after_beyond_the_cap_is_not_waited() -> None:
    """A Retry-After longer than the cap returns the 429 at once (the error carries retry_after)."""
    seen, (response, _) = drive(send_with_retries(POST, POLICY), [Answer(429, {"retry-after": "120"})])
    assert response.status_code == 429 and not any(isinstance(i, Sleep) for i in seen)


def test_backoff_is_bounded_full_jitter() -> None:
    """Attempt k waits between 0 and min(cap, base * 2**(k-1))."""
    assert POLICY.backoff(1, rand=lambda: 1.0) == 1.0
    assert POLICY.backoff(3, rand=lambda: 1.0) == 4.0
    assert POLICY.backoff(10, rand=lambda: 1.0) == 8.0
    assert POLICY.backoff(3, rand=lambda: 0.0) == 0.0


def test_connect_failure_is_retried() -> None:
    """A request that never left (connect error) is sent again, even a job-creating POST."""
    _, (response, attempts) = drive(send_with_retries(JOB_POST, POLICY), [lost(False), Answer(200)])
    assert (response.status_code, attempts) == (200, 2)


def test_lost_job_create_answer_is_not_retried() -> None:
    """A job POST whose answer was lost after sending raises, saying the job may exist."""
    with pytest.raises(APIConnectionError, match="may have created the job"):
        drive(send_with_retries(JOB_POST, POLICY), [lost(True), Answer(200)])


def test_lost_chat_answer_is_not_retried() -> None:
    """A chat POST whose answer was lost raises rather than risk a second charge."""
    with pytest.raises(APIConnectionError, match="not sent again"):
        drive(send_with_retries(POST, POLICY), [lost(True), Answer(200)])


def test_lost_get_answer_is_retried() -> None:
    """A GET (replay-safe) is retried after a lost answer."""
    _, (response, _) = drive(send_with_retries(GET, POLICY), [lost(True), Answer(200)])
    assert response.status_code == 200


class Polled:
    """Stands in for the client in wait_flow: its ledger and retry policy."""

    def __init__(self) -> None:
        from .conftest import RecordingLedger

        self.ledger = RecordingLedger()
        self._policy = POLICY

    def _get(self, path: str, **_: Any) -> Any:
        response = yield ApiRequest("GET", path, replay_safe=True)
        return response


def job_answer(status: str, **more: Any) -> Answer:
    return Answer(200, content=VideoJob(id="video_1", status=status, **more).model_dump_json().encode())


def test_wait_polls_with_growing_interval_until_completed() -> None:
    """wait polls, sleeping 0.5 s then growing, calls on_update each poll, returns the completed job."""
    updates: list[str] = []
    flow = wait_flow(Polled(), VideoJob(id="video_1", status="queued"), on_update=lambda j: updates.append(j.status), clock=lambda: 0.0)  # type: ignore[arg-type]
    seen, job = drive(flow, [job_answer("queued"), job_answer("in_progress"), job_answer("in_progress"), job_answer("completed")])
    assert [i.seconds for i in seen if isinstance(i, Sleep)] == [0.5, 0.75, 1.125]
    assert (job.status, updates) == ("completed", ["queued", "in_progress", "in_progress", "completed"])


def test_wait_interval_is_capped_at_five_seconds() -> None:
    """The poll interval never exceeds 5 s."""
    flow = wait_flow(Polled(), VideoJob(id="video_1", status="queued"), clock=lambda: 0.0)  # type: ignore[arg-type]
    seen, _ = drive(flow, [job_answer("queued")] * 12 + [job_answer("completed")])
    assert max(i.seconds for i in seen if isinstance(i, Sleep)) == 5.0


def test_wait_raises_job_failed_with_the_gateway_message() -> None:
    """A failed job raises JobFailedError with error.message and reports to the ledger."""
    client = Polled()
    flow = wait_flow(client, VideoJob(id="video_1", status="queued"), clock=lambda: 0.0)  # type: ignore[arg-type]
    with pytest.raises(JobFailedError, match="the render farm caught fire"):
        drive(flow, [job_answer("failed", error={"message": "the render farm caught fire"})])
    assert client.ledger.jobs == [("video_1", {"status": "failed", "seconds": None, "error_message": "the render farm caught fire"})]


def test_wait_timeout_says_how_to_resume() -> None:
    """Running out of time raises JobTimeoutError naming retrieve(id).wait()."""
    now = iter([0.0, 1.0, 2.5, 4.0])
    flow = wait_flow(Polled(), VideoJob(id="video_1", status="queued"), timeout=2.0, clock=lambda: next(now))  # type: ignore[arg-type]
    with pytest.raises(JobTimeoutError, match=r"client\.videos\.retrieve\('video_1'\)\.wait\(\)"):
        drive(flow, [job_answer("queued")] * 5)
