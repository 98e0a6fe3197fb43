"""Streams in the shapes real servers send: read to the end, or a clear error with what arrived kept."""

from __future__ import annotations

import asyncio

import pytest

import gatewaykit as gk
from gatewaykit.notebook.chat_views.live import render_stream
from gatewaykit.notebook.cell_output.sinks import CapturingSink

from tests.client.foreign_shapes.foreign_server import Answer, chunk, foreign_async_client, foreign_client, recorded, sse, streamed

CHAT = "POST /v1/chat/completions"
MESSAGES = [{"role": "user", "content": "hi"}]
USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}


def stream_of(body: bytes, ledger: object = None) -> gk.ChatCompletion:
    with foreign_client({CHAT: streamed(body)}, ledger) as client:  # type: ignore[arg-type]
        return client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True).final()


def test_litellm_stream_with_cost_as_a_number() -> None:
    """LiteLLM's stream (last chunk ``usage.cost: 4.8e-6``) assembles, its cost the reported total."""
    ledger = gk.Ledger()
    answer = stream_of(recorded("litellm/chat_stream_usage.sse"), ledger)
    assert answer.content == "Hello from the mock proxy." and answer.choices[0].finish_reason == "stop"
    assert answer.usage is not None and answer.usage.total_cost == pytest.approx(4.8e-6)
    (row,) = ledger.rows
    assert (row["status"], row["cost_source"]) == ("ok", "reported") and row["total_cost"] == pytest.approx(4.8e-6)


def test_ask_reads_litellm_stream() -> None:
    """``client.chat.ask()`` (streamed by default) reads LiteLLM's stream: the crash of issue 18."""
    with foreign_client({CHAT: streamed(recorded("litellm/chat_stream_usage.sse"))}) as client:
        assert client.chat.ask("hi", model="mock-chat").content == "Hello from the mock proxy."


def test_stream_without_usage_is_not_reported_in_the_ledger() -> None:
    """A stream with no usage chunk: the answer reads; its ledger row is charged, cost "not reported"."""
    ledger = gk.Ledger()
    answer = stream_of(recorded("litellm/chat_stream.sse"), ledger)
    assert answer.content == "Hello from the mock proxy." and answer.usage is None
    (row,) = ledger.rows
    assert (row["status"], row["cost_source"], row["total_cost"]) == ("ok", "not reported", None)


def test_azure_first_chunk_with_no_choices() -> None:
    """Azure's first chunk (empty ``choices``, empty id, prompt_filter_results) is skipped over; the id comes later."""
    first = {"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": [{"prompt_index": 0}]}
    answer = stream_of(sse(first, chunk("Hel"), chunk("lo", finish="stop")))
    assert answer.content == "Hello" and answer.id == "chatcmpl-foreign" and answer.model == "mock-chat"


def test_reasoning_content_deltas_are_reasoning() -> None:
    """DeepSeek-style ``reasoning_content`` deltas assemble into ``reasoning``."""
    answer = stream_of(sse(chunk(reasoning_content="let me "), chunk(reasoning_content="think"), chunk("42", finish="stop")))
    assert answer.choices[0].message.reasoning == "let me think" and answer.content == "42"


def test_comments_event_lines_and_crlf() -> None:
    """SSE comments, ``event:`` names, a ``ping`` event and CRLF line ends are all read."""
    body = (
        b": OPENROUTER PROCESSING\r\n\r\n"
        b"event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n"
        b"event: message\r\ndata: " + sse(chunk("a"), done=False).split(b"data: ", 1)[1].replace(b"\n", b"\r\n")
        + b": keepalive\r\n\r\n" + sse(chunk("b", finish="stop"), newline="\r\n")
    )
    assert stream_of(body).content == "ab"


def test_unknown_finish_reason_in_a_stream() -> None:
    """A finish_reason no spec lists is kept as sent."""
    assert stream_of(sse(chunk("x", finish="eos"))).choices[0].finish_reason == "eos"


def test_usage_only_last_chunk_with_empty_choices() -> None:
    """OpenAI's include_usage chunk (``choices: []``) brings the usage."""
    answer = stream_of(sse(chunk("x", finish="stop"), {"id": "chatcmpl-foreign", "choices": [], "usage": USAGE}))
    assert answer.usage is not None and answer.usage.total_tokens == 5


def test_stream_without_done_but_finished_is_complete() -> None:
    """A server that closes after the finish_reason without ``[DONE]``: the answer is complete."""
    ledger = gk.Ledger()
    answer = stream_of(sse(chunk("x"), chunk(finish="stop"), done=False), ledger)
    assert answer.content == "x" and ledger.rows[0]["status"] == "ok"


