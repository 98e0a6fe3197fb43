"""The SSE decoder: a pure function of the bytes, whatever the chunk boundaries."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gatewaykit.client.core.sse import SSEDecoder, ServerSentEvent, decode_events

STREAM = (
    b": keepalive\n\n"
    b"event: image_generation.completed\ndata: {\"a\": 1}\n\n"
    b"data: first line\ndata: second line\n\n"
    b"id: 7\nretry: 1500\ndata: caf\xc3\xa9 \xe2\x98\x95\n\n"
    b"data: [DONE]\n\n"
)
EXPECTED = [
    ServerSentEvent('{"a": 1}', "image_generation.completed"),
    ServerSentEvent("first line\nsecond line"),
    ServerSentEvent("caf\u00e9 \u2615", None, "7", 1500),
    ServerSentEvent("[DONE]", None, "7", 1500),
]


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in zip(points, points[1:])]


def test_whole_stream_decodes_to_its_events() -> None:
    """One chunk with comments, named events, multi-line data, id/retry and UTF-8 gives the events."""
    assert list(decode_events([STREAM])) == EXPECTED


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=30))
def test_any_chunk_split_gives_the_same_events(cuts: list[int]) -> None:
    """Splitting the bytes anywhere (inside lines, CRLF pairs, UTF-8 sequences) changes nothing."""
    assert list(decode_events(split_at(STREAM, cuts))) == EXPECTED


@given(st.sampled_from([b"\r\n", b"\r", b"\n"]), st.lists(st.integers(min_value=0, max_value=10_000), max_size=20))
def test_every_line_ending_style_decodes_alike(ending: bytes, cuts: list[int]) -> None:
    """CRLF, CR and LF line endings give the same events, however the stream is split."""
    data = STREAM.replace(b"\n", ending)
    assert list(decode_events(split_at(data, cuts))) == EXPECTED


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"), max_size=40), min_size=1, max_size=8))
def test_data_lines_round_trip(lines: list[str]) -> None:
    """Any text, one data line per list item, comes back joined with newlines."""
    raw = "".join(f"data: {line}\n" for line in lines).encode() + b"\n"
    assert [event.data for event in decode_events([raw])] == ["\n".join(lines)]


def test_comments_alone_dispatch_nothing() -> None:
    """A stream of keepalive comments yields no event."""
    assert list(decode_events([b": ping\n\n: ping\n\n"])) == []


def test_unterminated_last_event_is_dropped() -> None:
    """An event without its closing blank line is not dispatched at the end of the stream."""
    assert [e.data for e in decode_events([b"data: a\n\ndata: b"])] == ["a"]


def test_field_without_space_and_without_colon() -> None:
    """``data:x`` keeps ``x``; a bare ``data`` line is an empty data line."""
    assert [e.data for e in decode_events([b"data:x\ndata\n\n"])] == ["x\n"]


def test_feed_returns_events_as_soon_as_they_complete() -> None:
    """The decoder is incremental: an event comes out with the chunk that completes it."""
    decoder = SSEDecoder()
    assert decoder.feed(b"data: hel") == []
    assert [e.data for e in decoder.feed(b"lo\n\ndata: x")] == ["hello"]


@given(st.sampled_from([b"\r\n", b"\n"]), st.lists(st.integers(min_value=0, max_value=10_000), max_size=20))
def test_feed_data_gives_the_same_events_one_data_line_ones_as_their_data(ending: bytes, cuts: list[int]) -> None:
    """``feed_data`` (the chat stream's): an unnamed event comes as its text, a named one as the event ``feed``
    gives, however the bytes are split; pending lines, blank-line runs, comments and ids between them change nothing."""
    stream = (
        b"data: one\n\n\n\ndata: two\n\n" + STREAM + b"data: {\"x\": 1}\n\n: ping\n\n"
        b"data: a\ndata: b\n\nevent: delta\ndata: named\n\ndata:no space\n\ndata: last\n\n"
    ).replace(b"\n", ending)
    decoder = SSEDecoder()
    got = [item for piece in split_at(stream, cuts) for item in decoder.feed_data(piece)] + decoder.finish()
    assert got == [
        "one", "two", EXPECTED[0], "first line\nsecond line", "caf\u00e9 \u2615", "[DONE]", '{"x": 1}', "a\nb",
        ServerSentEvent("named", "delta", "7", 1500), "no space", "last",
    ]  # fmt: skip
