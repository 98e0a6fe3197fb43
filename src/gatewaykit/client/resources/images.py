"""``client.images``: ``generate`` (JSON) and ``edit`` (multipart ``image[]`` parts).

With ``stream=True`` the gateway sends keepalive comments while it works and
one terminal ``image_generation.completed`` event; the call still returns one
:class:`ImageResult` (streaming only keeps slow generations alive).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional, cast

from typing_extensions import Unpack

from gatewaykit.client.resources.awaitable_surface import awaitable_method
from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.core.flows import Flow, ReadEvents
from gatewaykit.client.resources.hosted_images import fetch_hosted_images
from gatewaykit.client.resources.media_inputs import to_upload
from gatewaykit.client.core.recording import Recording
from gatewaykit.client.api_request import RequestOptions
from gatewaykit.client.api_request import call_options, merge_body
from gatewaykit.client.resources.quoting import quote_flow
from gatewaykit.client.core.request_pipeline import Call, Endpoint, build_call, run_call
from gatewaykit.client.resources.session_media import session_media
from gatewaykit.client.core.sse import ServerSentEvent
from gatewaykit.client.core.streaming import error_in_stream
from gatewaykit.client.core.validation import check_image
from gatewaykit.costs.quotes import Quote
from gatewaykit.errors import APIConnectionError, GatewayError, StreamInterruptedError
from gatewaykit.types import ImageResult, Model
from gatewaykit.client.transports.response_decoding import read_model, unexpected_response, why_unusable
from gatewaykit.error_text import public_call

__all__ = ["AsyncImages", "Images"]

COMPLETED_EVENT = "image_generation.completed"


def image_result_from_event(data: str) -> ImageResult:
    """The terminal event's payload: a whole image response, or one image's fields.

    A payload the client cannot read is an UnexpectedResponseError (never a raw JSON or pydantic error).
    """
    try:
        payload = json.loads(data)
        if "data" in payload:
            return ImageResult.model_validate(payload)
        image = {key: payload[key] for key in ("index", "b64_json", "url", "revised_prompt") if key in payload}
        rest = {key: value for key, value in payload.items() if key not in image and key != "type"}
        return ImageResult.model_validate({**rest, "data": [image]})
    except (ValueError, TypeError, KeyError) as exc:  # pydantic's ValidationError is a ValueError
        raise unexpected_response(
            data, why_unusable(exc), call="client.images.generate(..., stream=True)", what="event in the stream"
        ) from None


def _result_from_events(events: list[ServerSentEvent]) -> Optional[ImageResult]:
    for event in events:
        if event.event == COMPLETED_EVENT:
            return image_result_from_event(event.data)
        if event.event == "error" or event.data.startswith('{"error"'):
            raise error_in_stream(event.data)
    return None


_IMAGE_FIELDS = (
    "model", "prompt", "n", "response_format", "output_format", "quality", "stream", "seed", "width", "height",
    "aspect_ratio", "resolution", "image_size",
)  # fmt: skip


class Images:
    """``POST /v1/images/generations`` and ``POST /v1/images/edits``."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    @public_call
    def generate(
        self,
        *,
        model: str,
        prompt: str,
        n: Optional[int] = None,
        response_format: Optional[str] = None,
        output_format: Optional[str] = None,
        quality: Optional[str] = None,
        stream: Optional[bool] = None,
        seed: Optional[int] = None,
        width: Optional[int] = None,
        height: Optional[int] = None,
        aspect_ratio: Optional[str] = None,
        resolution: Optional[str] = None,
        image_size: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> ImageResult:
        """Generate images; an :class:`ImageResult` (``.images`` are PIL images, ``.save(dir)``)."""
        fields = dict(
            model=model, prompt=prompt, n=n, response_format=response_format, output_format=output_format,
            quality=quality, stream=stream or None, seed=seed, width=width, height=height,
            aspect_ratio=aspect_ratio, resolution=resolution, image_size=image_size,
        )  # fmt: skip
        call = build_call(self._client, IMAGE_GENERATE, fields, options, stream=bool(stream))
        return cast(ImageResult, self._client._run(self._flow(call)))

    def quote(self, **generate_args: Any) -> Quote:
        """What ``generate(**generate_args)`` would cost (with ``image=``: what ``edit`` would): a
        :class:`~gatewaykit.Quote`; nothing is sent. An unknown model or value raises as the call would."""
        uploads = generate_args.pop("image", None)
        fields = {name: generate_args.pop(name, None) for name in _IMAGE_FIELDS}
        if fields["model"] is None or fields["prompt"] is None:
            raise TypeError("images.quote() needs model= and prompt=, like images.generate()")
        fields["stream"] = fields["stream"] or None
        call = call_options(generate_args)
        body = merge_body(fields, call.passthrough, call.extra_body)
        kind = "image.generate" if uploads is None else "image.edit"
        references = None if uploads is None else len(to_upload(uploads))
        flow = quote_flow(self._client, kind, body, check_image, reference_images=references)
        return cast(Quote, self._client._run(flow))

    @public_call
    def edit(
        self,
        *,
        model: str,
        prompt: str,
        image: Any,
        n: Optional[int] = None,
        response_format: Optional[str] = None,
        output_format: Optional[str] = None,
        quality: Optional[str] = None,
        stream: Optional[bool] = None,
        seed: Optional[int] = None,
        width: Optional[int] = None,
        height: Optional[int] = None,
        aspect_ratio: Optional[str] = None,
        resolution: Optional[str] = None,
        image_size: Optional[str] = None,
        **options: Unpack[RequestOptions],
    ) -> ImageResult:
        """Edit images: ``image`` is one or a list of paths, bytes, binary file objects or PIL images."""
        uploads = to_upload(image)
        fields = dict(
            model=model, prompt=prompt, n=n, response_format=response_format, output_format=output_format,
            quality=quality, stream=stream or None, seed=seed, width=width, height=height,
            aspect_ratio=aspect_ratio, resolution=resolution, image_size=image_size,
        )  # fmt: skip
        call = build_call(
            self._client, IMAGE_EDIT, fields, options, also_typed=("image",), uploads=uploads, stream=bool(stream)
        )
        return cast(ImageResult, self._client._run(self._flow(call)))

    def _flow(self, call: Call) -> Flow[ImageResult]:
        response = yield from run_call(self._client, call)
        recording = call.recording
        assert recording is not None
        if call.stream:
            result = yield from _read_stream(response, recording)
        else:
            result = read_model(ImageResult, response, recording=recording)
        recording.ok(usage=result.usage, images=len(result.data), result=result)
        yield from fetch_hosted_images(self._client, result)  # links expire: fetched now, checked as untrusted
        session_media.remember("image", call.body, result, self._client.ledger)
        return result


def _image_limits(entry: Optional[Model], body: dict[str, Any], call: Call) -> None:
    assert entry is not None  # uses_catalog: checked only against a catalog entry
    check_image(entry, body, reference_images=len(call.uploads) if call.uploads is not None else None)


IMAGE_GENERATE = Endpoint("images.generate", "/v1/images/generations", "image.generate", _image_limits)
IMAGE_EDIT = Endpoint("images.edit", "/v1/images/edits", "image.edit", _image_limits)


class AsyncImages(Images):
    """``aclient.images``: the same calls, awaitable."""

    if TYPE_CHECKING:
        generate = awaitable_method(Images.generate)  # type: ignore[assignment]
        edit = awaitable_method(Images.edit)  # type: ignore[assignment]
        quote = awaitable_method(Images.quote)  # type: ignore[assignment]


def _read_stream(response: Any, recording: Recording) -> Flow[ImageResult]:
    try:
        events = yield ReadEvents(response)
        result = _result_from_events(events)
    except APIConnectionError as exc:
        recording.interrupted(exc.message)
        raise StreamInterruptedError(f"The image stream broke off: {exc.message}") from exc
    except GatewayError as exc:
        recording.error(exc)
        raise
    if result is None:
        message = f"The image stream ended without an {COMPLETED_EVENT!r} event"
        recording.interrupted(message)
        raise StreamInterruptedError(message)
    return result
