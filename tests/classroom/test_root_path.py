"""A classroom served under a path prefix (``root_path=``, ``--root-path``), as JupyterHub's proxy serves a
service under ``/services/<name>/``: clients given ``room.base_url`` work, a proxy that strips the prefix works,
anything else under another prefix is a 404 envelope."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from classroom_fixtures import auth, chat, open_room


def test_clients_reach_a_classroom_under_its_root_path_and_the_report_counts_them(rooms: Any) -> None:
    import gatewaykit as gk

    room = rooms(roster=["ana"], root_path="/services/classroom/")
    key = room.keys.key[0]
    assert room.base_url.endswith("/services/classroom")
    with gk.Client(api_key=key, base_url=room.base_url, max_retries=0, ledger=gk.Ledger(path=None)) as client:
        assert client.chat.ask("Say hi", model="chat-mini")
    with openai.OpenAI(api_key=key, base_url=room.base_url + "/v1", max_retries=0) as sdk:
        assert sdk.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
    bare = room.base_url.removesuffix("/services/classroom")
    stripped = httpx.post(f"{bare}/v1/chat/completions", json=chat(), headers=auth(key), timeout=60)
    assert stripped.status_code == 200  # a proxy that takes the prefix off
    elsewhere = httpx.get(f"{bare}/services/other/v1/models", headers=auth(key), timeout=60)
    assert elsewhere.status_code == 404 and elsewhere.json()["error"]["code"] == "unknown_url"
    assert room.report_rows()[0]["requests"] == 3  # the teacher's calls go under the root path too
    last = room.report().last_request[0]
    assert last.microsecond == last.nanosecond == 0 and str(last.tz) == "UTC"  # a teacher reads whole seconds


@pytest.mark.parametrize("bad", ["services/classroom", "/services/class room", "/x?y=1", "/a#b", "http://x/y"])
def test_a_root_path_that_is_not_a_url_path_is_refused(upstream: Any, bad: str) -> None:
    with pytest.raises(ValueError, match="root_path must be a URL path"):
        open_room(upstream, roster=["ana"], root_path=bad)
