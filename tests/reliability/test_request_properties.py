"""Property tests: SSE decoding of arbitrary event sequences, and request building (JSON and multipart)."""

from __future__ import annotations

import base64
import json
import email.policy
from email.parser import BytesParser
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gatewaykit as gk
from gatewaykit.client.core.sse import ServerSentEvent, decode_events

LINE_TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"), max_size=30)
NAME = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Zs", "Cc"], blacklist_characters=":"),
               min_size=1, max_size=20)
EVENT = st.tuples(st.none() | NAME, st.lists(LINE_TEXT, min_size=1, max_size=4),
                  st.lists(LINE_TEXT, max_size=2))  # (name, data lines, comments)


def _encode(events: list[tuple[Any, list[str], list[str]]], ending: str) -> bytes:
    out = []
    for name, lines, comments in events:
        out += [f":{comment}" for comment in comments]
        if name is not None:
            out.append(f"event: {name}")
        out += [f"data: {line}" for line in lines]
        out.append("")
    out += ["data: [DONE]", ""]
    return ending.join(out).encode() + ending.encode()


@settings(max_examples=300, deadline=None)
@given(st.lists(EVENT, max_size=6), st.sampled_from(["\n", "\r\n", "\r"]),
       st.lists(st.integers(min_value=0, max_value=100_000), max_size=40))
def test_any_event_sequence_survives_any_split_and_line_ending(events, ending, cuts):
    """Named and unnamed events, multi-line data and comments decode to themselves, then [DONE], however split."""
    raw = _encode(events, ending)
    points = sorted({0, len(raw), *(c % (len(raw) + 1) for c in cuts)})
    chunks = [raw[a:b] for a, b in zip(points, points[1:])]
    decoded = [(e.event, e.data) for e in decode_events(chunks)]
    assert decoded == [(name, "\n".join(lines)) for name, lines, _ in events] + [(None, "[DONE]")]
    assert all(isinstance(e, ServerSentEvent) for e in decode_events([raw]))


def _capturing_client(answer: dict[str, Any]) -> tuple[gk.Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        request.read()
        seen.append(request)
        return httpx.Response(200, json=answer)

    client = gk.Client(api_key="sk-bf-property-0000000000000001", base_url="http://gateway.test",
                       http_transport=httpx.MockTransport(handler), ledger=gk.Ledger(), validate=False)
    return client, seen


CHAT_ANSWER = {"id": "c1", "object": "chat.completion", "created": 1, "model": "chat-mini",
               "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}]}
KEYWORD = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda k: k not in {"model", "messages", "stream", "extra_body", "extra_headers", "timeout", "validate",
                        "stream_options"})
JSON_VALUE = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=10),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                      max_size=3), max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(KEYWORD, JSON_VALUE.filter(lambda v: v is not None), max_size=5),
       st.dictionaries(KEYWORD, JSON_VALUE, max_size=4))
def test_extra_keywords_and_extra_body_merge_into_the_json_body(kwargs, extra_body):
    """Unknown keywords are sent as-is; extra_body is merged last (it wins, and can send null)."""
    client, seen = _capturing_client(CHAT_ANSWER)
    with client:
        client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}],
                                       extra_body=extra_body, **kwargs)
    body = json.loads(seen[-1].content)
    expected = {"model": "chat-mini", "messages": [{"role": "user", "content": "hi"}], **kwargs, **extra_body}
    assert body == expected


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.binary(min_size=1, max_size=64), min_size=1, max_size=3), LINE_TEXT)
def test_image_parts_in_messages_become_data_uris(images, text):
    """Bytes in image parts are sent as base64 data: URIs beside the text part, in order."""
    png_head = b"\x89PNG\r\n\x1a\n"
    client, seen = _capturing_client(CHAT_ANSWER)
    parts = [{"type": "text", "text": text}, *({"type": "image_url", "image_url": png_head + data} for data in images)]
    with client:
        client.chat.completions.create(model="chat-vision", messages=[{"role": "user", "content": parts}])
    sent = json.loads(seen[-1].content)["messages"][0]["content"]
    assert sent[0] == {"type": "text", "text": text}
    urls = [part["image_url"]["url"] for part in sent[1:]]
    assert [base64.b64decode(url.split(",", 1)[1]) for url in urls] == [png_head + data for data in images]
    assert all(url.startswith("data:image/png;base64,") for url in urls)


IMAGE_ANSWER = {"created": 1, "model": "image-pixels", "size": "4x4", "data": []}
FORM_VALUE = st.one_of(st.booleans(), st.integers(-1000, 1000), st.from_regex(r"[A-Za-z0-9 ._-]{0,20}", fullmatch=True),
                       st.lists(st.integers(0, 9), max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(KEYWORD.filter(lambda k: k not in {"image", "prompt", "n", "stream"}), FORM_VALUE, max_size=5),
       st.lists(st.binary(min_size=1, max_size=200), min_size=1, max_size=4))
def test_edit_multipart_carries_every_field_and_every_image(fields, images):
    """Each keyword becomes one form field (booleans true/false, lists JSON); images are image[] parts in order."""
    client, seen = _capturing_client(IMAGE_ANSWER)
    with client:
        client.images.edit(model="image-pixels", prompt="edit", image=images, **fields)
    request = seen[-1]
    message = BytesParser(policy=email.policy.HTTP).parsebytes(b"Content-Type: " + request.headers["content-type"].encode() + b"\r\n\r\n"
                                       + request.content)
    form: dict[str, list[bytes]] = {}
    for part in message.iter_parts():
        form.setdefault(part.get_param("name", header="content-disposition"), []).append(part.get_payload(decode=True))
    assert form.pop("image[]") == images
    expected = {"model": "image-pixels", "prompt": "edit", **fields}
    assert {name: values[0].decode() for name, values in form.items()} == {
        name: ("true" if v is True else "false" if v is False else json.dumps(v) if isinstance(v, list) else str(v))
        for name, v in expected.items()}
