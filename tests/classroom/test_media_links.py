"""Media links through the classroom: a finished job's ``videos[].url`` / ``audio[].url`` point at the
classroom (its root path included), and the classroom streams the file with the student's key for a job they
own; the gateway's address is in no answer a student gets."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
from classroom_fixtures import TEACHER_KEY, auth, wait_for

ROOT = "/services/classroom"


def _gateway_file(upstream: Any, kind_path: str, job_id: str) -> bytes:
    """The file as the gateway itself serves it (the teacher's key, its redirect followed)."""
    answer = httpx.get(f"{upstream.base_url}{kind_path}/{job_id}/content", headers=auth(TEACHER_KEY),
                       follow_redirects=True, timeout=60)
    answer.raise_for_status()
    return answer.content


def test_a_students_job_links_and_downloads_go_through_the_classroom(rooms: Any, upstream: Any, tmp_path: Any) -> None:
    import gatewaykit as gk

    room = rooms(roster=["ana", "bo"], root_path=ROOT, cap=1.0)
    ana, bo = room.keys.key
    with gk.Client(api_key=ana, base_url=room.base_url, max_retries=0, ledger=gk.Ledger(path=None)) as client:
        video = client.videos.create(model="video-range", prompt="snow", duration=2).wait(timeout=120)
        song = client.music.create(model="music-song", prompt="calm piano",
                                   lyrics_prompt="[Verse]\nla la la").wait(timeout=120)
        assert video.videos[0].url == f"{room.base_url}/v1/videos/{video.id}/content"
        assert song.audio[0].url == f"{room.base_url}/v1/audio/generations/{song.id}/content"
        assert video.content() == _gateway_file(upstream, "/v1/videos", video.id)
        assert song.save(tmp_path / "song.mp3").read_bytes() == _gateway_file(upstream, "/v1/audio/generations",
                                                                                song.id)
    with httpx.Client(headers=auth(ana), timeout=60) as http:
        view = http.get(f"{room.base_url}/v1/videos/{video.id}")
        assert upstream.base_url not in view.text and view.json()["videos"][0]["url"] == video.videos[0].url
        whole = http.get(video.videos[0].url)
        assert whole.status_code == 200 and whole.headers["content-type"] == "video/mp4"
        assert "location" not in whole.headers and upstream.base_url not in str(whole.headers)
        part = http.get(video.videos[0].url, headers={"Range": "bytes=0-9"})
        assert part.status_code == 206 and part.content == whole.content[:10]
        assert part.headers["content-range"].startswith("bytes 0-9/")
    stranger = httpx.get(video.videos[0].url, headers=auth(bo), timeout=60)
    assert stranger.status_code == 404 and stranger.json()["error"]["code"] == "video_not_found"
    assert httpx.get(video.videos[0].url, timeout=60).status_code == 401


@pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")  # openai-python's own notice
def test_openai_python_sees_classroom_links_and_downloads_through_the_classroom(rooms: Any, upstream: Any) -> None:
    room = rooms(roster=["ana"], root_path=ROOT, cap=1.0)
    with openai.OpenAI(api_key=room.keys.key[0], base_url=room.base_url + "/v1", max_retries=0) as sdk:
        created = sdk.videos.create(model="video-range", prompt="snow", extra_body={"duration": 2})
        done = wait_for(lambda: (v := sdk.videos.retrieve(created.id)).status == "completed" and v, 120,
                        "the video job")
        raw = json.dumps(done.to_dict())
        assert upstream.base_url not in raw
        assert done.to_dict()["videos"][0]["url"] == f"{room.base_url}/v1/videos/{created.id}/content"
        content = sdk.videos.download_content(created.id).read()
    assert content == _gateway_file(upstream, "/v1/videos", created.id)


def test_content_before_completion_is_the_gateways_404_without_its_address(upstream: Any) -> None:
    from classroom_fixtures import open_room, start_upstream

    with start_upstream(time_scale=1.0) as slow, open_room(slow, roster=["ana"], root_path=ROOT) as room:
        key = room.keys.key[0]
        job = httpx.post(f"{room.base_url}/v1/videos", json={"model": "video-range", "prompt": "snow", "duration": 8},
                         headers=auth(key), timeout=60).json()
        early = httpx.get(f"{room.base_url}/v1/videos/{job['id']}/content", headers=auth(key), timeout=60)
        assert early.status_code == 404 and slow.base_url not in early.text and "location" not in early.headers


def test_a_file_on_another_origin_than_the_gateways_is_fetched_too(upstream: Any) -> None:
    """The gateway's redirect may point at another host (a CDN): here the classroom knows the gateway as
    ``localhost`` and the gateway links its files on ``127.0.0.1``; the file still comes through (with no key)."""
    import gatewaykit as gk
    from classroom_fixtures import open_room

    port = upstream.base_url.rsplit(":", 1)[1]
    gateway = type("Gateway", (), {"base_url": f"http://localhost:{port}"})()
    with open_room(gateway, roster=["ana"], cap=1.0) as room, \
            gk.Client(api_key=room.keys.key[0], base_url=room.base_url, max_retries=0, ledger=gk.Ledger(path=None)) as client:
        video = client.videos.create(model="video-range", prompt="snow", duration=2).wait(timeout=120)
        assert video.content() == _gateway_file(upstream, "/v1/videos", video.id)
