"""Every error class, as the offline gateway produces it, mapped at the client's one boundary."""

from __future__ import annotations

import socket
from typing import Any

import pytest

import gatewaykit as gk

from .conftest import RecordingLedger, user


def chat(client: gk.Client, model: str = "chat-mini", **options: Any) -> gk.ChatCompletion:
    return client.chat.completions.create(model=model, messages=user("Hi"), **options)


def test_unknown_model_is_model_not_found(client: gk.Client, sink: RecordingLedger) -> None:
    """A model id not in the catalog: ModelNotFoundError (400), recorded as an error."""
    with pytest.raises(gk.ModelNotFoundError) as caught:
        chat(client, model="no-such-model")
    assert (caught.value.status, caught.value.code) == (400, "model_not_found")
    assert [(r.status, r.http_status, r.error_code) for r in sink.records] == [("error", 400, "model_not_found")]


def test_bad_value_from_the_gateway_is_bad_request(client: gk.Client) -> None:
    """With checks off, the gateway's own 400 for an out-of-range value is a BadRequestError."""
    with pytest.raises(gk.BadRequestError) as caught:
        chat(client, temperature=5, validate=False)
    assert caught.value.status == 400


def test_prompt_too_long_from_the_gateway(client: gk.Client) -> None:
    """With checks off, an over-long image prompt comes back as PromptTooLongError."""
    with pytest.raises(gk.PromptTooLongError):
        client.images.generate(model="image-aspect", prompt="x" * 8_001, validate=False)


def test_unknown_key_is_authentication_error(make_client: Any) -> None:
    """An unknown key: AuthenticationError (401 invalid_api_key), the key nowhere in the message."""
    with pytest.raises(gk.AuthenticationError) as caught:
        chat(make_client("sk-bf-not-a-real-key-000000000000"))
    assert "not-a-real-key" not in str(caught.value) + repr(caught.value)


def test_empty_balance_is_insufficient_quota(make_client: Any, keys: Any) -> None:
    """An account without credit: InsufficientQuotaError (402)."""
    with pytest.raises(gk.InsufficientQuotaError):
        chat(make_client(keys.tight), model="chat-reasoner", max_tokens=2000)


def test_revoked_key_is_permission_denied(make_client: Any, keys: Any) -> None:
    """A revoked key: PermissionDeniedError (403)."""
    with pytest.raises(gk.PermissionDeniedError):
        chat(make_client(keys.revoked))


def test_model_not_allowed_for_key_is_both_errors(make_client: Any, keys: Any) -> None:
    """A model the key may not use: 403 model_not_found, both PermissionDenied and ModelNotFound."""
    with pytest.raises(gk.PermissionDeniedError) as caught:
        chat(make_client(keys.chat_only), model="chat-reasoner")
    assert isinstance(caught.value, gk.ModelNotFoundError) and caught.value.status == 403


def test_rate_limit_after_retries(client: gk.Client, sink: RecordingLedger) -> None:
    """A 429 whose Retry-After exceeds the cap is raised as RateLimitError with retry_after."""
    with pytest.raises(gk.RateLimitError) as caught:
        chat(client, extra_headers={"X-Emulator-Fault": "429"})
    assert caught.value.retry_after == 1.0
    assert sink.records[0].http_status == 429


@pytest.mark.parametrize("fault", ["500", "503"])
def test_server_errors_are_retried_then_raised(client: gk.Client, sink: RecordingLedger, fault: str) -> None:
    """5xx faults are retried max_retries times, then raised as ServerError."""
    with pytest.raises(gk.ServerError) as caught:
        chat(client, extra_headers={"X-Emulator-Fault": fault})
    assert caught.value.status == int(fault)
    assert sink.records[0].attempts == 3


def test_lost_chat_answer_is_connection_error(client: gk.Client, sink: RecordingLedger) -> None:
    """A dropped connection on a buffered chat raises APIConnectionError and is not re-sent."""
    with pytest.raises(gk.APIConnectionError, match="not sent again"):
        chat(client, extra_headers={"X-Emulator-Fault": "disconnect"})
    assert [(r.status, r.attempts) for r in sink.records] == [("error", 1)]


def test_slow_answer_times_out(client: gk.Client) -> None:
    """A per-call timeout shorter than the answer raises APITimeoutError."""
    with pytest.raises(gk.APITimeoutError):
        chat(client, timeout=0.2, extra_headers={"X-Emulator-Fault": "slow"})


def test_refused_connection_is_retried_then_raised(sink: RecordingLedger) -> None:
    """Nothing listening: connect errors are retried (they never reached a server), then APIConnectionError."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    from .conftest import FAST_RETRIES

    with gk.Client(api_key="sk-bf-x", base_url=f"http://127.0.0.1:{port}", ledger=sink, retry_policy=FAST_RETRIES) as client:
        with pytest.raises(gk.APIConnectionError) as caught:
            chat(client, validate=False)
    assert not isinstance(caught.value, gk.APITimeoutError)
    assert caught.value.request_sent is False


def test_refused_connection_is_retried_and_counted(sink: RecordingLedger) -> None:
    """A request that never reached a server is retried; the ledger row counts every attempt."""
    from .conftest import FAST_RETRIES

    with socket.socket() as probe:  # a loopback port with nothing listening on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = gk.Client(base_url=f"http://127.0.0.1:{port}", api_key="sk-bf-unused", ledger=sink,
                       retry_policy=FAST_RETRIES, validate=False)  # fmt: skip
    with closed, pytest.raises(gk.APIConnectionError):
        chat(closed)
    assert [(r.status, r.attempts) for r in sink.records] == [("error", 3)]
