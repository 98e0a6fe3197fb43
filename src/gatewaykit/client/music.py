"""``client.music``: create and retrieve music jobs (``/v1/audio/generations``)."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from gatewaykit.client.base import BaseClient
from gatewaykit.client.flows import Flow
from gatewaykit.client.jobs import seen
from gatewaykit.client.requests import NOT_GIVEN, merge_body
from gatewaykit.client.validation import check_music
from gatewaykit.client.videos import create_job_flow
from gatewaykit.types import MusicJob

__all__ = ["Music"]


class Music:
    """Music jobs: ``create`` returns an in-progress :class:`MusicJob`; ``job.wait()`` polls it."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    def create(
        self,
        *,
        model: str,
        prompt: str,
        lyrics_prompt: Optional[str] = None,
        sample_rate: Optional[int] = None,
        bitrate: Optional[int] = None,
        format: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        extra_body: Optional[Mapping[str, Any]] = None,
        timeout: Any = NOT_GIVEN,
        validate: Optional[bool] = None,
        **kwargs: Any,
    ) -> Any:
        """Start a song: ``prompt`` is the style, ``lyrics_prompt`` the lyrics ([Verse]/[Chorus] lines)."""
        fields = dict(
            model=model, prompt=prompt, lyrics_prompt=lyrics_prompt,
            sample_rate=sample_rate, bitrate=bitrate, format=format,
        )  # fmt: skip
        body = merge_body(fields, kwargs, extra_body)
        checked = self._client._checks_on(validate)
        flow = create_job_flow(
            self._client, "music", "/v1/audio/generations", body, MusicJob, check_music, extra_headers, timeout, checked
        )
        return self._client._run(flow)

    def retrieve(self, audio_id: str, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN) -> Any:
        """The job's current state (a failed job is still an answer: check ``status``)."""
        return self._client._run(self._retrieve(audio_id, extra_headers, timeout))

    def _retrieve(self, audio_id: str, extra_headers: Any, timeout: Any) -> Flow[MusicJob]:
        response = yield from self._client._get(
            f"/v1/audio/generations/{audio_id}", extra_headers=extra_headers, timeout=timeout
        )
        return seen(self._client, MusicJob.model_validate_json(response.content))
