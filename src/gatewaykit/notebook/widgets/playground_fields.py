"""The playground's form, as data: catalog entry → field specs → request (no widgets here).

:func:`fields_for` turns a model's catalog entry into :class:`FieldSpec` s, one
per parameter the playground can edit: ``enum`` → dropdown, ``boolean`` →
checkbox, ``range`` → slider (or a bounded box when the range has more than
:data:`SLIDER_MAX_STOPS` stops), ``string`` and the prompt → text areas that
know their length limits. Chat entries carry no ``parameters``; their form is
a prompt, an optional system prompt and the spec's temperature range.
Parameters the form cannot edit (``input_reference``, an image) are listed by
:func:`skipped_parameters`. :func:`build_request` turns the form's values into
the keyword arguments of the client call and :func:`check_request` runs the
client's own pre-send checks (:mod:`gatewaykit.client.core.validation`) on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional

from gatewaykit.client.core.validation import check_chat, check_image, check_music, check_video
from gatewaykit.errors import BadRequestError
from gatewaykit.types import Model

__all__ = [
    "KINDS",
    "SLIDER_MAX_STOPS",
    "FieldSpec",
    "build_request",
    "check_request",
    "fields_for",
    "length_text",
    "models_by_kind",
    "prompt_is_blank",
    "skipped_parameters",
]

KINDS = ("chat", "image", "video", "music")
SLIDER_MAX_STOPS = 200  # a range with more stops than this gets a bounded number box, not a slider
TEXT_FIELDS = ("prompt", "lyrics_prompt", "system")  # sent only when not blank

WIDGETS = ("textarea", "dropdown", "checkbox", "int_slider", "bounded_int", "float_slider")


@dataclass(frozen=True)
class FieldSpec:
    """One form field: the request field it fills, the widget kind, and its limits."""

    name: str
    label: str
    widget: str  # one of WIDGETS
    default: Any = None
    options: tuple = ()
    low: Optional[float] = None
    high: Optional[float] = None
    step: Optional[float] = None
    min_length: Optional[int] = None
    max_length: Optional[int] = None
    required: bool = False


def models_by_kind(models: Iterable[Model]) -> dict[str, list[str]]:
    """Model ids grouped by kind, in :data:`KINDS` order; kinds without models are left out."""
    grouped: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for model in models:
        grouped.setdefault(model.kind, []).append(model.id)
    return {kind: ids for kind, ids in grouped.items() if ids}


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _parameter_field(name: str, spec: Any) -> Optional[FieldSpec]:
    extra = spec.__pydantic_extra__ or {}
    low, high = extra.get("min"), extra.get("max")
    if spec.type == "boolean":
        return FieldSpec(name, _label(name), "checkbox", default=bool(spec.default))
    if spec.values:
        default = spec.default if spec.default in spec.values else spec.values[0]
        return FieldSpec(name, _label(name), "dropdown", default=default, options=tuple(spec.values))
    if low is not None and high is not None:
        step = extra.get("step") or 1
        stops = (high - low) // step + 1
        widget = "int_slider" if stops <= SLIDER_MAX_STOPS else "bounded_int"
        default = spec.default if spec.default is not None else low
        return FieldSpec(name, _label(name), widget, default=default, low=low, high=high, step=step)
    if spec.type == "string":
        return FieldSpec(
            name, _label(name), "textarea", default=spec.default or "",
            min_length=extra.get("min_length"), max_length=extra.get("max_length"),
            required=bool(extra.get("required")),
        )  # fmt: skip
    return None


def _chat_fields() -> list[FieldSpec]:
    return [
        FieldSpec("prompt", "Prompt", "textarea", default="", required=True),
        FieldSpec("system", "System", "textarea", default=""),
        FieldSpec("temperature", "Temperature", "float_slider", default=1.0, low=0.0, high=2.0, step=0.1),
    ]


def fields_for(model: Model) -> list[FieldSpec]:
    """The form for ``model``: the prompt first, then lyrics, then the other parameters in catalog order."""
    if model.kind == "chat":
        return _chat_fields()
    label = "Style prompt" if model.kind == "music" else "Prompt"
    fields = [FieldSpec("prompt", label, "textarea", default="", max_length=model.prompt_max_length, required=True)]
    parameters = dict(model.parameters or {})
    names = sorted(parameters, key=lambda name: name != "lyrics_prompt")  # stable: lyrics first, then catalog order
    for name in names:
        if name == "prompt":
            continue
        field = _parameter_field(name, parameters[name])
        if field is not None:
            fields.append(field)
    return fields


def skipped_parameters(model: Model) -> list[str]:
    """Parameters of ``model`` the form has no widget for (e.g. ``input_reference``, an image)."""
    return [name for name, spec in (model.parameters or {}).items() if name != "prompt" and _parameter_field(name, spec) is None]


def length_text(text: str, max_length: Optional[int]) -> str:
    """``"120 / 8,000"`` against a limit, ``"120 characters"`` without one."""
    return f"{len(text):,} / {max_length:,}" if max_length else f"{len(text):,} characters"


def build_request(model: Model, values: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of the client call for ``model`` (blank optional texts left out)."""
    fields = {name: value for name, value in values.items() if not (name in TEXT_FIELDS and name != "prompt" and not value)}
    if model.kind != "chat":
        return {"model": model.id, **fields}
    messages = []
    system = fields.pop("system", None)
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": fields.pop("prompt", "")})
    return {"model": model.id, "messages": messages, **fields}


def prompt_is_blank(model: Model, request: Mapping[str, Any]) -> bool:
    """True while the form's prompt is empty (a fresh form: nothing typed yet, nothing to send)."""
    prompt = request["messages"][-1]["content"] if model.kind == "chat" else request.get("prompt")
    return isinstance(prompt, str) and not prompt.strip()


def check_request(model: Model, request: Mapping[str, Any]) -> None:
    """The client's pre-send checks for this request; raises what the client would (BadRequestError, ...).

    A blank prompt is refused here too (BadRequestError, ``param="prompt"``): nothing to generate from.
    """
    if prompt_is_blank(model, request):
        raise BadRequestError("Write a prompt first: it is empty", status=400, code="invalid_value", param="prompt")
    if model.kind == "chat":
        check_chat(request)
    elif model.kind == "image":
        check_image(model, request)
    elif model.kind == "video":
        check_video(model, request)
    else:
        check_music(model, request)
