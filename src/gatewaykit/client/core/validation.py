"""Checks made before sending, so a request the gateway would refuse fails fast and for free.

Each check raises the class the gateway would answer with (``PromptTooLongError``,
``BadRequestError`` with ``param``) and names the allowed values. Chat ranges
come from the spec; image, video and music checks come from the model's
catalog entry. A model missing from the (possibly stale) catalog is not
checked: the gateway answers for it. ``validate=False`` on the client or on a
call turns every check off.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from gatewaykit.errors import BadRequestError, PromptTooLongError
from gatewaykit.types import Model

__all__ = ["check_chat", "check_image", "check_music", "check_video"]

_CHAT_RANGES = {
    "temperature": (0.0, 2.0),
    "top_p": (0.0, 1.0),
    "frequency_penalty": (-2.0, 2.0),
    "presence_penalty": (-2.0, 2.0),
    "top_logprobs": (0, 20),
}
_IMAGE_N = (1, 4)
_LYRICS = (10, 3000)


def _bad(message: str, param: str) -> BadRequestError:
    return BadRequestError(message, status=400, code="invalid_value", param=param)


def _check_range(name: str, value: Any, low: float, high: float, model: Optional[str] = None) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(f"{name} must be a number from {low} to {high} (got {value!r})", name)
    if not low <= value <= high:
        where = f" for model {model!r}" if model else ""
        raise _bad(f"{name} must be from {low} to {high}{where} (got {value!r})", name)


def check_chat(body: Mapping[str, Any]) -> None:
    """The spec's chat limits: temperature, top_p, penalties, top_logprobs, up to 4 stop sequences, n >= 1."""
    for name, (low, high) in _CHAT_RANGES.items():
        value = body.get(name)
        if value is not None:
            _check_range(name, value, low, high)
    stop = body.get("stop")
    if isinstance(stop, (list, tuple)) and len(stop) > 4:
        raise _bad(f"stop takes up to 4 sequences (got {len(stop)})", "stop")
    n = body.get("n")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise _bad(f"n must be a positive integer (got {n!r})", "n")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _bad("messages must be a non-empty list of messages", "messages")


def _check_prompt(entry: Model, prompt: Any) -> None:
    if not isinstance(prompt, str):
        raise _bad(f"prompt must be a string (got {type(prompt).__name__})", "prompt")
    limit = entry.prompt_max_length
    if limit is not None and len(prompt) > limit:
        raise PromptTooLongError(
            f"The prompt is {len(prompt):,} characters; model {entry.id!r} accepts at most {limit:,}",
            status=400,
            param="prompt",
        )


def _check_parameters(entry: Model, body: Mapping[str, Any], skip: tuple[str, ...] = ()) -> None:
    """Every request field the model's ``parameters`` map describes: enum values and ranges."""
    for name, spec in (entry.parameters or {}).items():
        if name in skip:
            continue
        value = body.get(name)
        if value is None:
            continue
        extra = spec.__pydantic_extra__ or {}
        low, high = extra.get("min"), extra.get("max")
        if spec.values:
            if value not in spec.values:
                allowed = ", ".join(repr(v) for v in spec.values)
                raise _bad(f"{name}={value!r} is not offered by model {entry.id!r}; allowed: {allowed}", name)
        elif low is not None and high is not None:
            _check_range(name, value, low, high, entry.id)
            step = extra.get("step")
            if isinstance(step, int) and step > 1 and (value - low) % step:
                raise _bad(
                    f"{name} must be a multiple of {step} from {low} to {high} for model {entry.id!r} (got {value!r})", name
                )
        elif spec.type == "string" and isinstance(value, str):
            shortest, longest = extra.get("min_length"), extra.get("max_length")
            if (shortest is not None and len(value) < shortest) or (longest is not None and len(value) > longest):
                raise _bad(f"{name} must be {shortest} to {longest} characters (got {len(value)})", name)


def _check_n(entry: Model, body: Mapping[str, Any]) -> None:
    n = body.get("n")
    if n is None:
        return
    spec = (entry.parameters or {}).get("n")
    if spec is not None and spec.values:
        return  # checked with the other parameters
    extra = (spec.__pydantic_extra__ or {}) if spec is not None else {}
    high = extra.get("max", _IMAGE_N[1])
    if isinstance(n, bool) or not isinstance(n, int) or not _IMAGE_N[0] <= n <= high:
        raise _bad(f"n must be from 1 to {high} for model {entry.id!r} (got {n!r})", "n")


def check_image(entry: Model, body: Mapping[str, Any], *, reference_images: Optional[int] = None) -> None:
    """Prompt length, parameter values, ``n``, and for edits the reference-image count."""
    _check_prompt(entry, body.get("prompt"))
    _check_parameters(entry, body)
    _check_n(entry, body)
    if reference_images is None:
        return
    edit = entry.edit
    if edit is not None and not edit.supported:
        raise _bad(f"Model {entry.id!r} does not support image edits", "image")
    if reference_images < 1:
        raise _bad("An edit needs at least one input image", "image")
    if edit is not None and edit.max_reference_images and reference_images > edit.max_reference_images:
        raise _bad(
            f"Model {entry.id!r} accepts at most {edit.max_reference_images} reference images "
            f"(got {reference_images})",
            "image",
        )


def check_video(entry: Model, body: Mapping[str, Any]) -> None:
    """Prompt length, parameter values, and image-to-video only on models that take an image."""
    _check_prompt(entry, body.get("prompt"))
    if body.get("input_reference") is not None and "image" not in entry.input_modalities:
        takes_images = "a model whose input_modalities include 'image'"
        raise _bad(
            f"Model {entry.id!r} does not support image-to-video; leave out input_reference or use {takes_images}",
            "input_reference",
        )
    _check_parameters(entry, body)


def check_music(entry: Model, body: Mapping[str, Any]) -> None:
    """Style prompt length, parameter values, and lyrics (required by some models, 10 to 3000 characters)."""
    _check_prompt(entry, body.get("prompt"))
    _check_parameters(entry, body, skip=("lyrics_prompt", "prompt"))
    lyrics = body.get("lyrics_prompt")
    spec = (entry.parameters or {}).get("lyrics_prompt")
    required = bool(spec is not None and (spec.__pydantic_extra__ or {}).get("required"))
    if lyrics is None:
        if required:
            raise _bad(f"Model {entry.id!r} requires lyrics_prompt (10 to 3000 characters)", "lyrics_prompt")
        return
    low, high = _LYRICS
    if spec is not None:
        extra = spec.__pydantic_extra__ or {}
        low = extra.get("min_length", extra.get("min", low))
        high = extra.get("max_length", extra.get("max", high))
    if not isinstance(lyrics, str) or not low <= len(lyrics) <= high:
        length = len(lyrics) if isinstance(lyrics, str) else type(lyrics).__name__
        raise _bad(f"lyrics_prompt must be {low} to {high} characters (got {length})", "lyrics_prompt")
