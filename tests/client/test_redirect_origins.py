"""A content redirect to another origin carries none of the client's headers (issue 19, item 8).

Two real loopback servers on different ports (two origins): the offline gateway,
whose content route answers a 302 to the second server, and that second server,
which notes the headers it receives. Before the fix the second origin received
``default_headers`` (an organisation token) and a ``Cookie``; only
``Authorization`` was dropped.
"""

from __future__ import annotations

import asyncio
from typing import Any, Iterator

import pytest
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

import gatewaykit as gk

VIDEO = b"\x00\x00\x00\x18ftypmp42 from the media host"
CLIENT_HEADERS = {"X-Org-Token": "org-secret-token", "Cookie": "session=cookie-secret"}


class Origins:
    def __init__(self, gateway: Any, media: Any) -> None:
        self.gateway, self.media = gateway, media
        self.seen: list[tuple[str, dict[str, str]]] = []


@pytest.fixture(scope="module")
def origins() -> Iterator[Origins]:
    """The offline gateway (content redirects to the media host) and a media host on another port."""
    with gk.emulator.start(time_scale=0) as gateway, gk.emulator.start(time_scale=0) as media:
        found = Origins(gateway, media)

        async def redirect(request: Request) -> Response:
            found.seen.append(("gateway", {k.lower(): v for k, v in request.headers.items()}))
            return RedirectResponse(f"{media.base_url}/capture/video.mp4?sig=abc", status_code=302)

        async def capture(request: Request) -> Response:
            found.seen.append(("media", {k.lower(): v for k, v in request.headers.items()}))
            return Response(VIDEO, media_type="video/mp4")

        gateway.app.router.routes.insert(0, Route("/v1/videos/{job_id}/content", redirect, methods=["GET"]))
        media.app.router.routes.append(Route("/capture/{name}", capture, methods=["GET"]))
        assert gateway.base_url.split(":")[-1] != media.base_url.split(":")[-1]
        yield found


def _leaked(headers: dict[str, str], key: str) -> list[str]:
    secrets = [key, *CLIENT_HEADERS.values(), "gatewaykit/"]
    return [name for name, value in headers.items() if any(secret in value for secret in secrets)]


def test_cross_origin_hop_carries_no_client_headers(origins: Origins) -> None:
    """content() reaches the media host with no Authorization, default header, Cookie or our User-Agent."""
    origins.seen.clear()
    gateway = origins.gateway
    with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, default_headers=CLIENT_HEADERS,
                   ledger=gk.Ledger(path=None)) as client:  # fmt: skip
        job = client.videos.create(model="video-range", prompt="waves", duration=2).wait(timeout=60, poll_interval=0.05)
        assert job.content() == VIDEO
    (_, at_gateway), (_, at_media) = [entry for entry in origins.seen]
    assert at_gateway["x-org-token"] == "org-secret-token" and at_gateway["authorization"].endswith(gateway.api_key)
    assert _leaked(at_media, gateway.api_key) == [] and "cookie" not in at_media and "x-org-token" not in at_media


def test_async_cross_origin_hop_carries_no_client_headers(origins: Origins) -> None:
    """The AsyncClient's content() sends none of the client's headers to the other origin either."""
    origins.seen.clear()
    gateway = origins.gateway

    async def fetch() -> bytes:
        async with gk.AsyncClient(api_key=gateway.api_key, base_url=gateway.base_url, default_headers=CLIENT_HEADERS,
                                  ledger=gk.Ledger(path=None)) as client:  # fmt: skip
            job = await client.videos.create(model="video-range", prompt="waves", duration=2)
            await job.wait(timeout=60, poll_interval=0.05)
            return await job.content()

    assert asyncio.run(fetch()) == VIDEO
    at_media = dict(origins.seen)["media"]
    assert _leaked(at_media, gateway.api_key) == [] and "cookie" not in at_media
