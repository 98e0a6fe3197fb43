"""Every error is in the envelope: unknown routes, bad bodies, oversized bodies, junk input."""

from __future__ import annotations

import json

import httpx
import pytest
from gateway_accounts import ACME_KEY, auth
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatewaykit.emulator import start


def envelope(answer: httpx.Response) -> dict:
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "code", "param"}
    return body["error"]


def test_unknown_route_is_404_envelope(http):
    """An unknown path answers 404 in the envelope."""
    answer = http.get("/v1/nothing-here")
    assert answer.status_code == 404 and envelope(answer)["code"] == "unknown_url"


def test_wrong_method_is_405_envelope(http):
    """A known path with the wrong method answers 405 in the envelope."""
    answer = http.put("/v1/chat/completions", json={})
    assert answer.status_code == 405 and envelope(answer)["code"] == "method_not_allowed"


@pytest.mark.parametrize("content", [b"{not json", b"", b"[1, 2]", b'"text"', b"\xff\xfe"])
def test_body_that_is_not_a_json_object_is_400(http, content):
    """A body that is not a JSON object gives 400."""
    answer = http.post("/v1/chat/completions", content=content, headers={"Content-Type": "application/json"})
    assert answer.status_code == 400 and envelope(answer)["type"] == "invalid_request_error"


def test_form_body_on_a_json_endpoint_is_400(http):
    """A form-encoded body on a JSON endpoint gives 400 naming the content type."""
    answer = http.post("/v1/chat/completions", data={"model": "chat-mini"})
    assert answer.status_code == 400 and "application/json" in envelope(answer)["message"]


def test_json_body_on_the_edit_endpoint_is_400(http):
    """Image edits need multipart/form-data."""
    answer = http.post("/v1/images/edits", json={"model": "image-gpt", "prompt": "x"})
    assert answer.status_code == 400 and "multipart" in envelope(answer)["message"]


def test_oversized_body_is_413():
    """A body over the size limit gives 413 in the envelope."""
    with start(time_scale=0, max_body_bytes=1000) as gateway:
        answer = httpx.post(f"{gateway.base_url}/v1/chat/completions", headers=auth(gateway.api_key),
                            json={"model": "chat-mini", "messages": [{"role": "user", "content": "x" * 2000}]})
    assert answer.status_code == 413 and envelope(answer)["code"] == "request_too_large"


def test_crash_answers_500_envelope_marked_offline():
    """A route that crashes answers the 500 api_error envelope, still with X-Gateway-Offline: 1."""
    from starlette.routing import Route

    async def broken(request):
        raise RuntimeError("deliberately broken route")

    with start(time_scale=0) as gateway:
        gateway.app.router.routes.append(Route("/v1/broken", broken))
        answer = httpx.get(f"{gateway.base_url}/v1/broken")
    assert answer.status_code == 500 and envelope(answer)["type"] == "api_error"
    assert answer.headers["X-Gateway-Offline"] == "1"


def test_missing_required_fields_are_400_with_param(http):
    """A missing model or messages names the field."""
    assert envelope(http.post("/v1/chat/completions", json={"messages": []}))["param"] == "model"
    assert envelope(http.post("/v1/chat/completions", json={"model": "chat-mini"}))["param"] == "messages"


def test_model_of_the_wrong_kind_is_400(http):
    """An image model on the chat endpoint gives 400 pointing at the right path."""
    answer = http.post("/v1/chat/completions", json={"model": "image-gpt", "messages": [{"role": "user",
                                                                                          "content": "x"}]})
    assert answer.status_code == 400 and "/v1/images/generations" in envelope(answer)["message"]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                  max_size=4), max_leaves=12)
_FIELDS = st.sampled_from(["model", "messages", "prompt", "n", "stop", "tools", "tool_choice", "response_format",
                           "temperature", "width", "duration", "lyrics_prompt", "stream", "input_reference",
                           "max_tokens", "aspect_ratio", "resolution", "image_size", "seed"])
_MODELS = st.sampled_from(["chat-mini", "chat-reasoner", "chat-vision", "image-pixels", "image-aspect",
                           "video-tiers", "video-range", "music-song", "nope"])


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.sampled_from(["/v1/chat/completions", "/v1/images/generations", "/v1/videos",
                            "/v1/audio/generations"]),
       model=_MODELS, extra=st.dictionaries(_FIELDS, _JSON, max_size=5))
def test_fuzzed_junk_never_gives_a_server_error(emulator, path, model, extra):
    """Random field values never give a 5xx; every error is in the envelope."""
    body = {"model": model, **extra}
    answer = httpx.post(f"{emulator.base_url}{path}", content=json.dumps(body),
                        headers={**auth(ACME_KEY), "Content-Type": "application/json"}, timeout=60)
    assert answer.status_code < 500
    if answer.status_code >= 400:
        envelope(answer)
