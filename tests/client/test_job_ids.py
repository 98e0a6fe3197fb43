"""Job ids are path segments: encoded before sending, empty ones refused (issue 14, defect 10)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import gatewaykit as gk


class PathRecorder(httpx.HTTPTransport):
    """The real transport, noting each request's method and raw path as sent."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, bytes]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.raw_path))
        return super().handle_request(request)


def test_dot_dot_video_id_does_not_reach_another_endpoint(make_client: Any, keys: Any) -> None:
    """videos.retrieve("../models") asks for one encoded segment under /v1/videos, not for /v1/models."""
    recorder = PathRecorder()
    client = make_client(keys.acme, http_transport=recorder)
    with pytest.raises(gk.NotFoundError):
        client.videos.retrieve("../models")
    assert recorder.sent == [("GET", b"/v1/videos/..%2Fmodels")]


def test_dot_dot_delete_sends_no_delete_elsewhere(make_client: Any, keys: Any) -> None:
    """videos.delete("../chat/completions") is a DELETE of one encoded video id, answered not found."""
    recorder = PathRecorder()
    client = make_client(keys.acme, http_transport=recorder)
    with pytest.raises(gk.NotFoundError):
        client.videos.delete("../chat/completions")
    assert recorder.sent == [("DELETE", b"/v1/videos/..%2Fchat%2Fcompletions")]


def test_query_in_music_id_is_part_of_the_id(client: gk.Client) -> None:
    """music.retrieve("<id>?x=1") is not the job <id>: the ? is encoded."""
    job = client.music.create(model="music-song", prompt="a hum", lyrics_prompt="[Verse]\nla")
    with pytest.raises(gk.NotFoundError):
        client.music.retrieve(f"{job.id}?x=1")


@pytest.mark.parametrize("bad", ["", "   ", "\t\n", ".", ".."])
def test_empty_or_dot_ids_are_refused_before_sending(client: gk.Client, bad: str) -> None:
    """An empty, blank or dot id is a ValueError naming the argument, before any request."""
    for call in (client.videos.retrieve, client.videos.delete, client.music.retrieve):
        with pytest.raises(ValueError, match="id"):
            call(bad)


def test_non_string_id_is_a_type_error(client: gk.Client) -> None:
    """A job id that is not a string is a TypeError."""
    bad: Any = 12
    with pytest.raises(TypeError, match="string"):
        client.videos.retrieve(bad)