def test_error_in_stream_with_string_code() -> None:
    """An error event with ``code: "429"`` (LiteLLM) is a RateLimitError, not "500 429"."""
    body = sse(chunk("a"), {"error": {"message": "slow down", "type": "throttling_error", "param": None, "code": "429"}}, done=False)
    with pytest.raises(gk.RateLimitError, match="slow down"):
        stream_of(body)


def test_error_in_stream_with_an_escaped_key_is_still_an_error() -> None:
    """An error event whose key is written ``"\\u0065rror"`` is the error it names, not an empty chunk."""
    event = 'data: {"\\u0065rror": {"message": "slow down", "type": "throttling_error", "code": "429"}}\n\n'
    with pytest.raises(gk.RateLimitError, match="slow down"):
        stream_of(sse(chunk("a"), event, done=False))


def test_non_ascii_content_escaped_by_the_server_reads_as_text() -> None:
    """Chunks whose text a Python server escaped (``\\u00e9``) assemble to the text itself."""
    body = sse(chunk("caf\u00e9 "), chunk("\u00fcber", finish="stop"), {**chunk(), "choices": [], "usage": USAGE})
    assert stream_of(body).content == "caf\u00e9 \u00fcber"


def test_unusable_chunk_mid_stream_is_a_clear_error_keeping_the_partial() -> None:
    """A chunk that is not JSON mid-stream: UnexpectedResponseError naming the stream call, the partial kept."""
    body = sse(chunk("Hello "), "data: {oops not json\n\n", chunk("never"), done=True)
    with pytest.raises(gk.UnexpectedResponseError) as caught:
        stream_of(body)
    error = caught.value
    assert "stream=True" in error.message and "not JSON" in error.message and "{oops not json" in error.message
    assert error.partial.content == "Hello "


def test_unusable_chunk_ledger_row_says_what_is_known() -> None:
    """The ledger row of that stream: charge unknown (not counted), the reason in its message, not a raw error."""
    ledger = gk.Ledger()
    with pytest.raises(gk.UnexpectedResponseError):
        stream_of(sse(chunk("Hello "), 'data: {"choices": "broken"}\n\n'), ledger)
    (row,) = ledger.rows
    assert (row["status"], row["charged"], row["total_cost"]) == ("interrupted", None, None)
    assert "cannot read" in row["error_message"] and "choices" in row["error_message"]


def test_unusable_chunk_leaves_the_live_view_finished() -> None:
    """The live display ends as static output showing the partial text and the error, never half-drawn."""
    sink = CapturingSink()
    with foreign_client({CHAT: streamed(sse(chunk("Hello "), "data: <html>\n\n"))}) as client:
        stream = client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True)
        with pytest.raises(gk.UnexpectedResponseError):
            render_stream(stream, sink=sink)
    assert "Hello" in sink.last["text/plain"] and "cannot read" in sink.last["text/plain"]


def test_async_stream_reads_litellm() -> None:
    """The async client reads LiteLLM's recorded stream with its cost."""

    async def main() -> gk.ChatCompletion:
        async with foreign_async_client({CHAT: streamed(recorded("litellm/chat_stream_usage.sse"))}) as client:
            stream = await client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True)
            return await stream.final()

    answer = asyncio.run(main())
    assert answer.content == "Hello from the mock proxy." and answer.usage is not None and answer.usage.total_cost


def test_async_unusable_chunk_is_a_clear_error() -> None:
    """The async stream raises the same UnexpectedResponseError."""

    async def main() -> None:
        async with foreign_async_client({CHAT: streamed(sse(chunk("a"), "data: nope\n\n"))}) as client:
            stream = await client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True)
            await stream.final()

    with pytest.raises(gk.UnexpectedResponseError):
        asyncio.run(main())


def test_html_error_page_instead_of_a_stream() -> None:
    """A 502 HTML page where a stream was expected: ServerError naming the call."""
    page = Answer("<html><title>502 Bad Gateway</title></html>", status=502, content_type="text/html")
    with foreign_client({CHAT: page}) as client, pytest.raises(gk.ServerError, match="HTML page"):
        client.chat.ask("hi", model="mock-chat")


def test_unreadable_image_event_is_an_unexpected_response() -> None:
    """An image stream whose completed event is not JSON: UnexpectedResponseError naming the call."""
    body = b"event: image_generation.completed\ndata: {truncated\n\n"
    with foreign_client({"POST /v1/images/generations": streamed(body)}, validate=False) as client:
        with pytest.raises(gk.UnexpectedResponseError, match=r"client\.images\.generate"):
            client.images.generate(model="mock-image", prompt="x", stream=True)
