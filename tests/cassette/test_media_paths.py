"""A shared cassette's ``media`` value is a content digest, never a path (issue 19, item 5).

Before the fix, ``"media": "../../secret.txt"`` or an absolute path read that
local file into the replayed answer.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx
import pytest

from gatewaykit.client.transports.cassette import CassetteTransport
from gatewaykit.client.transports.cassette_store import Cassette, normalise_request
from gatewaykit.errors import ConfigurationError

BASE = "http://gateway.test"
SECRET = b"private notes: not for the class"


def _cassette_with_media(tmp_path: Path, media: object) -> Path:
    path = tmp_path / "shared" / "demo.jsonl"
    path.parent.mkdir()
    request = normalise_request("GET", f"{BASE}/v1/videos/v1/content", BASE, "", b"")
    answer = {"status": 200, "headers": [["content-type", "video/mp4"]], "media": media}
    path.write_text(json.dumps({"request": request, "response": answer}) + "\n")
    return path


def _replay(path: Path) -> bytes:
    transport = CassetteTransport(Cassette(path, "replay"), BASE)
    with httpx.Client(transport=transport, base_url=BASE) as client:
        return client.get("/v1/videos/v1/content").content


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_a_media_path_is_refused_when_the_cassette_loads(tmp_path: Path, kind: str) -> None:
    """A media value that is a path (../../x or absolute) is a ConfigurationError naming the line; nothing is read."""
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    media = "../../secret.txt" if kind == "relative" else str(secret)
    path = _cassette_with_media(tmp_path, media)
    with pytest.raises(ConfigurationError, match=r"line 1: its media value .* is not a SHA-256 digest"):
        _replay(path)


def test_a_digest_named_link_out_of_the_media_folder_is_refused(tmp_path: Path) -> None:
    """A media file that is a symlink to a file elsewhere is not followed."""
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    digest = hashlib.sha256(SECRET).hexdigest()
    path = _cassette_with_media(tmp_path, digest)
    media_dir = path.with_name(path.name + ".media")
    media_dir.mkdir()
    (media_dir / digest).symlink_to(secret)
    with pytest.raises(ConfigurationError, match="is a link"):
        _replay(path)


def test_a_media_file_changed_after_recording_is_refused(tmp_path: Path) -> None:
    """Media whose bytes no longer match their digest is an error, not a replayed answer."""
    digest = hashlib.sha256(b"the recorded video").hexdigest()
    path = _cassette_with_media(tmp_path, digest)
    media_dir = path.with_name(path.name + ".media")
    media_dir.mkdir()
    (media_dir / digest).write_bytes(b"something else")
    with pytest.raises(ConfigurationError, match="does not hold what was recorded"):
        _replay(path)


def test_recorded_media_by_digest_still_replays(tmp_path: Path) -> None:
    """The digest a recording writes replays its bytes."""
    data = b"\x00\x00\x00\x18ftypmp42 video bytes"
    digest = hashlib.sha256(data).hexdigest()
    path = _cassette_with_media(tmp_path, digest)
    media_dir = path.with_name(path.name + ".media")
    media_dir.mkdir()
    (media_dir / digest).write_bytes(data)
    assert _replay(path) == data
