"""``client.images``: ``generate`` (JSON) and ``edit`` (multipart ``image[]`` parts).

With ``stream=True`` the gateway sends keepalive comments while it works and
one terminal ``image_generation.completed`` event; the call still returns one
:class:`ImageResult` (streaming only keeps slow generations alive).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional, cast

from typing_extensions import Unpack

from gatewaykit.client.awaitable_surface import awaitable_method
from gatewaykit.client.base import BaseClient
from gatewaykit.client.flows import Flow, ReadEvents
from gatewaykit.client.media_inputs import to_upload
from gatewaykit.client.recording import Recording
from gatewaykit.client.api_request import ApiRequest, RequestOptions, call_options, encode_json, merge_body
from gatewaykit.client.sse import ServerSentEvent
from gatewaykit.client.streaming import error_in_stream
from gatewaykit.client.parameter_names import KeywordCheck, check_keywords, keyword_check
from gatewaykit.client.validation import check_image
from gatewaykit.errors import APIConnectionError, GatewayError, StreamInterruptedError
from gatewaykit.types import ImageResult
from gatewaykit.client.transports.response_decoding import read_model, unexpected_response, why_unusable

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


def _form_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


class Images:
    """``POST /v1/images/generations`` and ``POST /v1/images/edits``."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

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
        call = call_options(options)
        body = merge_body(fields, call.passthrough, call.extra_body)
        checked = self._client._checks_on(call.validate)
        keywords = keyword_check("images.generate", fields, call.passthrough)
        flow = self._flow("image.generate", body, None, call.extra_headers, call.timeout, checked, keywords)
        return cast(ImageResult, self._client._run(flow))

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
        call = call_options(options)
        body = merge_body(fields, call.passthrough, call.extra_body)
        checked = self._client._checks_on(call.validate)
        keywords = keyword_check("images.edit", (*fields, "image"), call.passthrough)
        flow = self._flow("image.edit", body, uploads, call.extra_headers, call.timeout, checked, keywords)
        return cast(ImageResult, self._client._run(flow))

    def _flow(
        self,
        kind: str,
        body: dict[str, Any],
        uploads: Optional[list[tuple[str, bytes, str]]],
        extra_headers: Any,
        timeout: Any,
        checked: bool,
        keywords: Optional[KeywordCheck] = None,
    ) -> Flow[ImageResult]:
        client = self._client
        if checked:
            entry = yield from client._catalog_entry(body.get("model"))
            if entry is not None:
                yield from check_keywords(client, entry.id, keywords, entry)
                check_image(entry, body, reference_images=len(uploads) if uploads is not None else None)
        stream = bool(body.get("stream"))
        path = "/v1/images/edits" if uploads is not None else "/v1/images/generations"
        if uploads is None:
            request = ApiRequest("POST", path, content=encode_json(body), headers=extra_headers, timeout=timeout, stream=stream)
        else:
            encode_json(body)  # the same refusals as a JSON body (NaN, lone surrogates), naming the field
            request = ApiRequest(
                "POST",
                path,
                data={key: _form_value(value) for key, value in body.items()},
                files=[("image[]", upload) for upload in uploads],
                headers=extra_headers,
                timeout=timeout,
                stream=stream,
            )
        recording = client._recording(kind, body.get("model"), body)
        response = yield from client._billable_send(request, recording)
        if stream:
            result = yield from _read_stream(response, recording)
        else:
            result = read_model(ImageResult, response, recording=recording)
        recording.ok(usage=result.usage, images=len(result.data))
        return result


class AsyncImages(Images):
    """``aclient.images``: the same calls, awaitable."""

    if TYPE_CHECKING:
        generate = awaitable_method(Images.generate)  # type: ignore[assignment]
        edit = awaitable_method(Images.edit)  # type: ignore[assignment]


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
