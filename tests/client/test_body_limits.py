"""An answer's decoded size is bounded (issue 28, item 5): a gzip bomb is refused, never unpacked whole.

``httpx.MockTransport`` serves raw (still compressed) bodies: a transport-level edge case the offline
gateway never sends.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from typing import Any

import httpx
import pytest

import gatewaykit as gk

from tests.client.conftest import RecordingLedger

BASE_URL = "http://bombs.test"
LIMIT = 1_000_000
MESSAGES = [{"role": "user", "content": "hi"}]
ANSWER = {
    "id": "c1", "object": "chat.completion", "created": 1, "model": "mock-chat",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hello"}}],
}  # fmt: skip


def bomb(size: int) -> bytes:
    """``size`` bytes of JSON-looking padding, gzip-coded (about a thousandth of the size)."""
    return gzip.compress(b'{"padding": "' + b" " * size + b'"}', 9)


def raw_answer(body: bytes, coding: str = "gzip", content_type: str = "application/json") -> httpx.Response:
    """A response whose body reaches the client as sent (not read and decoded by the mock first)."""
    headers = {"content-type": content_type, "content-encoding": coding}
    return httpx.Response(200, headers=headers, stream=httpx.ByteStream(body))


def client_answering(answer: Any, **options: Any) -> gk.Client:
    options.setdefault("ledger", RecordingLedger())
    transport = httpx.MockTransport(lambda request: answer(request))
    return gk.Client(
        api_key="sk-bomb-test-0123456789", base_url=BASE_URL, http_transport=transport, max_retries=0,
        validate=False, display=False, max_response_bytes=LIMIT, **options,
    )  # fmt: skip


def test_a_gzip_bomb_is_refused_past_the_limit() -> None:
    """A 50 MB answer sent as ~50 KB of gzip raises ResponseTooLargeError naming the limit and how to raise it."""
    body = bomb(50_000_000)
    assert len(body) < 100_000
    ledger = RecordingLedger()
    with client_answering(lambda request: raw_answer(body), ledger=ledger) as client:
        with pytest.raises(gk.ResponseTooLargeError) as caught:
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)
    error = caught.value
    assert error.limit == LIMIT and isinstance(error, gk.UnexpectedResponseError) and error.status == 200
    assert "1,000,000 bytes" in error.message and "max_response_bytes" in error.message and "gzip" in error.message
    assert error.message.startswith("client.chat.completions.create(")  # the call is named (when it fails only)
    (row,) = ledger.records  # a 200 that could not be read may have been charged: interrupted, not error
    assert row.status == "interrupted" and "max_response_bytes" in (row.error_message or "")


def test_the_refusal_comes_before_the_body_is_unpacked() -> None:
    """Reading stops at the limit: the decoder never produced the 50 MB (it stopped within a piece of the limit)."""
    from gatewaykit.client.transports.body_reading import PIECE, BodyReader

    reader = BodyReader("gzip", LIMIT)
    produced = 0
    with pytest.raises(gk.ResponseTooLargeError):
        for piece in reader.feed(bomb(50_000_000)):
            produced += len(piece)
    assert produced <= LIMIT and reader.size <= LIMIT + PIECE


def test_a_streamed_gzip_bomb_is_refused_and_recorded_interrupted() -> None:
    """A chat stream whose events decode past the limit raises; the row is interrupted (the answer may be charged)."""
    event = b"data: " + json.dumps({"id": "s", "object": "chat.completion.chunk", "created": 1, "model": "m",
                                     "choices": [{"index": 0, "delta": {"content": " " * 1000}}]}).encode() + b"\n\n"  # fmt: skip
    body = gzip.compress(event * 5000, 9)
    ledger = RecordingLedger()
    with client_answering(lambda request: raw_answer(body, content_type="text/event-stream"), ledger=ledger) as client:
        stream = client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True)
        with pytest.raises(gk.ResponseTooLargeError):
            stream.final()
    (row,) = ledger.records
    assert row.status == "interrupted" and "max_response_bytes" in (row.error_message or "")


def test_the_async_client_refuses_a_bomb_too() -> None:
    """``AsyncClient`` reads bodies through the same bounded decoding."""
    body = bomb(20_000_000)

    async def main() -> None:
        transport = httpx.MockTransport(lambda request: raw_answer(body))
        async with gk.AsyncClient(
            api_key="sk-bomb-test-0123456789", base_url=BASE_URL, http_transport=transport, max_retries=0,
            validate=False, display=False, max_response_bytes=LIMIT, ledger=RecordingLedger(),
        ) as client:  # fmt: skip
            with pytest.raises(gk.ResponseTooLargeError):
                await client.chat.completions.create(model="mock-chat", messages=MESSAGES)

    asyncio.run(main())


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_compressed_answers_under_the_limit_read_as_before(coding: str) -> None:
    """gzip, zlib-wrapped deflate and raw deflate answers under the limit decode to the answer."""
    data = json.dumps(ANSWER).encode()
    if coding == "gzip":
        body = gzip.compress(data)
    elif coding == "deflate":
        body = zlib.compress(data)
    else:
        packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        body = packer.compress(data) + packer.flush()
    header = "deflate" if coding == "raw-deflate" else coding
    with client_answering(lambda request: raw_answer(body, header)) as client:
        assert client.chat.completions.create(model="mock-chat", messages=MESSAGES).content == "hello"


def test_an_uncompressed_body_over_the_limit_is_refused() -> None:
    """The limit is on the decoded size, so a plain body over it is refused as well."""
    body = json.dumps({**ANSWER, "padding": " " * (2 * LIMIT)}).encode()
    with client_answering(lambda request: raw_answer(body, "identity")) as client:
        with pytest.raises(gk.ResponseTooLargeError):
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)


def test_a_coding_the_client_did_not_ask_for_is_refused_by_name() -> None:
    """A ``br`` body (the client asks for gzip, deflate) is an UnexpectedResponseError naming the coding."""
    with client_answering(lambda request: raw_answer(b"\x1b\x00\x00", "br")) as client:
        with pytest.raises(gk.UnexpectedResponseError, match="'br'.*gzip, deflate"):
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)


def test_the_client_asks_only_for_codings_it_bounds() -> None:
    """Requests carry ``Accept-Encoding: gzip, deflate`` (not br or zstd, which it cannot decode in bounds)."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return raw_answer(json.dumps(ANSWER).encode(), "identity")

    with client_answering(answer) as client:
        client.chat.completions.create(model="mock-chat", messages=MESSAGES)
    assert seen[0].headers["accept-encoding"] == "gzip, deflate"


