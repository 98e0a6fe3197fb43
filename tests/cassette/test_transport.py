"""The cassette transports under a plain httpx client: chunking, matching, scrubbing, broken streams.

The "network" here is an httpx.MockTransport (transport edge cases only).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from gatewaykit.client.transports.cassette import CassetteTransport
from gatewaykit.client.transports.cassette_store import Cassette, normalise_request
from gatewaykit.errors import CassetteMissError

BASE = "http://gateway.test"
KEY = "sk-test-secret-0123456789"
SPLIT = ["data: caf\u00e9\n\n".encode()[:10], "data: caf\u00e9\n\n".encode()[10:]]  # é cut in two
SSE = [b"data: {\"a\": 1}\n\n", b"data: {\"a\"", b": 2}\n\n", b"data: [DONE]\n\n"]


class _Chunks(httpx.SyncByteStream):
    def __init__(self, chunks: list[bytes], fail: bool = False) -> None:
        self.chunks, self.fail = chunks, fail

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks
        if self.fail:
            raise httpx.RemoteProtocolError("peer closed the connection")


def network(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/sse":
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=_Chunks(SSE))
    if request.url.path == "/split":
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=_Chunks(SPLIT))
    if request.url.path == "/broken":
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=_Chunks(SSE[:2], fail=True))
    echo = {"seen": request.headers.get("authorization"), "n": int(request.url.params.get("n", 0))}
    return httpx.Response(200, json=echo, headers={"set-cookie": f"session={KEY}"})


def http(path: Path, mode: str) -> httpx.Client:
    transport = CassetteTransport(Cassette(path, mode), BASE, httpx.MockTransport(network))
    return httpx.Client(transport=transport, base_url=BASE, headers={"Authorization": f"Bearer {KEY}"})


def test_stream_replays_with_the_recorded_byte_chunks(tmp_path: Path) -> None:
    """The raw chunks a replayed stream yields are the chunks the network gave, split where they were split."""
    path = tmp_path / "c.jsonl"
    with http(path, "record") as client, client.stream("GET", "/sse") as response:
        recorded = list(response.iter_raw())
    with http(path, "replay") as client, client.stream("GET", "/sse") as response:
        assert list(response.iter_raw()) == recorded == SSE


def test_broken_stream_breaks_again_on_replay(tmp_path: Path) -> None:
    """A stream that broke off while recording yields the same chunks on replay, then a transport error."""
    path = tmp_path / "c.jsonl"
    with http(path, "record") as client, pytest.raises(httpx.RemoteProtocolError):
        with client.stream("GET", "/broken") as response:
            list(response.iter_raw())
    seen: list[bytes] = []
    with http(path, "replay") as client, pytest.raises(httpx.ReadError):
        with client.stream("GET", "/broken") as response:
            for chunk in response.iter_raw():
                seen.append(chunk)
    assert seen == SSE[:2]


def test_key_echoed_by_the_server_is_scrubbed(tmp_path: Path) -> None:
    """A key the server echoes back (body or cookie) is written as [redacted]; cookies are not kept at all."""
    path = tmp_path / "c.jsonl"
    with http(path, "record") as client:
        assert KEY in client.get("/echo").text
    data = path.read_text()
    assert KEY not in data and "[redacted]" in data and "set-cookie" not in data


def test_identical_requests_replay_in_recorded_order_then_repeat_the_last(tmp_path: Path) -> None:
    """Three recordings of one request replay in order; a fourth call gets the last one again."""
    path = tmp_path / "c.jsonl"
    lines = []
    for n in (1, 2, 3):
        request = normalise_request("GET", f"{BASE}/v1/videos/v1", BASE, "", b"")
        lines.append(json.dumps({"request": request, "response": {"status": 200, "headers": [], "text": str(n)}}))
    path.write_text("\n".join(lines) + "\n")
    with http(path, "replay") as client:
        assert [client.get("/v1/videos/v1").text for _ in range(4)] == ["1", "2", "3", "3"]


def test_matching_ignores_stream_options_and_query_order_but_not_stream() -> None:
    """stream_options and the order of query parameters do not change the key; stream does."""
    def body(**extra: object) -> bytes:
        return json.dumps({"model": "m", "stream": True, **extra}).encode()

    one = normalise_request("POST", f"{BASE}/v1/x?b=2&a=1", BASE, "application/json", body())
    options = body(stream_options={"include_usage": True})
    two = normalise_request("POST", f"{BASE}/v1/x?a=1&b=2", BASE, "application/json", options)
    three = normalise_request("POST", f"{BASE}/v1/x?a=1&b=2", BASE, "application/json", body(stream=False))
    assert one == two != three and one["url"] == "/v1/x?a=1&b=2"


def test_other_origins_keep_their_host() -> None:
    """A URL off the gateway's origin (a media host) is matched with its scheme and host."""
    assert normalise_request("GET", "https://media.test/f?sig=1", BASE, "", b"")["url"] == "https://media.test/f?sig=1"


