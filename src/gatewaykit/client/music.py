"""``client.music``: create and retrieve music jobs (``/v1/audio/generations``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, cast

from typing_extensions import Unpack

from gatewaykit.client.api_request import NOT_GIVEN, RequestOptions, call_options, merge_body
from gatewaykit.client.base import BaseClient
from gatewaykit.client.flows import Flow
from gatewaykit.client.job_flows import create_job_flow, job_id_segment, seen
from gatewaykit.client.parameter_names import keyword_check
from gatewaykit.client.validation import check_music
from gatewaykit.types import MusicJob
from gatewaykit.client.transports.response_decoding import read_model


if TYPE_CHECKING:
    from gatewaykit.types import AsyncMusicJob

__all__ = ["AsyncMusic", "Music"]


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
        **options: Unpack[RequestOptions],
    ) -> MusicJob:
        """Start a song: ``prompt`` is the style, ``lyrics_prompt`` the lyrics ([Verse]/[Chorus] lines).

        ``options``: :class:`~gatewaykit.client.api_request.RequestOptions`.
        """
        fields = dict(
            model=model, prompt=prompt, lyrics_prompt=lyrics_prompt,
            sample_rate=sample_rate, bitrate=bitrate, format=format,
        )  # fmt: skip
        call = call_options(options)
        body = merge_body(fields, call.passthrough, call.extra_body)
        checked = self._client._checks_on(call.validate)
        flow = create_job_flow(
            self._client, "music", "/v1/audio/generations", body, MusicJob, check_music,
            call.extra_headers, call.timeout, checked, keyword_check("music.create", fields, call.passthrough),
        )  # fmt: skip
        return cast(MusicJob, self._client._run(flow))

    def retrieve(
        self, audio_id: str, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN
    ) -> MusicJob:
        """The job's current state (a failed job is still an answer: check ``status``)."""
        segment = job_id_segment(audio_id, "audio_id")
        return cast(MusicJob, self._client._run(self._retrieve(segment, extra_headers, timeout)))

    def _retrieve(self, segment: str, extra_headers: Any, timeout: Any) -> Flow[MusicJob]:
        response = yield from self._client._get(
            f"/v1/audio/generations/{segment}", extra_headers=extra_headers, timeout=timeout
        )
        return seen(self._client, read_model(MusicJob, response))


class AsyncMusic(Music):
    """``aclient.music``: the same calls, awaitable."""

    if TYPE_CHECKING:

        async def create(  # type: ignore[override]
            self, *, model: str, prompt: str, lyrics_prompt: Optional[str] = None,
            sample_rate: Optional[int] = None, bitrate: Optional[int] = None, format: Optional[str] = None,
            **options: Unpack[RequestOptions],
        ) -> AsyncMusicJob: ...  # fmt: skip

        async def retrieve(  # type: ignore[override]
            self, audio_id: str, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN
        ) -> AsyncMusicJob: ...
