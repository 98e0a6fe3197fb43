"""Image generation and edit answers."""

from __future__ import annotations

from typing import List, Optional

from pydantic import Field

from gatewaykit.types.common import GatewayModel, Usage


class ImageData(GatewayModel):
    """One generated image: ``b64_json``, or ``url`` (an inline ``data:`` URI)."""

    index: int = 0
    b64_json: Optional[str] = None
    url: Optional[str] = None
    revised_prompt: Optional[str] = None


class ImageResult(GatewayModel):
    """``POST /v1/images/generations`` and ``/v1/images/edits`` answers."""

    created: int = 0
    model: Optional[str] = None
    size: Optional[str] = None
    data: List[ImageData] = Field(default_factory=list)
    usage: Optional[Usage] = None
