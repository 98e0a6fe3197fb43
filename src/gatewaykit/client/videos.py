"""``client.videos``: create, retrieve and delete video jobs (``/v1/videos``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, cast

from typing_extensions import Unpack

from gatewaykit.client.api_request import NOT_GIVEN, RequestOptions, call_options, merge_body
from gatewaykit.client.base import BaseClient
from gatewaykit.client.flows import Flow
from gatewaykit.client.job_flows import cancel_flow, create_job_flow, job_id_segment, seen
from gatewaykit.client.media_inputs import to_image_url
from gatewaykit.client.parameter_names import keyword_check
from gatewaykit.client.validation import check_video
from gatewaykit.types import VideoJob
from gatewaykit.client.transports.response_decoding import read_model

if TYPE_CHECKING:
    from gatewaykit.types import AsyncVideoJob

__all__ = ["AsyncVideos", "Videos"]


class Videos:
    """Video jobs: ``create`` returns a queued :class:`VideoJob`; ``job.wait()`` polls it."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    def create(
        self,
        *,
        model: str,
        prompt: str,
        input_reference: Any = None,
        resolution: Optional[str] = None,
        duration: Optional[int] = None,
        aspect_ratio: Optional[str] = None,
        generate_audio: Optional[bool] = None,
        seed: Optional[int] = None,
        **options: Unpack[RequestOptions],
    ) -> VideoJob:
        """Start a video job. ``input_reference``: a URL or ``data:`` URI string, a ``pathlib.Path``, bytes or PIL image.

        ``options``: :class:`~gatewaykit.client.api_request.RequestOptions`
        (``extra_headers``, ``extra_body``, ``timeout``, ``validate``).
        """
        fields = dict(
            model=model, prompt=prompt,
            input_reference=(
                to_image_url(input_reference, field="input_reference") if input_reference is not None else None
            ),
            resolution=resolution, duration=duration, aspect_ratio=aspect_ratio,
            generate_audio=generate_audio, seed=seed,
        )  # fmt: skip
        call = call_options(options)
        body = merge_body(fields, call.passthrough, call.extra_body)
        checked = self._client._checks_on(call.validate)
        flow = create_job_flow(
            self._client, "video", "/v1/videos", body, VideoJob, check_video, call.extra_headers, call.timeout, checked,
            keyword_check("videos.create", fields, call.passthrough),
        )
        return cast(VideoJob, self._client._run(flow))

    def retrieve(
        self, video_id: str, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN
    ) -> VideoJob:
        """The job's current state (a failed job is still an answer: check ``status``)."""
        segment = job_id_segment(video_id, "video_id")
        return cast(VideoJob, self._client._run(self._retrieve(segment, extra_headers, timeout)))

    def _retrieve(self, segment: str, extra_headers: Any, timeout: Any) -> Flow[VideoJob]:
        response = yield from self._client._get(f"/v1/videos/{segment}", extra_headers=extra_headers, timeout=timeout)
        return seen(self._client, read_model(VideoJob, response))

    def delete(self, video_id: str, *, timeout: Any = NOT_GIVEN) -> VideoJob:
        """Cancel (or delete) the job; a cancelled job is never charged."""
        job_id_segment(video_id, "video_id")  # refused here, before anything is sent
        job = VideoJob(id=video_id, status="unknown")
        return cast(VideoJob, self._client._run(cancel_flow(self._client, job, timeout=timeout)))


class AsyncVideos(Videos):
    """``aclient.videos``: the same calls, awaitable."""

    if TYPE_CHECKING:

        async def create(  # type: ignore[override]
            self, *, model: str, prompt: str, input_reference: Any = None, resolution: Optional[str] = None,
            duration: Optional[int] = None, aspect_ratio: Optional[str] = None,
            generate_audio: Optional[bool] = None, seed: Optional[int] = None, **options: Unpack[RequestOptions],
        ) -> AsyncVideoJob: ...  # fmt: skip

        async def retrieve(  # type: ignore[override]
            self, video_id: str, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN
        ) -> AsyncVideoJob: ...

        async def delete(self, video_id: str, *, timeout: Any = NOT_GIVEN) -> AsyncVideoJob: ...  # type: ignore[override]
