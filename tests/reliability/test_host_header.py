"""The gateway answers only requests addressed to itself, and builds media links from its own address."""

from __future__ import annotations

import httpx
import pytest
from gateway_accounts import ACME_KEY
from job_polling import finished_job

HEADERS = {"Authorization": f"Bearer {ACME_KEY}"}


@pytest.mark.parametrize("host", ["evil.example:666", "evil.example", "127.0.0.1:1", "localhost"])
def test_a_request_for_another_host_is_421_in_the_envelope(emulator, host):
    """A Host that is not this gateway's address and port (DNS rebinding) is a 421 misdirected_request."""
    answer = httpx.get(f"{emulator.base_url}/v1/models", headers={**HEADERS, "Host": host}, timeout=60)
    assert answer.status_code == 421, answer.text
    assert answer.json()["error"]["code"] == "misdirected_request"
    assert answer.headers["x-gateway-offline"] == "1"


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"])
def test_loopback_names_on_the_gateways_port_are_served(emulator, name):
    """localhost, 127.0.0.1 and [::1] on the gateway's own port are answered."""
    answer = httpx.get(f"{emulator.base_url}/v1/models", headers={**HEADERS, "Host": f"{name}:{emulator.port}"},
                       timeout=60)
    assert answer.status_code == 200


def test_media_links_use_the_bound_address_not_forwarded_headers(emulator):
    """A finished video's URL and its 302 name the bound address, whatever X-Forwarded-* and Host say."""
    forwarded = {**HEADERS, "Host": f"localhost:{emulator.port}", "X-Forwarded-Proto": "https",
                 "X-Forwarded-Host": "evil.example:666", "X-Forwarded-For": "10.0.0.1"}
    with httpx.Client(base_url=emulator.base_url, headers=forwarded, timeout=60) as http:
        job = http.post("/v1/videos", json={"model": "video-tiers", "prompt": "x", "resolution": "480p"}).json()
        job = finished_job(http, f"/v1/videos/{job['id']}")
        own = f"http://127.0.0.1:{emulator.port}/_media/"
        assert job["videos"][0]["url"].startswith(own)
        assert http.get(f"/v1/videos/{job['id']}/content").headers["location"].startswith(own)