def test_the_limit_must_be_a_positive_number_of_bytes() -> None:
    """``max_response_bytes=0`` is a ConfigurationError saying what it takes."""
    with pytest.raises(gk.ConfigurationError, match="max_response_bytes"):
        gk.Client(api_key="sk-x-0123456789", base_url=BASE_URL, max_response_bytes=0, display=False)


def test_the_emulator_answers_within_the_default_limit(emulator: Any, keys: Any) -> None:
    """The offline gateway's answers (a chat, a streamed chat, an image) read under the default limit."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False, ledger=RecordingLedger()) as client:
        model = client.models.pick("chat")
        assert client.chat.completions.create(model=model, messages=MESSAGES).content
        assert client.chat.completions.create(model=model, messages=MESSAGES, stream=True).final().content


def test_a_body_the_test_transport_read_already_is_held_to_the_limit_too() -> None:
    """httpx.MockTransport hands over a body it read itself (the client's fast path): over the limit it is
    refused all the same, sync and async; under it, it reads as usual."""
    big = json.dumps({**ANSWER, "padding": " " * (2 * LIMIT)}).encode()
    read = lambda body: httpx.Response(200, content=body, headers={"content-type": "application/json"})  # noqa: E731
    with client_answering(lambda request: read(big)) as client:
        with pytest.raises(gk.ResponseTooLargeError):
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)
    with client_answering(lambda request: read(json.dumps(ANSWER).encode())) as client:
        assert client.chat.completions.create(model="mock-chat", messages=MESSAGES).content == "hello"

    async def run_async() -> None:
        transport = httpx.MockTransport(lambda request: read(big))
        async with gk.AsyncClient(api_key="sk-bomb-test-0123456789", base_url=BASE_URL, http_transport=transport,
                                  max_retries=0, validate=False, display=False, max_response_bytes=LIMIT,
                                  ledger=RecordingLedger()) as client:
            with pytest.raises(gk.ResponseTooLargeError):
                await client.chat.completions.create(model="mock-chat", messages=MESSAGES)

    asyncio.run(run_async())
