"""Typed errors before anything is sent, and a key that never reaches a log (issue 14, defect 11)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import gatewaykit as gk

from .conftest import RecordingLedger, user


def test_messages_none_is_a_clear_type_error(client: gk.Client) -> None:
    """messages=None raises TypeError saying messages must be a list."""
    with pytest.raises(TypeError, match="messages must be a list"):
        client.chat.completions.create(model="chat-mini", messages=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_seed_names_the_field(client: gk.Client, sink: RecordingLedger, value: float) -> None:
    """seed=nan/inf raises BadRequestError naming seed, and nothing is sent or recorded."""
    with pytest.raises(gk.BadRequestError, match="seed") as caught:
        client.chat.completions.create(model="chat-mini", messages=user("hi"), seed=value, validate=False)  # type: ignore[arg-type]
    assert caught.value.param == "seed" and sink.records == []


def test_non_finite_float_deep_in_the_body_names_its_place(client: gk.Client) -> None:
    """A NaN inside metadata is reported with its path in the body."""
    with pytest.raises(gk.BadRequestError, match=r"metadata\.weights\[1\]"):
        client.chat.completions.create(
            model="chat-mini", messages=user("hi"), metadata={"weights": [1.0, float("nan")]}, validate=False
        )


def test_lone_surrogate_in_content_names_the_message(client: gk.Client, sink: RecordingLedger) -> None:
    """A lone surrogate in a message's content raises BadRequestError naming messages[1].content."""
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "bad \ud800 text"}]
    with pytest.raises(gk.BadRequestError, match=r"messages\[1\]\.content") as caught:
        client.chat.completions.create(model="chat-mini", messages=messages)
    assert "surrogate" in caught.value.message and sink.records == []


@pytest.mark.parametrize("key", ["sk-bf-with space-1", "sk-bf-trailing-newline\n", " sk-bf-leading", "sk-bf-caf\u00e9"])
def test_malformed_key_is_a_configuration_error_at_construction(emulator: Any, key: str) -> None:
    """A key with whitespace or non-ASCII characters fails at Client() with ConfigurationError, key not shown."""
    with pytest.raises(gk.ConfigurationError, match="API key") as caught:
        gk.Client(api_key=key, base_url=emulator.base_url)
    assert key.strip() not in str(caught.value)


def test_malformed_key_from_the_environment_is_refused(emulator: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """SVC_API_KEY with a line break is refused at construction, naming where it came from."""
    monkeypatch.setenv("SVC_API_KEY", "sk-bf-from-env\n")
    monkeypatch.setenv("SVC_BASE_URL", emulator.base_url)
    with pytest.raises(gk.ConfigurationError, match="environment"):
        gk.Client()


def _logged_text(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(f"{record.getMessage()} {record.exc_text or ''}" for record in caplog.records)


def test_no_http_log_carries_a_valid_key(client: gk.Client, keys: Any, caplog: pytest.LogCaptureFixture) -> None:
    """With httpx and httpcore logging at DEBUG, a real chat's log records never hold the key."""
    with caplog.at_level(logging.DEBUG, logger="httpx"), caplog.at_level(logging.DEBUG, logger="httpcore"):
        client.chat.completions.create(model="chat-mini", messages=user("hi"))
    assert caplog.records and keys.acme not in _logged_text(caplog)


def test_no_http_log_carries_a_malformed_key(emulator: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A malformed key never reaches httpcore's DEBUG log (refused before any request)."""
    key = "sk-bf-leaky key-0000000000000007"
    with caplog.at_level(logging.DEBUG, logger="httpx"), caplog.at_level(logging.DEBUG, logger="httpcore"):
        with pytest.raises(gk.GatewayError):
            gk.Client(api_key=key, base_url=emulator.base_url, max_retries=0).models.list()
    assert "leaky" not in _logged_text(caplog)


def test_non_finite_float_in_an_edit_form_names_the_field(client: gk.Client, sink: RecordingLedger) -> None:
    """images.edit(seed=inf) (a multipart form, not JSON) is refused the same way, naming seed."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, format="PNG")
    with pytest.raises(gk.BadRequestError, match="seed"):
        client.images.edit(model="image-pixels", prompt="x", image=buffer.getvalue(), seed=float("inf"), validate=False)  # type: ignore[arg-type]
    assert sink.records == []
