"""Video and music jobs: states, billing on completion, content links, ownership, retention."""

from __future__ import annotations

import base64
import io
import time

import httpx
import pytest
from gateway_accounts import ACME_SECOND_KEY, auth
from PIL import Image

from gatewaykit.emulator import start
from gatewaykit.emulator.media import probe_media
from job_polling import finished_job

LYRICS = "[Verse]\nWalking down the road\n[Chorus]\nSing it loud tonight"



@pytest.fixture(scope="module")
def slow_gateway():
    """A gateway at time-scale 1: jobs stay unfinished for several seconds."""
    with start(time_scale=1.0, admin_token="a") as gateway:
        yield gateway


def test_video_completes_with_an_mp4_of_the_billed_length_and_size(http, admin):
    """A finished video is an H.264 MP4 whose duration and size match what was billed."""
    before = admin.balance()
    job = http.post("/v1/videos", json={"model": "video-tiers", "prompt": "waves", "resolution": "480p",
                                        "duration": 6, "generate_audio": True}).json()
    assert (job["status"], job["object"], job["size"], job["seconds"]) == ("queued", "video", "854x480", "6")
    job = finished_job(http, f"/v1/videos/{job['id']}")
    assert job["status"] == "completed" and job["completed_at"] >= job["created_at"]
    media = httpx.get(job["videos"][0]["url"])
    facts = probe_media(media.content)
    assert media.headers["content-type"] == "video/mp4"
    assert (facts.video_codec, facts.width, facts.height) == ("h264", 854, 480) and facts.audio_codec
    assert facts.duration == pytest.approx(6, abs=0.1)
    assert before - admin.balance() == pytest.approx(6 * 0.08, abs=1e-9)


def test_range_duration_and_aspect_ratio(http):
    """video-range takes any duration in 2..12 and an aspect ratio."""
    job = http.post("/v1/videos", json={"model": "video-range", "prompt": "x", "duration": 3,
                                        "aspect_ratio": "9:16", "generate_audio": False}).json()
    assert (job["size"], job["seconds"]) == ("720x1280", "3")
    job = finished_job(http, f"/v1/videos/{job['id']}")
    assert probe_media(httpx.get(job["videos"][0]["url"]).content).duration == pytest.approx(3, abs=0.1)


@pytest.mark.parametrize("fields,param", [
    ({"model": "video-tiers", "duration": 5}, "duration"), ({"model": "video-range", "duration": 13}, "duration"),
    ({"model": "video-tiers", "resolution": "4k"}, "resolution"),
    ({"model": "video-range", "input_reference": "https://example.com/a.png"}, "input_reference"),
    ({"model": "video-tiers", "aspect_ratio": "auto"}, "aspect_ratio"),
    ({"model": "video-tiers", "input_reference": "data:image/png;base64,AAAA"}, "input_reference"),
    ({"model": "video-tiers", "generate_audio": "yes"}, "generate_audio"),
])
def test_video_values_the_model_does_not_offer_are_400(http, fields, param):
    """Durations, resolutions, references and ratios the model lacks give 400 naming the field."""
    answer = http.post("/v1/videos", json={"prompt": "x", **fields})
    assert answer.status_code == 400 and answer.json()["error"]["param"] == param


