"""Limits answer with clear 4xx envelopes that say what to change."""

from __future__ import annotations

import io
import time
from typing import Any, Iterator

import httpx
import pytest
from gateway_accounts import ACME_KEY
from reliability_gateways import one_account

import gatewaykit as gk

KEY = "sk-bf-limits-account-0000000000001"
SMALL = {"Authorization": f"Bearer {KEY}"}
HEADERS = {"Authorization": f"Bearer {ACME_KEY}"}  # the session gateway's account


@pytest.fixture(scope="module")
def small_gateway() -> Iterator[Any]:
    """A gateway with a 200 KiB body limit."""
    with gk.emulator.start(accounts=one_account("limits", KEY), time_scale=0, max_body_bytes=200 * 1024) as running:
        yield running


def _error(answer: httpx.Response) -> dict[str, Any]:
    return answer.json()["error"]


def _png(width: int, height: int, mode: str = "RGB") -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new(mode, (width, height)).save(buffer, format="PNG")
    return buffer.getvalue()


def _edit(gateway: Any, images: list[bytes], headers: dict[str, str] = HEADERS) -> httpx.Response:
    files = [("image[]", (f"in{i}.png", data, "image/png")) for i, data in enumerate(images)]
    return httpx.post(f"{gateway.base_url}/v1/images/edits", headers=headers, timeout=60, files=files,
                      data={"model": "image-tiers", "prompt": "make it blue"})


def test_oversized_json_body_is_413_saying_the_limit(small_gateway):
    """A body over the limit: 413 invalid_request_error whose message states the limit in readable units."""
    answer = httpx.post(f"{small_gateway.base_url}/v1/chat/completions", headers=SMALL,
                        json={"model": "chat-mini", "messages": [{"role": "user", "content": "x" * 300_000}]})
    error = _error(answer)
    assert answer.status_code == 413 and error["type"] == "invalid_request_error"
    assert "200 KiB" in error["message"]


def test_oversized_multipart_body_is_413(small_gateway):
    """An edit whose images exceed the body limit is 413 before anything is decoded."""
    noise = bytes(range(256)) * 1200
    answer = _edit(small_gateway, [noise], SMALL)
    assert answer.status_code == 413 and "smaller" in _error(answer)["message"]


def test_decompression_bomb_in_an_edit_is_400_param_image(emulator):
    """A small PNG declaring 100 megapixels is refused from its header: 400, param image, the limit named."""
    bomb = _png(10_000, 10_000, mode="1")
    assert len(bomb) < 200_000
    began = time.monotonic()
    answer = _edit(emulator, [bomb])
    error = _error(answer)
    assert answer.status_code == 400 and error["param"] == "image"
    assert "100,000,000 pixels" in error["message"] and "limit" in error["message"]
    assert time.monotonic() - began < 60, "refused from its header: a full decode would take far longer"


def test_undecodable_edit_input_is_400_param_image(emulator):
    """Garbage bytes as an edit input: 400 param image naming the part."""
    answer = _edit(emulator, [b"this is not an image"])
    assert answer.status_code == 400 and _error(answer)["param"] == "image" and "in0.png" in _error(answer)["message"]


def test_too_many_reference_images_is_400_with_the_model_limit(emulator):
    """More reference images than the model takes: 400 param image saying the maximum."""
    answer = httpx.post(f"{emulator.base_url}/v1/images/edits", headers=HEADERS, timeout=60,
                        files=[("image[]", (f"{i}.png", _png(8, 8), "image/png")) for i in range(5)],
                        data={"model": "image-pixels", "prompt": "x"})
    assert answer.status_code == 400 and "at most 4" in _error(answer)["message"]


def test_too_many_multipart_parts_is_4xx_envelope(emulator):
    """A multipart body with hundreds of parts is refused in the envelope, saying which limit."""
    files = [("image[]", (f"{i}.png", b"x", "image/png")) for i in range(40)]
    answer = httpx.post(f"{emulator.base_url}/v1/images/edits", headers=HEADERS, files=files,
                        data={"model": "image-tiers", "prompt": "x"})
    assert answer.status_code in (400, 413) and "files" in _error(answer)["message"].lower()
    fields = {f"field{i}": "v" for i in range(200)}
    answer = httpx.post(f"{emulator.base_url}/v1/images/edits", headers=HEADERS, data={**fields, "prompt": "x"},
                        files=[("image[]", ("a.png", _png(8, 8), "image/png"))])
    assert answer.status_code in (400, 413) and "fields" in _error(answer)["message"].lower()


def test_image_prompt_over_the_model_limit_is_prompt_too_long(emulator):
    """An image prompt past prompt_max_length: 400 PROMPT_TOO_LONG saying both lengths."""
    answer = httpx.post(f"{emulator.base_url}/v1/images/generations", headers=HEADERS,
                        json={"model": "image-aspect", "prompt": "p" * 8_001})
    error = _error(answer)
    assert answer.status_code == 400 and error["code"] == "PROMPT_TOO_LONG" and "8000" in error["message"] and "8001" in error["message"]


def test_too_many_chat_messages_is_400_saying_the_maximum(emulator):
    """A conversation longer than the message cap: 400 param messages naming the cap."""
    from gatewaykit.emulator.chat.request import MAX_MESSAGES

    messages = [{"role": "user", "content": "hi"}] * (MAX_MESSAGES + 1)
    answer = httpx.post(f"{emulator.base_url}/v1/chat/completions", headers=HEADERS,
                        json={"model": "chat-mini", "messages": messages})
    error = _error(answer)
    assert answer.status_code == 400 and error["param"] == "messages" and f"{MAX_MESSAGES:,}" in error["message"]


def test_overlong_chat_message_is_400_naming_the_message(emulator):
    """One message over the per-message size cap: 400 naming that message and the cap."""
    from gatewaykit.emulator.chat.request import MAX_MESSAGE_CHARS

    messages = [{"role": "user", "content": "ok"}, {"role": "user", "content": "y" * (MAX_MESSAGE_CHARS + 1)}]
    answer = httpx.post(f"{emulator.base_url}/v1/chat/completions", headers=HEADERS, timeout=60,
                        json={"model": "chat-mini", "messages": messages})
    error = _error(answer)
    assert answer.status_code == 400 and error["param"] == "messages[1].content"
    assert f"{MAX_MESSAGE_CHARS:,}" in error["message"]


def test_client_raises_bad_request_for_limits(emulator):
    """Through the client, a limit is the typed BadRequestError with the gateway's message."""
    from gatewaykit.emulator.chat.request import MAX_MESSAGES

    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger()) as client:
        with pytest.raises(gk.BadRequestError, match="messages"):
            client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "a"}]
                                           * (MAX_MESSAGES + 1), validate=False)
