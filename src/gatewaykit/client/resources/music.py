"""``client.music``: create and retrieve music jobs (``/v1/audio/generations``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, cast

from typing_extensions import Unpack

from gatewaykit.client.api_request import NOT_GIVEN, RequestOptions
from gatewaykit.client.resources.awaitable_surface import awaitable_method
from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.core.flows import Flow
from gatewaykit.client.resources.job_flows import create_job_flow, job_endpoint, job_id_segment, seen
from gatewaykit.client.resources.quoting import quote_flow
from gatewaykit.client.core.request_pipeline import build_call
from gatewaykit.client.core.validation import check_music
from gatewaykit.costs.quotes import Quote
from gatewaykit.types import MusicJob
from gatewaykit.client.transports.response_decoding import read_model
from gatewaykit.error_text import public_call


if TYPE_CHECKING:
    from gatewaykit.types import AsyncMusicJob

__all__ = ["AsyncMusic", "Music"]

MUSIC = job_endpoint("music.create", "/v1/audio/generations", "music", check_music)


class Music:
    """Music jobs: ``create`` returns an in-progress :class:`MusicJob`; ``job.wait()`` polls it."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    @public_call
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
        call = build_call(self._client, MUSIC, fields, options)
        return cast(MusicJob, self._client._run(create_job_flow(self._client, call, MusicJob)))

    def quote(self, **create_args: Any) -> Quote:
        """What ``create(**create_args)`` would cost: a :class:`~gatewaykit.Quote`; nothing is sent."""
        typed = {name: create_args.pop(name, None) for name in _FIELD_NAMES}
        if typed["model"] is None or typed["prompt"] is None:
            raise TypeError("music.quote() needs model= and prompt=, like music.create()")
        call = build_call(self._client, MUSIC, typed, create_args)
        return cast(Quote, self._client._run(quote_flow(self._client, "music", call.body, check_music)))

    @public_call
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


_FIELD_NAMES = ("model", "prompt", "lyrics_prompt", "sample_rate", "bitrate", "format")


class AsyncMusic(Music):
    """``aclient.music``: the same calls, awaitable."""

    if TYPE_CHECKING:
        create = awaitable_method(Music.create, AsyncMusicJob)  # type: ignore[assignment]
        retrieve = awaitable_method(Music.retrieve, AsyncMusicJob)  # type: ignore[assignment]
        quote = awaitable_method(Music.quote)  # type: ignore[assignment]
