"""Asynchronous video and music jobs."""

from __future__ import annotations

from typing import List, Literal, Optional

from gatewaykit.types.common import GatewayModel


class MediaLink(GatewayModel):
    """``{type: "url", url, content_type}``: where the finished media is."""

    type: str = "url"
    url: str
    content_type: Optional[str] = None


class JobError(GatewayModel):
    message: str


class VideoJob(GatewayModel):
    """A video job (``object: "video"``). ``status``: queued, in_progress, completed, failed."""

    id: str
    object: Literal["video"] = "video"
    model: Optional[str] = None
    status: str
    size: Optional[str] = None
    seconds: Optional[str] = None
    created_at: Optional[int] = None
    completed_at: Optional[int] = None
    videos: Optional[List[MediaLink]] = None
    error: Optional[JobError] = None


class MusicJob(GatewayModel):
    """A music job (``object: "audio"``). ``status``: in_progress, completed, failed."""

    id: str
    object: Literal["audio"] = "audio"
    model: Optional[str] = None
    status: str
    seconds: Optional[str] = None
    created_at: Optional[int] = None
    completed_at: Optional[int] = None
    audio: Optional[List[MediaLink]] = None
    error: Optional[JobError] = None