def test_image_to_video_with_auto_aspect_follows_the_reference(http):
    """input_reference as a data: URI with aspect_ratio auto takes the picture's shape."""
    buffer = io.BytesIO()
    Image.new("RGB", (90, 160), "orange").save(buffer, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    job = http.post("/v1/videos", json={"model": "video-tiers", "prompt": "x", "resolution": "480p",
                                        "input_reference": uri, "aspect_ratio": "auto"}).json()
    assert job["size"] == "480x854"


def test_content_before_completion_is_404(slow_gateway):
    """Content of an unfinished video is 404 video_not_found with param video_id."""
    headers = auth(slow_gateway.api_key)
    job = httpx.post(f"{slow_gateway.base_url}/v1/videos", headers=headers,
                     json={"model": "video-range", "prompt": "x"}).json()
    answer = httpx.get(f"{slow_gateway.base_url}/v1/videos/{job['id']}/content", headers=headers)
    error = answer.json()["error"]
    assert answer.status_code == 404 and (error["code"], error["param"]) == ("video_not_found", "video_id")


def test_cancelling_an_unfinished_video_is_never_charged(slow_gateway):
    """DELETE on an unfinished job gives status cancelled, and it is never charged."""
    headers = auth(slow_gateway.api_key)
    admin = {"Authorization": "Bearer a"}
    before = httpx.get(f"{slow_gateway.base_url}/_emulator/accounts", headers=admin).json()["accounts"][0]
    job = httpx.post(f"{slow_gateway.base_url}/v1/videos", headers=headers,
                     json={"model": "video-range", "prompt": "x", "duration": 2}).json()
    cancelled = httpx.delete(f"{slow_gateway.base_url}/v1/videos/{job['id']}", headers=headers).json()
    time.sleep(0.2)
    again = httpx.get(f"{slow_gateway.base_url}/v1/videos/{job['id']}", headers=headers).json()
    after = httpx.get(f"{slow_gateway.base_url}/_emulator/accounts", headers=admin).json()["accounts"][0]
    assert cancelled["status"] == again["status"] == "cancelled"
    assert after["balance_usd"] == before["balance_usd"]


def test_music_content_before_completion_is_404_audio_not_found(slow_gateway):
    """Music content before completion is 404 audio_not_found with param audio_id."""
    headers = auth(slow_gateway.api_key)
    job = httpx.post(f"{slow_gateway.base_url}/v1/audio/generations", headers=headers,
                     json={"model": "music-song", "prompt": "folk", "lyrics_prompt": LYRICS}).json()
    answer = httpx.get(f"{slow_gateway.base_url}/v1/audio/generations/{job['id']}/content", headers=headers)
    error = answer.json()["error"]
    assert answer.status_code == 404 and (error["code"], error["param"]) == ("audio_not_found", "audio_id")


def test_deleting_a_finished_video_removes_it(http):
    """DELETE on a finished job deletes it; it is then 404 and its link dead."""
    job = http.post("/v1/videos", json={"model": "video-range", "prompt": "x", "duration": 2}).json()
    job = finished_job(http, f"/v1/videos/{job['id']}")
    assert http.delete(f"/v1/videos/{job['id']}").json()["deleted"] is True
    assert http.get(f"/v1/videos/{job['id']}").json()["error"]["code"] == "video_not_found"
    assert httpx.get(job["videos"][0]["url"]).status_code == 404


def test_another_keys_job_is_not_visible(emulator, http):
    """A job created by one key is video_not_found for another key of the same account."""
    job = http.post("/v1/videos", json={"model": "video-range", "prompt": "x", "duration": 2}).json()
    for path in (f"/v1/videos/{job['id']}", f"/v1/videos/{job['id']}/content"):
        answer = httpx.get(f"{emulator.base_url}{path}", headers=auth(ACME_SECOND_KEY))
        assert answer.status_code == 404 and answer.json()["error"]["param"] == "video_id"
    assert httpx.delete(f"{emulator.base_url}/v1/videos/{job['id']}",
                        headers=auth(ACME_SECOND_KEY)).status_code == 404


def test_content_redirects_to_a_link_that_needs_no_key_and_supports_range(http):
    """GET content is a 302 to a capability URL served without a key, with 206 ranges."""
    job = http.post("/v1/videos", json={"model": "video-range", "prompt": "x", "duration": 2}).json()
    finished_job(http, f"/v1/videos/{job['id']}")
    answer = http.get(f"/v1/videos/{job['id']}/content")
    assert answer.status_code == 302
    location = answer.headers["location"]
    full = httpx.get(location).content
    part = httpx.get(location, headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and part.content == full[10:20]
    assert part.headers["content-range"] == f"bytes 10-19/{len(full)}"
    assert httpx.get(location, headers={"Range": f"bytes={len(full)}-"}).status_code == 416


def test_music_job_completes_with_an_mp3_of_the_reported_length(http, admin):
    """A music job starts in_progress with only four fields and ends with an MP3 of `seconds`."""
    before = admin.balance()
    created = http.post("/v1/audio/generations", json={"model": "music-song", "prompt": "upbeat synth pop",
                                                        "lyrics_prompt": LYRICS, "sample_rate": 32000}).json()
    assert set(created) == {"id", "object", "model", "status"} and created["status"] == "in_progress"
    job = finished_job(http, f"/v1/audio/generations/{created['id']}")
    location = http.get(f"/v1/audio/generations/{created['id']}/content").headers["location"]
    media = httpx.get(location)
    facts = probe_media(media.content)
    assert media.headers["content-type"] == "audio/mpeg" and job["audio"][0]["url"] == location
    assert facts.duration == pytest.approx(float(job["seconds"]), abs=0.1) and facts.sample_rate == 32000
    assert before - admin.balance() == pytest.approx(0.06, abs=1e-9)


@pytest.mark.parametrize("fields,param,code", [
    ({"lyrics_prompt": None}, "lyrics_prompt", None), ({"lyrics_prompt": "short"}, "lyrics_prompt", None),
    ({"lyrics_prompt": "no tags in these lyrics at all"}, "lyrics_prompt", None),
    ({"lyrics_prompt": "[Verse]\n" + "la " * 1100}, "lyrics_prompt", None),
    ({"prompt": "p" * 301}, "prompt", "PROMPT_TOO_LONG"), ({"sample_rate": 12345}, "sample_rate", None),
    ({"bitrate": 1}, "bitrate", None), ({"format": "wav"}, "format", None),
])
def test_music_request_rules_are_400(http, fields, param, code):
    """Each music rule gives 400 naming the field (PROMPT_TOO_LONG for a long style prompt)."""
    body = {"model": "music-song", "prompt": "pop", "lyrics_prompt": LYRICS, **fields}
    error = http.post("/v1/audio/generations", json={k: v for k, v in body.items() if v is not None}).json()["error"]
    assert (error["param"], error["code"]) == (param, code)


def test_finished_jobs_expire_after_retention():
    """After retention_seconds a finished job and its link are gone (404)."""
    with start(time_scale=0, retention_seconds=0.3) as gateway:
        client = httpx.Client(base_url=gateway.base_url, headers=auth(gateway.api_key))
        job = client.post("/v1/videos", json={"model": "video-range", "prompt": "x", "duration": 2}).json()
        job = finished_job(client, f"/v1/videos/{job['id']}")
        time.sleep(1.2)
        assert client.get(f"/v1/videos/{job['id']}").status_code == 404
        assert httpx.get(job["videos"][0]["url"]).status_code == 404
        client.close()


def test_unknown_job_id_is_404(http):
    """An id that never existed is 404 with the right code."""
    assert http.get("/v1/videos/video_nope").json()["error"]["code"] == "video_not_found"
    assert http.get("/v1/audio/generations/audio_nope").json()["error"]["code"] == "audio_not_found"


