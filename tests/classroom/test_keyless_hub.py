"""A keyless hub (``hub_api_url=``): a token that is not a classroom key is asked of the hub's ``GET /user``; the
user it names is the student. A stand-in for JupyterHub's API answers here (the real hub runs in
test_jupyterhub.py)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import httpx
import pytest
from classroom_fixtures import auth, chat


class StandInHub:
    """``GET /hub/api/user`` answers the user model a token belongs to (JupyterHub's shape), else 403."""

    def __init__(self) -> None:
        self.tokens: dict[str, dict[str, Any]] = {}
        self.asked = 0
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                hub.asked += 1
                scheme, _, token = self.headers.get("Authorization", "").partition(" ")
                model = hub.tokens.get(token) if self.path == "/hub/api/user" and scheme == "token" else None
                body = json.dumps(model or {"status": 403, "message": "Forbidden"}).encode()
                self.send_response(200 if model else 403)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.api_url = f"http://127.0.0.1:{self.server.server_address[1]}/hub/api"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def hub() -> Iterator[StandInHub]:
    running = StandInHub()
    try:
        yield running
    finally:
        running.stop()


def _chat(room: Any, token: str) -> httpx.Response:
    return httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=20), headers=auth(token))


def test_a_hub_token_is_its_hub_user_added_with_the_class_cap(rooms: Any, hub: StandInHub) -> None:
    """A hub user's token chats as that user, who is added to the class with the class cap."""
    hub.tokens["hub-token-of-ana"] = {"kind": "user", "name": "ana"}
    room = rooms(roster=["bo"], cap=0.5, hub_api_url=hub.api_url)
    assert _chat(room, "hub-token-of-ana").status_code == 200
    rows = {r["student"]: r for r in room.report_rows()}
    assert rows["ana"]["requests"] == 1 and rows["ana"]["cap_usd"] == 0.5 and rows["ana"]["spent_usd"] > 0
    me = httpx.get(f"{room.base_url}/_classroom/me", headers=auth("hub-token-of-ana")).json()
    assert me["student"] == "ana" and me["spent_usd"] == rows["ana"]["spent_usd"]


def test_classroom_keys_still_work_and_are_never_sent_to_the_hub(rooms: Any, hub: StandInHub) -> None:
    """A roster student's classroom key is the classroom's to check: the hub is not asked."""
    room = rooms(roster=["bo"], hub_api_url=hub.api_url)
    assert _chat(room, room.keys.key[0]).status_code == 200 and hub.asked == 0


def test_a_token_the_hub_refuses_or_that_names_a_service_is_401(rooms: Any, hub: StandInHub) -> None:
    """An unknown token and a service's token are 401, and nobody is added to the class."""
    hub.tokens["service-token"] = {"kind": "service", "name": "classroom"}
    room = rooms(roster=["bo"], hub_api_url=hub.api_url)
    for token in ("nobody-knows-this", "service-token"):
        answer = _chat(room, token)
        assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_api_key"
    assert [r["student"] for r in room.report_rows()] == ["bo"]


def test_a_token_the_hub_stops_accepting_is_refused_within_5_seconds(rooms: Any, hub: StandInHub) -> None:
    """Once the hub refuses a token (the user's server stopped), the classroom refuses it within 5 s."""
    hub.tokens["hub-token-of-ana"] = {"kind": "user", "name": "ana"}
    room = rooms(roster=[], hub_api_url=hub.api_url)
    assert _chat(room, "hub-token-of-ana").status_code == 200
    del hub.tokens["hub-token-of-ana"]
    stopped = time.monotonic()
    while _chat(room, "hub-token-of-ana").status_code != 401:
        assert time.monotonic() - stopped < 5, "the stopped token was still accepted after 5 s"
        time.sleep(0.05)


def test_revoking_a_hub_user_refuses_their_hub_token(rooms: Any, hub: StandInHub) -> None:
    """The teacher's revoke applies to a hub user's token; reissue lets them back in."""
    hub.tokens["hub-token-of-ana"] = {"kind": "user", "name": "ana"}
    room = rooms(roster=["ana"], hub_api_url=hub.api_url)
    room.revoke("ana")
    refused = _chat(room, "hub-token-of-ana")
    assert refused.status_code == 401 and "revoked" in refused.json()["error"]["message"]
    room.reissue("ana")
    assert _chat(room, "hub-token-of-ana").status_code == 200


def test_the_hub_unreachable_is_a_503_that_says_to_try_again(rooms: Any) -> None:
    """A hub that does not answer: 503 asking the student to try again, not a 401 that blames their key."""
    room = rooms(roster=[], hub_api_url="http://127.0.0.1:9/hub/api")
    answer = _chat(room, "some-hub-token")
    assert answer.status_code == 503 and "could not ask the hub" in answer.json()["error"]["message"]