def test_replay_never_calls_the_network(tmp_path: Path) -> None:
    """In replay, a miss raises CassetteMissError before the network transport is ever used."""
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("the network was used")

    path = tmp_path / "c.jsonl"
    path.write_text("")
    transport = CassetteTransport(Cassette(path, "replay"), BASE, httpx.MockTransport(refuse))
    with httpx.Client(transport=transport, base_url=BASE) as client, pytest.raises(CassetteMissError):
        client.get("/v1/models")


def test_multipart_is_matched_by_field_values_and_file_digests() -> None:
    """Two multipart bodies with different boundaries and filenames but the same values and bytes match."""
    def body(boundary: str, filename: str, data: bytes) -> tuple[str, bytes]:
        parts = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="Prompt"\r\n\r\nmake it night\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="{filename}"\r\n'
            f"Content-Type: image/png\r\n\r\n"
        ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
        return f"multipart/form-data; boundary={boundary}", parts

    one = normalise_request("POST", f"{BASE}/v1/images/edits", BASE, *body("aaa", "a.png", b"\x89PNG1"))
    two = normalise_request("POST", f"{BASE}/v1/images/edits", BASE, *body("bbb", "b.png", b"\x89PNG1"))
    three = normalise_request("POST", f"{BASE}/v1/images/edits", BASE, *body("aaa", "a.png", b"\x89PNG2"))
    assert one == two != three
    assert one["body"]["multipart"]["Prompt"] == "make it night"
    assert one["body"]["multipart"]["image"]["content_type"] == "image/png"


def test_content_redirect_to_another_media_host_replays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 302 to a capability URL on a separate media host replays too, and the key never went there."""
    import gatewaykit as gk

    sent_to_media: list[str] = []

    def gateway(request: httpx.Request) -> httpx.Response:
        if request.url.host == "media.test":
            sent_to_media.append(request.headers.get("authorization", ""))
            return httpx.Response(200, content=b"\x00\x00\x00\x18ftypmp42-bytes", headers={"content-type": "video/mp4"})
        if request.url.path.endswith("/content"):
            return httpx.Response(302, headers={"location": "https://media.test/v/abc.mp4?sig=xyz"})
        job = {"id": "video_1", "object": "video", "model": "m", "status": "completed", "created_at": 1}
        return httpx.Response(200, json=job)

    path = tmp_path / "c.jsonl"
    with gk.Client(api_key=KEY, base_url=BASE, cassette=path, cassette_mode="record",
                   http_transport=httpx.MockTransport(gateway), ledger=gk.Ledger()) as client:  # fmt: skip
        recorded = client.videos.retrieve("video_1").content()
    monkeypatch.delenv("SVC_API_KEY", raising=False)
    with gk.Client(cassette=path, cassette_mode="replay", ledger=gk.Ledger()) as replay:
        assert replay.videos.retrieve("video_1").content() == recorded
    assert sent_to_media == [""] and "https://media.test/v/abc.mp4?sig=xyz" in path.read_text()


def test_auto_appends_on_a_new_line_after_a_hand_edited_file(tmp_path: Path) -> None:
    """A cassette whose last line lost its newline (hand-edited) still gets a well-formed appended line."""
    path = tmp_path / "c.jsonl"
    request = normalise_request("GET", f"{BASE}/v1/models", BASE, "", b"")
    path.write_text(json.dumps({"request": request, "response": {"status": 200, "headers": [], "text": "{}"}}))
    with http(path, "auto") as client:
        assert client.get("/v1/models").text == "{}"
        client.get("/echo")
    assert [json.loads(line)["request"]["url"] for line in path.read_text().splitlines()] == ["/v1/models", "/echo"]


def test_line_separators_inside_answers_survive(tmp_path: Path) -> None:
    """An answer containing U+2028 (kept raw in the JSONL) still loads as one exchange."""
    path = tmp_path / "c.jsonl"
    request = normalise_request("GET", f"{BASE}/v1/x", BASE, "", b"")
    answer = {"status": 200, "headers": [["content-type", "text/plain"]], "text": "one\u2028two"}
    path.write_text(json.dumps({"request": request, "response": answer}, ensure_ascii=False) + "\n", encoding="utf-8")
    with http(path, "replay") as client:
        assert client.get("/v1/x").text == "one\u2028two"


def test_stream_split_inside_a_utf8_character_keeps_its_chunks(tmp_path: Path) -> None:
    """Chunks that cut a UTF-8 character in two are stored as exact bytes and replay split the same way."""
    path = tmp_path / "c.jsonl"
    with http(path, "record") as client, client.stream("GET", "/split") as response:
        assert list(response.iter_raw()) == SPLIT
    with http(path, "replay") as client, client.stream("GET", "/split") as response:
        assert list(response.iter_raw()) == SPLIT
    assert "chunks_b64" in path.read_text()
