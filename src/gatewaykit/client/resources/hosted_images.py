"""Hosted images fetched when the answer arrives: ``data: [{"url": "https://..."}]`` (OpenAI, Azure).

Such a link expires (often within the hour) and is somebody else's server: the
client fetches each one at once, through its own transport (so a cassette or
the cache sees it, the size limit ``max_response_bytes`` holds, and none of the
client's headers go to another origin), checks it as any untrusted image
(PNG, JPEG, WebP or GIF, at most :data:`~gatewaykit.types.images.MAX_IMAGE_PIXELS`,
only its header read), and keeps the bytes in ``b64_json``. The images were
paid for: a link that cannot be fetched never fails the call; that image's
``content`` (and ``result.images``) then raises a :class:`GatewayError` saying
why and what to do.
"""

from __future__ import annotations

import base64
from typing import Any

from gatewaykit.client.api_request import ApiRequest
from gatewaykit.client.core.base import raise_for_status
from gatewaykit.client.core.flows import Flow, send_with_retries
from gatewaykit.errors import GatewayError
from gatewaykit.types import ImageResult
from gatewaykit.types.images import check_api_image

__all__ = ["fetch_hosted_images"]


def _hosted(url: Any) -> bool:
    return isinstance(url, str) and url.startswith(("https://", "http://"))


def _link_error(url: str, why: str) -> GatewayError:
    return GatewayError(
        f"This image is only a link ({url[:200]}): {why}. Open the link (hosted images expire, often within "
        "the hour), or ask for the image inline: response_format='b64_json'."
    )


def fetch_hosted_images(client: Any, result: ImageResult) -> Flow[None]:
    """Fill ``b64_json`` of every image of ``result`` that is only a hosted link (see the module docstring)."""
    for item in result.data:
        url = item.url
        if item.b64_json or not url or url.startswith("data:"):
            continue
        if not _hosted(url):
            item._not_fetched = _link_error(url, "the client fetches only http(s) links")
            continue
        request = ApiRequest("GET", url, replay_safe=True)
        try:
            response, _ = yield from send_with_retries(request, client._policy)
            raise_for_status(response)
            content = response.content
            check_api_image(content, "the image at its link")
        except GatewayError as exc:
            item._not_fetched = _link_error(url, f"fetching it failed ({exc})")
            continue
        except ValueError as exc:
            item._not_fetched = _link_error(url, f"the client refused it: {exc}")
            continue
        item.b64_json = base64.b64encode(content).decode("ascii")
