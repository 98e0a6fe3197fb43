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


def _hostile_job_client(sink: Any) -> gk.Client:
    """A client whose 'gateway' serves any job's content (the id is whatever a server sent)."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"\x00\x00\x00\x18ftypmp42 video", headers={"content-type": "video/mp4"})

    return gk.Client(api_key="sk-bf-x", base_url="http://gw.test", ledger=sink, http_transport=httpx.MockTransport(answer))


@pytest.mark.parametrize("job_id", ["../escaped/owned", "ABSOLUTE", "a/../../b", "...\\..\\x"])
def test_save_to_a_folder_keeps_a_hostile_id_inside_it(tmp_path: Any, sink: Any, job_id: str) -> None:
    """save(folder) names the file from a sanitised id: one new file inside the folder, no directories made."""
    if job_id == "ABSOLUTE":  # an absolute path (inside tmp_path, so a failing run writes nowhere else)
        job_id = str(tmp_path / "elsewhere" / "owned")
    folder = tmp_path / "out"
    folder.mkdir()
    with _hostile_job_client(sink) as client:
        job = gk.VideoJob(id=job_id, status="completed")
        job._client = client
        saved = job.save(folder)
    assert saved.parent == folder and saved.suffix == ".mp4" and saved.read_bytes()[4:8] == b"ftyp"
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["out", f"out/{saved.name}"]


def test_save_name_keeps_an_ordinary_id() -> None:
    """A normal id is the file name unchanged."""
    from gatewaykit.client.resources.job_flows import safe_file_stem

    assert safe_file_stem("video_abc-123") == "video_abc-123" and safe_file_stem("../escaped/owned") == "escaped_owned"
