"""Prompts kept only when the course chooses: with log_prompts=False (the default) nothing of a prompt or an
answer is stored; with log_prompts=True they are kept under a per-student pseudonym (media as type and size),
purged after retention_days. Student names and classroom keys never reach the gateway, in any forwarded body or
header."""

from __future__ import annotations

import base64
import datetime as dt
import glob
import re
from pathlib import Path
from typing import Any

import httpx
from classroom_fixtures import FakeClock, auth, chat, db_rows, open_room, start_upstream, wait_for
from recording_gateway import RecordingGateway

LOCAL = dt.datetime.now().astimezone().tzinfo


def _png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 4), "teal").save(out, "PNG")
    return out.getvalue()


def _exchanges(room: Any, key: str, prompt: str) -> None:
    """A chat, a streamed chat, an image, a video job (polled to its end, its file fetched), the catalog."""
    with httpx.Client(base_url=room.base_url, headers=auth(key), timeout=60) as http:
        assert http.post("/v1/chat/completions", json=chat(text=f"{prompt} (plain)", max_tokens=30)).status_code == 200
        with http.stream("POST", "/v1/chat/completions", json=chat(text=f"{prompt} (streamed)", stream=True,
                                                                     max_tokens=30)) as stream:
            assert stream.status_code == 200
            stream.read()
        answer = http.post("/v1/images/generations", json={"model": "image-gpt", "prompt": f"{prompt} (image)"})
        assert answer.status_code == 200
        job = http.post("/v1/videos", json={"model": "video-tiers", "prompt": f"{prompt} (video)",
                                            "resolution": "480p"}).json()
        wait_for(lambda: http.get(f"/v1/videos/{job['id']}").json()["status"] == "completed", 60, "the video")
        assert http.get(f"/v1/videos/{job['id']}/content").status_code == 200
        assert http.get("/v1/models").status_code == 200


def test_by_default_nothing_of_a_prompt_or_an_answer_is_stored(upstream: Any, tmp_path: Any) -> None:
    """The class database (and its WAL) never holds a prompt's or an answer's text; prompt_log() is empty."""
    db = str(tmp_path / "class.db")
    with open_room(upstream, roster=["ana"], db=db, announce=False) as room:
        _exchanges(room, room.keys.key[0], "zebra-prompt-7Q")
        answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(text="tell me", max_tokens=30),
                            headers=auth(room.keys.key[0])).json()["choices"][0]["message"]["content"]
        assert room.prompt_log().empty
        files = b"".join(Path(name).read_bytes() for name in glob.glob(db + "*"))
    assert b"zebra-prompt-7Q" not in files and answer.encode()[:40] not in files
    assert db_rows(db, "SELECT count(*) FROM prompts") == [(0,)]


def test_kept_prompts_are_under_a_pseudonym_with_media_as_type_and_size(rooms: Any) -> None:
    """log_prompts=True: each request's prompt and answer, under the student's pseudonym (never the name), an image
    input as [image/png, N bytes]; pseudonym(student) maps one name and is in the audit log."""
    room = rooms(roster=["ana-lovelace", "bo"], log_prompts=True)
    _exchanges(room, room.keys.key[0], "kept prompt")
    png = _png()
    image_chat = chat(text="describe this", max_tokens=30)
    image_chat["messages"][0]["content"] = [{"type": "text", "text": "describe this"},
                                            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}}]
    image_chat["model"] = "chat-vision"
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=image_chat,
                      headers=auth(room.keys.key[1])).status_code == 200
    log = room.prompt_log()
    ana, bo = room.pseudonym("ana-lovelace"), room.pseudonym("bo")
    assert re.fullmatch(r"[0-9a-f]{16}", ana) and ana != bo
    mine = log[log.pseudonym == ana]
    assert list(mine.kind) == ["chat", "chat", "image", "video"]
    assert list(mine.prompt) == ["user: kept prompt (plain)", "user: kept prompt (streamed)", "kept prompt (image)",
                                 "kept prompt (video)"]
    assert mine.answer.iloc[0] and mine.answer.iloc[1]  # the buffered and the streamed chat's text
    assert re.fullmatch(r"\[image/png, \d+ bytes\]", mine.answer.iloc[2])
    assert "media are not kept" in mine.answer.iloc[3]
    assert "ana-lovelace" not in log.to_string()
    assert list(log[log.pseudonym == bo].prompt) == [f"user: describe this [image/png, {len(png)} bytes]"]
    assert list(room.audit().action) == ["pseudonym looked up", "pseudonym looked up"]


def test_kept_prompts_are_purged_after_retention_days(rooms: Any) -> None:
    """retention_days=2: a prompt is still there after a day, gone after two (with no request in between)."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 9, 0, tzinfo=LOCAL))
    room = rooms(roster=["ana"], log_prompts=True, retention_days=2, clock=clock)
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(text="old question", max_tokens=10),
                      headers=auth(room.keys.key[0])).status_code == 200
    clock.advance(days=1)
    assert list(room.prompt_log().prompt) == ["user: old question"]
    clock.advance(days=1, seconds=1)
    assert room.prompt_log().empty


def test_no_student_name_or_classroom_key_reaches_the_gateway(tmp_path: Any) -> None:
    """A recording middlebox in front of the gateway sees every forwarded request (chats, a stream, an image, a video
    job, its polls and file, the catalog): no student's name, classroom key or admin token in any path, header or
    body, with the prompt log on."""
    with start_upstream() as gateway, RecordingGateway(gateway.base_url) as middlebox:
        names = ["ana-unique-student-name", "bo-other-student"]
        room = open_room(middlebox, roster=names, log_prompts=True, rpm=100, announce=False)
        try:
            for key in room.keys.key:
                _exchanges(room, key, "hello")
            room.add_assignment("hw1", cap=1.0)
            _exchanges(room, room.keys.key[0], "in the assignment")
            secrets_ = [*names, *room.keys.key, room.admin_token, *(n.split("-")[0] + "-unique" for n in names[:1])]
            forwarded = middlebox.requests
        finally:
            room.stop()
    assert len(forwarded) >= 20
    paths = {path.split("?")[0].rsplit("/", 1)[0] for _, path, _, _ in forwarded}
    assert {"/v1", "/v1/chat", "/v1/images", "/v1/videos"} <= paths
    for method, path, headers, body in forwarded:
        seen = f"{method} {path}\n" + "\n".join(f"{k}: {v}" for k, v in headers) + "\n" + body.decode("latin-1")
        for secret in secrets_:
            assert secret not in seen, (secret, method, path)
