"""Browser origins the offline gateway allows (CORS): a JupyterLite page may call it only when listed."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk

SITE = "http://127.0.0.1:8800"
PREFLIGHT = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"}


@pytest.fixture(scope="module")
def listed() -> Iterator[Any]:
    with gk.emulator.start(time_scale=0, cors_origins=[SITE, "https://class.example.org"]) as gateway:
        yield gateway


@pytest.fixture(scope="module")
def closed() -> Iterator[Any]:
    with gk.emulator.start(time_scale=0) as gateway:
        yield gateway


def _preflight(gateway: Any, origin: str) -> httpx.Response:
    return httpx.options(f"{gateway.base_url}/v1/chat/completions", headers={"Origin": origin, **PREFLIGHT})


def test_a_listed_origin_gets_its_preflight_answered(listed: Any) -> None:
    """The preflight of a listed origin allows POST with Authorization, for that origin only, without credentials."""
    answer = _preflight(listed, SITE)
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == SITE
    assert "POST" in answer.headers["access-control-allow-methods"]
    assert "authorization" in answer.headers["access-control-allow-headers"].lower()
    assert "access-control-allow-credentials" not in answer.headers


def test_an_unlisted_origin_is_not_allowed(listed: Any) -> None:
    """Another origin gets no Access-Control-Allow-Origin: its page cannot read the answer."""
    answer = httpx.get(f"{listed.base_url}/v1/models", headers={"Origin": "https://elsewhere.example",
                                                                "Authorization": f"Bearer {listed.api_key}"})
    assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers
    assert _preflight(listed, "https://elsewhere.example").status_code == 400


def test_no_origin_is_allowed_by_default(closed: Any) -> None:
    """Without cors_origins, no origin is allowed and no preflight is answered."""
    answer = httpx.get(f"{closed.base_url}/v1/models", headers={"Origin": SITE, "Authorization": f"Bearer {closed.api_key}"})
    assert "access-control-allow-origin" not in answer.headers
    assert "access-control-allow-origin" not in _preflight(closed, SITE).headers


def test_an_error_envelope_is_readable_from_the_page(listed: Any) -> None:
    """A refusal (401) carries the CORS headers too, and exposes the request id, so the page reads the envelope."""
    answer = httpx.get(f"{listed.base_url}/v1/models", headers={"Origin": SITE, "Authorization": "Bearer sk-bf-wrong"})
    assert answer.status_code == 401 and answer.json()["error"]["code"]
    assert answer.headers["access-control-allow-origin"] == SITE
    assert "x-request-id" in answer.headers["access-control-expose-headers"].lower()


def test_any_origin_never_gets_credentials() -> None:
    """cors_origins=["*"] allows every origin, and never with credentials (cookies)."""
    with gk.emulator.start(time_scale=0, cors_origins=["*"]) as gateway:
        answer = _preflight(gateway, "https://anywhere.example")
        simple = httpx.get(f"{gateway.base_url}/v1/models", headers={"Origin": "https://anywhere.example",
                                                                     "Cookie": "session=1"})
    assert answer.headers["access-control-allow-origin"] in ("*", "https://anywhere.example")
    assert "access-control-allow-credentials" not in answer.headers
    assert simple.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in simple.headers


@pytest.mark.parametrize("origin", ["127.0.0.1:8800", "http://127.0.0.1:8800/lab", "ftp://x.org", "http://"])
def test_a_malformed_origin_is_a_value_error_saying_what_an_origin_is(origin: str) -> None:
    """An origin with a path, no scheme or another scheme is refused before the server starts."""
    with pytest.raises(ValueError, match="scheme, a host and an optional port"):
        gk.emulator.start(time_scale=0, cors_origins=[origin])


def test_the_cli_takes_cors_origin_more_than_once() -> None:
    """`--cors-origin` is repeatable on `python -m gatewaykit.emulator`; both origins are allowed."""
    process = subprocess.Popen([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--time-scale", "0",
                                "--cors-origin", SITE, "--cors-origin", "https://class.example.org"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().split(": ", 1)[1].strip()  # type: ignore[union-attr]
        for origin in (SITE, "https://class.example.org"):
            answer = httpx.options(f"{url}/v1/models", headers={"Origin": origin, "Access-Control-Request-Method": "GET"})
            assert answer.headers["access-control-allow-origin"] == origin
    finally:
        process.terminate()
        process.communicate(timeout=60)
