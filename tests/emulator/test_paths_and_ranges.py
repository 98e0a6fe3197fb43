"""Trailing slashes and Range headers: every answer is the route's own answer or an envelope, never an empty
redirect; a Range the media links cannot use is ignored (RFC 9110: 200 and the whole body)."""

from __future__ import annotations


import httpx
import pytest
from job_polling import finished_job

LYRICS = "[Verse]\nWalking down the road\n[Chorus]\nSing it loud tonight"
CHAT = {"model": "chat-mini", "messages": [{"role": "user", "content": "hi"}]}
IMAGE = {"model": "image-aspect", "prompt": "a kite", "seed": 1}



@pytest.fixture(scope="module")
def video(emulator) -> str:
    """A finished video job's id (its owner is ACME_KEY, the `http` fixture's key)."""
    from gateway_accounts import ACME_KEY, auth

    with httpx.Client(base_url=emulator.base_url, headers=auth(ACME_KEY), timeout=60) as http:
        job = http.post("/v1/videos", json={"model": "video-range", "prompt": "ranges", "duration": 2}).json()
        finished_job(http, f"/v1/videos/{job['id']}")
    return job["id"]


@pytest.fixture(scope="module")
def media_url(emulator, video) -> str:
    from gateway_accounts import ACME_KEY, auth

    answer = httpx.get(f"{emulator.base_url}/v1/videos/{video}/content", headers=auth(ACME_KEY))
    assert answer.status_code == 302
    return answer.headers["location"]


def _settled(http: httpx.Client, answer: httpx.Response) -> httpx.Response:
    """``answer``, after the job it created (if any) finished: charged before another test reads a balance."""
    created = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
    if answer.request.method == "POST" and created.get("status") in ("queued", "in_progress"):
        kind = "videos" if created["object"] == "video" else "audio/generations"
        finished_job(http, f"/v1/{kind}/{created['id']}")
    return answer


def _same_answer(http: httpx.Client, method: str, path: str, **request) -> None:
    plain = _settled(http, http.request(method, path, **request))
    slashed = _settled(http, http.request(method, path + "/", **request))
    assert slashed.status_code == plain.status_code, slashed.text
    if plain.status_code == 302:  # a job's content: the redirect to its media link
        assert slashed.headers["location"] == plain.headers["location"]
        return
    assert slashed.content, "an empty answer"
    if plain.headers["content-type"].startswith("application/json"):
        assert set(slashed.json()) == set(plain.json())


@pytest.mark.parametrize("method,path,body", [
    ("POST", "/v1/chat/completions", CHAT),
    ("GET", "/v1/models", None),
    ("POST", "/v1/images/generations", IMAGE),
    ("POST", "/v1/videos", {"model": "video-range", "prompt": "slash", "duration": 2}),
    ("POST", "/v1/audio/generations", {"model": "music-song", "prompt": "folk", "lyrics_prompt": LYRICS}),
    ("GET", "/openapi.json", None),
    ("GET", "/_emulator/accounts", None),
    ("GET", "/_emulator/stats", None),
])
def test_a_trailing_slash_answers_the_route(http, method, path, body):
    """`/v1/chat/completions/` (and every other route with a slash added) answers like the route itself."""
    _same_answer(http, method, path, **({"json": body} if body is not None else {}))


@pytest.mark.parametrize("suffix", ["", "/content"])
def test_a_trailing_slash_on_a_job_path_answers_the_route(http, video, suffix):
    """`/v1/videos/{id}/` and `/v1/videos/{id}/content/` answer like the routes without the slash."""
    _same_answer(http, "GET", f"/v1/videos/{video}{suffix}")


def test_a_trailing_slash_on_a_media_link_serves_the_file(media_url):
    """A media link with a slash added serves the same file."""
    assert httpx.get(media_url + "/").content == httpx.get(media_url).content


@pytest.mark.parametrize("method,path", [("GET", "/v1/videos/"), ("DELETE", "/v1/videos/"),
                                         ("GET", "/v1/audio/generations/"), ("GET", "/v1/"), ("GET", "/"),
                                         ("POST", "/v1/chat/completions//"), ("GET", "/v1//models")])
def test_odd_paths_answer_an_envelope_never_an_empty_redirect(http, method, path):
    """Paths with no route answer 404/405 in the error envelope, never an empty 307."""
    answer = http.request(method, path)
    assert answer.status_code in (404, 405), answer.status_code
    assert set(answer.json()["error"]) == {"message", "type", "code", "param"}
    assert f" {path}." in answer.json()["error"]["message"]  # the path as sent, slash included


@pytest.mark.parametrize("header", ["items=0-1", "pages=1", "bytes=abc", "bytes=5-2", "bytes 0-1", "=0-1",
                                    "bytes=0-1,4-5", "", "bytes=" + "9" * 5000 + "-", "bytes=0-" + "9" * 5000],
                         ids=lambda header: header[:16] or "empty")
def test_a_range_the_link_cannot_use_is_ignored(media_url, header):
    """A Range of another unit, a malformed one, or several ranges: 200 with the whole file."""
    full = httpx.get(media_url)
    answer = httpx.get(media_url, headers={"Range": header})
    assert answer.status_code == 200 and answer.content == full.content, answer.status_code
    assert "content-range" not in answer.headers


@pytest.mark.parametrize("header,start,end", [("Bytes=0-1", 0, 1), ("bytes=-5", None, None),
                                              ("bytes=3-", 3, None), ("bytes=0-999999999", 0, None)])
def test_byte_ranges_are_served_whatever_the_case_of_the_unit(media_url, header, start, end):
    """`bytes` ranges (unit case-insensitive) answer 206 with the slice."""
    full = httpx.get(media_url).content
    answer = httpx.get(media_url, headers={"Range": header})
    expected = full[-5:] if start is None else full[start:(end + 1 if end is not None else None)]
    assert answer.status_code == 206 and answer.content == expected


@pytest.mark.parametrize("header", ["bytes=999999999-", "bytes=-0"])
def test_an_unsatisfiable_byte_range_is_416(media_url, header):
    """A byte range that starts past the end (or asks for no bytes) is 416 with `bytes */size`."""
    size = len(httpx.get(media_url).content)
    answer = httpx.get(media_url, headers={"Range": header})
    assert answer.status_code == 416 and answer.headers["content-range"] == f"bytes */{size}"
    assert answer.json()["error"]["code"] == "range_not_satisfiable"
