"""``client.videos``: create, retrieve and delete video jobs (``/v1/videos``)."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from gatewaykit.client.base import BaseClient
from gatewaykit.client.flows import Flow
from gatewaykit.client.jobs import cancel_flow, seen
from gatewaykit.client.media_inputs import to_image_url
from gatewaykit.client.requests import NOT_GIVEN, merge_body
from gatewaykit.client.validation import check_video
from gatewaykit.types import VideoJob

__all__ = ["Videos", "create_job_flow"]


def create_job_flow(
    client: BaseClient, kind: str, path: str, body: dict[str, Any], job_type: type, check: Any,
    extra_headers: Any, timeout: Any, checked: bool,
) -> Flow[Any]:  # fmt: skip
    """Validate, check the budget, POST once (a lost answer is never re-sent), record the job."""
    if checked:
        entry = yield from client._catalog_entry(body.get("model"))
        if entry is not None:
            check(entry, body)
    recording = client._recording(kind, body.get("model"), body)
    request = client._json_request("POST", path, body, extra_headers=extra_headers, timeout=timeout, creates_job=True)
    response = yield from client._billable_send(request, recording)
    job = job_type.model_validate_json(response.content)
    recording.ok(id=job.id, status=job.status)
    return seen(client, job)


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
        extra_headers: Optional[Mapping[str, str]] = None,
        extra_body: Optional[Mapping[str, Any]] = None,
        timeout: Any = NOT_GIVEN,
        validate: Optional[bool] = None,
        **kwargs: Any,
    ) -> Any:
        """Start a video job. ``input_reference``: an URL, ``data:`` URI, path, bytes or PIL image."""
        fields = dict(
            model=model, prompt=prompt,
            input_reference=to_image_url(input_reference) if input_reference is not None else None,
            resolution=resolution, duration=duration, aspect_ratio=aspect_ratio,
            generate_audio=generate_audio, seed=seed,
        )  # fmt: skip
        body = merge_body(fields, kwargs, extra_body)
        checked = self._client._checks_on(validate)
        flow = create_job_flow(
            self._client, "video", "/v1/videos", body, VideoJob, check_video, extra_headers, timeout, checked
        )
        return self._client._run(flow)

    def retrieve(self, video_id: str, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN) -> Any:
        """The job's current state (a failed job is still an answer: check ``status``)."""
        return self._client._run(self._retrieve(video_id, extra_headers, timeout))

    def _retrieve(self, video_id: str, extra_headers: Any, timeout: Any) -> Flow[VideoJob]:
        response = yield from self._client._get(f"/v1/videos/{video_id}", extra_headers=extra_headers, timeout=timeout)
        return seen(self._client, VideoJob.model_validate_json(response.content))

    def delete(self, video_id: str, *, timeout: Any = NOT_GIVEN) -> Any:
        """Cancel (or delete) the job; a cancelled job is never charged."""
        job = VideoJob(id=video_id, status="unknown")
        return self._client._run(cancel_flow(self._client, job, timeout=timeout))
