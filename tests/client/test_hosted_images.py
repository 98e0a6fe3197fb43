"""Hosted image links (``data: [{"url": "https://..."}]``, as OpenAI and Azure answer; issue 28, item 21).

The gateway and the image host are two origins of one ``httpx.MockTransport``: a transport-level
edge case (the offline gateway always answers inline images).
"""

from __future__ import annotations

import asyncio
import io
from typing import Any, Callable

import httpx
import pytest
from PIL import Image

import gatewaykit as gk

from tests.client.conftest import RecordingLedger

GATEWAY = "http://gateway.test"
HOSTED = "https://images.example/generated/abc.png"


def png(width: int = 8, height: int = 6) -> bytes:
    buffer = io.BytesIO()
    Image.new("1" if width * height > 1_000_000 else "RGB", (width, height)).save(buffer, "PNG")  # big ones: 1 bit
    return buffer.getvalue()


def answer_with_link(url: str = HOSTED) -> httpx.Response:
    return httpx.Response(200, json={"created": 1, "model": "img", "data": [{"url": url}]})


def host(image: Callable[[], httpx.Response]) -> tuple[Callable[[httpx.Request], httpx.Response], list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.host == "images.example":
            return image()
        return answer_with_link()

    return answer, seen


def client_for(handler: Callable[[httpx.Request], httpx.Response], **options: Any) -> gk.Client:
    return gk.Client(
        api_key="sk-hosted-test-0123456789", base_url=GATEWAY, http_transport=httpx.MockTransport(handler),
        max_retries=0, display=False, validate=False, ledger=RecordingLedger(), **options,
    )  # fmt: skip


def test_a_hosted_image_is_fetched_and_opens() -> None:
    """``.images`` of a hosted link is the fetched picture; the link stays in ``url``; no key went to the host."""
    handler, seen = host(lambda: httpx.Response(200, content=png(), headers={"content-type": "image/png"}))
    with client_for(handler) as client:
        result = client.images.generate(model="img", prompt="a red square")
    assert result.images[0].size == (8, 6) and result.data[0].url == HOSTED
    (fetch,) = [request for request in seen if request.url.host == "images.example"]
    assert "authorization" not in fetch.headers


def test_the_async_client_fetches_hosted_images_too() -> None:
    """``await aclient.images.generate(...)`` fetches the link the same way."""
    handler, _ = host(lambda: httpx.Response(200, content=png(), headers={"content-type": "image/png"}))

    async def main() -> Any:
        async with gk.AsyncClient(
            api_key="sk-hosted-test-0123456789", base_url=GATEWAY, http_transport=httpx.MockTransport(handler),
            max_retries=0, display=False, validate=False, ledger=RecordingLedger(),
        ) as client:  # fmt: skip
            return await client.images.generate(model="img", prompt="a red square")

    assert asyncio.run(main()).images[0].size == (8, 6)


def test_an_expired_link_is_a_gateway_error_saying_what_to_do() -> None:
    """A link answering 403 (expired): the paid result returns; ``.images`` raises GatewayError, never ValueError."""
    handler, _ = host(lambda: httpx.Response(403, text="<Error><Code>AccessDenied</Code></Error>"))
    with client_for(handler) as client:
        result = client.images.generate(model="img", prompt="a red square")
    with pytest.raises(gk.GatewayError) as caught:
        result.images
    message = caught.value.message
    assert HOSTED in message and "response_format='b64_json'" in message and "403" in message


@pytest.mark.parametrize(
    ("served", "why"),
    [
        (lambda: httpx.Response(200, content=b"%!PS-Adobe-3.0 EPSF", headers={"content-type": "image/png"}), "not a PNG"),
        (lambda: httpx.Response(200, content=png(8000, 6000)), "pixels"),
    ],
    ids=["not-an-image-format", "too-many-pixels"],
)
def test_a_hosted_image_is_checked_as_untrusted(served: Callable[[], httpx.Response], why: str) -> None:
    """A link serving another format (EPS) or more than MAX_IMAGE_PIXELS is refused, naming why."""
    handler, _ = host(served)
    with client_for(handler) as client:
        result = client.images.generate(model="img", prompt="a red square")
    with pytest.raises(gk.GatewayError, match=why):
        result.images


def test_a_hosted_image_over_the_size_limit_is_not_read_whole() -> None:
    """A link serving more than ``max_response_bytes`` is refused by the transport's limit."""
    handler, _ = host(lambda: httpx.Response(200, content=png() + b"\0" * 3_000_000))
    with client_for(handler, max_response_bytes=1_000_000) as client:
        result = client.images.generate(model="img", prompt="a red square")
    with pytest.raises(gk.GatewayError, match="max_response_bytes"):
        result.data[0].content
