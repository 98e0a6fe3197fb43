"""Browser origins the classroom allows (CORS): a JupyterLite class calls it from the site's origin."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, auth, chat, wait_for

SITE = "http://127.0.0.1:8800"


def test_a_student_page_from_a_listed_origin_reads_the_answer(rooms: Any) -> None:
    """The preflight of the site's origin is answered, and the student's chat carries that origin."""
    room = rooms(roster=["ana"], cors_origins=[SITE])
    key = room.keys.key[0]
    preflight = httpx.options(f"{room.base_url}/v1/chat/completions", headers={
        "Origin": SITE, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type"})
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == SITE
    assert "access-control-allow-credentials" not in preflight.headers
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers={**auth(key), "Origin": SITE})
    assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == SITE


def test_a_refusal_over_the_cap_is_readable_from_the_page(rooms: Any) -> None:
    """A classroom refusal (402 over the cap) carries the CORS header, so the page shows the envelope."""
    room = rooms(roster=["ana"], cap=0.0, cors_origins=[SITE])
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(),
                        headers={**auth(room.keys.key[0]), "Origin": SITE})
    assert answer.status_code == 402 and answer.headers["access-control-allow-origin"] == SITE


def test_the_classroom_allows_no_origin_by_default(rooms: Any) -> None:
    """Without cors_origins no browser origin is allowed."""
    room = rooms(roster=["ana"])
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(),
                        headers={**auth(room.keys.key[0]), "Origin": SITE})
    assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers


def test_a_malformed_origin_is_refused_before_serving(upstream: Any, rooms: Any) -> None:
    """A path in an origin is a ValueError saying what an origin is."""
    with pytest.raises(ValueError, match="scheme, a host and an optional port"):
        rooms(roster=["ana"], cors_origins=[SITE + "/lab/index.html"])


def test_the_cli_takes_cors_origin_more_than_once(tmp_path: Path, upstream: Any) -> None:
    """`python -m gatewaykit.classroom --cors-origin A --cors-origin B` allows both origins."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nana\n")
    server = subprocess.Popen(
        [sys.executable, "-m", "gatewaykit.classroom", "--upstream", upstream.base_url, "--roster", str(roster),
         "--keys-out", str(tmp_path / "keys.csv"), "--db", str(tmp_path / "class.db"), "--port", "0",
         "--cors-origin", SITE,
         "--cors-origin", "https://class.example.org"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "SVC_API_KEY": TEACHER_KEY})
    try:
        lines: list[str] = []
        url_line = wait_for(lambda: (lines.append(server.stdout.readline()) or  # type: ignore[union-attr]
                                     next((l for l in lines if "classroom on" in l), None)), 60, "the server")
        base_url = url_line.split("classroom on ")[1].split()[0]
        for origin in (SITE, "https://class.example.org"):
            answer = httpx.options(f"{base_url}/v1/models", headers={"Origin": origin,
                                                                     "Access-Control-Request-Method": "GET"})
            assert answer.headers["access-control-allow-origin"] == origin
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=60)
