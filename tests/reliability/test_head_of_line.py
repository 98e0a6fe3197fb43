"""Synchronous requests never wait behind video and music rendering (no head-of-line blocking)."""

from __future__ import annotations

import time

import httpx

from gatewaykit import emulator

HEAVY_VIDEOS = 8


def _image_seconds(client: httpx.Client, prompt: str) -> float:
    started = time.monotonic()
    answer = client.post("/v1/images/generations", json={"model": "image-pixels", "prompt": prompt,
                                                          "width": 256, "height": 256})
    assert answer.status_code == 200, answer.text
    return time.monotonic() - started


def test_an_image_answers_before_any_queued_1080p_video_finishes_rendering():
    """Behind 8 queued 1080p renders, an image is answered while every one of them is still unfinished."""
    with emulator.start(time_scale=0) as gateway, httpx.Client(
            base_url=gateway.base_url, headers={"Authorization": f"Bearer {gateway.api_key}"}, timeout=300) as client:
        baseline = min(_image_seconds(client, f"unloaded kite {number}") for number in range(2))
        jobs = [client.post("/v1/videos", json={"model": "video-tiers", "prompt": f"heavy waves {number}",
                                                "resolution": "1080p", "duration": 4}).json()["id"]
                for number in range(HEAVY_VIDEOS)]
        loaded = _image_seconds(client, "loaded kite")  # a new prompt: not served from the media cache
        statuses = [client.get(f"/v1/videos/{job}").json()["status"] for job in jobs]
        for job in jobs:  # stop the renders that have not started (cancelled jobs are never charged)
            client.delete(f"/v1/videos/{job}")
    assert "completed" not in statuses, (f"the image took {loaded:.2f} s (unloaded {baseline:.2f} s) and "
                                         f"waited for videos: {statuses}")
