"""``client.videos``: create, retrieve and delete video jobs (``/v1/videos``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, cast

from typing_extensions import Unpack

from gatewaykit.client.api_request import NOT_GIVEN, RequestOptions
from gatewaykit.client.resources.awaitable_surface import awaitable_method
from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.core.flows import Flow
from gatewaykit.client.resources.job_flows import cancel_flow, create_job_flow, job_endpoint, job_id_segment, seen
from gatewaykit.client.resources.media_inputs import to_image_url
from gatewaykit.client.resources.quoting import quote_flow
from gatewaykit.client.core.request_pipeline import build_call
from gatewaykit.client.core.validation import check_video
from gatewaykit.costs.quotes import Quote
from gatewaykit.types import VideoJob
from gatewaykit.client.transports.response_decoding import read_model
from gatewaykit.error_text import public_call

if TYPE_CHECKING:
    from gatewaykit.types import AsyncVideoJob

__all__ = ["AsyncVideos", "Videos"]

VIDEO = job_endpoint("videos.create", "/v1/videos", "video", check_video)


class Videos:
    """Video jobs: ``create`` returns a queued :class:`VideoJob`; ``job.wait()`` polls it."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    @public_call
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
        (``extra_headers``, ``extra_body``, ``timeout``, ``validate``, ``confirm``).
        """
        fields = _fields(model, prompt, input_reference, resolution, duration, aspect_ratio, generate_audio, seed)
        call = build_call(self._client, VIDEO, fields, options)
        return cast(VideoJob, self._client._run(create_job_flow(self._client, call, VideoJob)))

    def quote(self, **create_args: Any) -> Quote:
        """What ``create(**create_args)`` would cost: a :class:`~gatewaykit.Quote`; nothing is sent.

        An unknown model or a value the model does not offer raises as ``create``
        would (``ModelNotFoundError``, ``BadRequestError`` naming it).
        """
        typed = {name: create_args.pop(name, None) for name in _FIELD_NAMES}
        if typed["model"] is None or typed["prompt"] is None:
            raise TypeError("videos.quote() needs model= and prompt=, like videos.create()")
        call = build_call(self._client, VIDEO, _fields(**typed), create_args)
        return cast(Quote, self._client._run(quote_flow(self._client, "video", call.body, check_video)))

    @public_call
    def retrieve(
        self, video_id: str, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN
    ) -> VideoJob:
        """The job's current state (a failed job is still an answer: check ``status``)."""
        segment = job_id_segment(video_id, "video_id")
        return cast(VideoJob, self._client._run(self._retrieve(segment, extra_headers, timeout)))

    def _retrieve(self, segment: str, extra_headers: Any, timeout: Any) -> Flow[VideoJob]:
        response = yield from self._client._get(f"/v1/videos/{segment}", extra_headers=extra_headers, timeout=timeout)
        return seen(self._client, read_model(VideoJob, response))

    @public_call
    def delete(self, video_id: str, *, timeout: Any = NOT_GIVEN) -> VideoJob:
        """Cancel (or delete) the job; a cancelled job is never charged."""
        job_id_segment(video_id, "video_id")  # refused here, before anything is sent
        job = VideoJob(id=video_id, status="unknown")
        return cast(VideoJob, self._client._run(cancel_flow(self._client, job, timeout=timeout)))


_FIELD_NAMES = ("model", "prompt", "input_reference", "resolution", "duration", "aspect_ratio", "generate_audio", "seed")


def _fields(
    model: Any, prompt: Any, input_reference: Any = None, resolution: Any = None, duration: Any = None,
    aspect_ratio: Any = None, generate_audio: Any = None, seed: Any = None,
) -> dict[str, Any]:  # fmt: skip
    """A create call's typed fields as the request body has them (a picture as a ``data:`` URI)."""
    reference = to_image_url(input_reference, field="input_reference") if input_reference is not None else None
    return dict(
        model=model, prompt=prompt, input_reference=reference, resolution=resolution, duration=duration,
        aspect_ratio=aspect_ratio, generate_audio=generate_audio, seed=seed,
    )  # fmt: skip


class AsyncVideos(Videos):
    """``aclient.videos``: the same calls, awaitable."""

    if TYPE_CHECKING:
        create = awaitable_method(Videos.create, AsyncVideoJob)  # type: ignore[assignment]
        retrieve = awaitable_method(Videos.retrieve, AsyncVideoJob)  # type: ignore[assignment]
        delete = awaitable_method(Videos.delete, AsyncVideoJob)  # type: ignore[assignment]
        quote = awaitable_method(Videos.quote)  # type: ignore[assignment]
