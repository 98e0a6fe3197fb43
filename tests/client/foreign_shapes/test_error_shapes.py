"""Error answers in the shapes real servers and proxies send: each a typed gatewaykit error that reads well."""

from __future__ import annotations

import pytest

import gatewaykit as gk

from tests.client.foreign_shapes.foreign_server import Answer, foreign_client, recorded

CHAT = "POST /v1/chat/completions"
MESSAGES = [{"role": "user", "content": "hi"}]


def error_of(body: object, status: int, **answer: object) -> gk.GatewayError:
    with foreign_client({CHAT: Answer(body, status=status, **answer)}) as client:  # type: ignore[arg-type]
        with pytest.raises(gk.GatewayError) as caught:
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)
    return caught.value


def test_code_repeating_the_status_is_not_shown_twice() -> None:
    """LiteLLM's ``code: "400"`` reads "400: ...", not "400 400: ..."."""
    error = error_of(recorded("litellm/error_no_messages.json"), 400)
    assert isinstance(error, gk.BadRequestError) and error.code is None and error.param == "messages"
    assert str(error).startswith("400: ") and "400 400" not in str(error)


def test_litellm_rate_limit_is_a_rate_limit_error() -> None:
    """LiteLLM's 429 (``code: "429"``, type throttling_error) is RateLimitError with its message."""
    error = error_of(recorded("litellm/error_ratelimit.json"), 429)
    assert isinstance(error, gk.RateLimitError) and "mock rate limit error" in error.message


def test_litellm_unknown_model_is_a_bad_request() -> None:
    """LiteLLM's unknown-model 400 keeps its message; ``param: null`` stays None."""
    error = error_of(recorded("litellm/error_unknown_model.json"), 400)
    assert isinstance(error, gk.BadRequestError) and "no-such-model" in error.message and error.param is None


def test_none_strings_are_absent_fields() -> None:
    """``"type": "None"``, ``"param": "None"`` (LiteLLM) read as absent."""
    error = error_of({"error": {"message": "bad", "type": "None", "param": "None", "code": "None"}}, 400)
    assert (error.type, error.param, error.code) == ("invalid_request_error", None, None)


def test_error_as_a_string() -> None:
    """``{"error": "text"}`` gives that text as the message."""
    error = error_of({"error": "model is overloaded"}, 503)
    assert isinstance(error, gk.ServerError) and error.message == "model is overloaded"


def test_fastapi_detail_string() -> None:
    """FastAPI's ``{"detail": "Not authenticated"}`` is the message of a 401."""
    error = error_of({"detail": "Not authenticated"}, 401)
    assert isinstance(error, gk.AuthenticationError) and error.message == "Not authenticated"


def test_fastapi_validation_detail_list() -> None:
    """FastAPI's 422 list of ``{loc, msg}`` reads as "field: message" with the field as ``param``."""
    detail = [{"loc": ["body", "messages"], "msg": "Field required", "type": "missing"}]
    error = error_of({"detail": detail}, 422)
    assert isinstance(error, gk.BadRequestError) and error.message == "messages: Field required" and error.param == "messages"


def test_html_502_from_a_proxy() -> None:
    """A proxy's HTML 502 page is a ServerError naming the call and the page's title, no markup."""
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"
    error = error_of(page, 502, content_type="text/html")
    assert isinstance(error, gk.ServerError) and error.status == 502
    assert "client.chat.completions.create(...)" in error.message and "HTML page" in error.message
    assert "502 Bad Gateway" in error.message and "<" not in error.message


def test_plain_text_error() -> None:
    """A text/plain error body is the message's excerpt."""
    error = error_of("upstream connect error or disconnect/reset before headers", 503, content_type="text/plain")
    assert isinstance(error, gk.ServerError) and "upstream connect error" in error.message


def test_empty_error_body() -> None:
    """An empty 500 still names the call and the status."""
    error = error_of(b"", 500, content_type="text/plain")
    assert "500" in str(error) and "no error message" in error.message


def test_litellm_no_db_answer_for_a_bad_key() -> None:
    """LiteLLM without a database answers a wrong key with 400 "No connected db.": a BadRequestError."""
    error = error_of(recorded("litellm/error_bad_key.json"), 400)
    assert isinstance(error, gk.BadRequestError) and error.type == "no_db_connection"


def test_error_bodies_never_show_keys() -> None:
    """A key echoed in a foreign error body is scrubbed from the message."""
    error = error_of({"detail": "Invalid key sk-abcdef0123456789"}, 401)
    assert "sk-abcdef0123456789" not in str(error)
