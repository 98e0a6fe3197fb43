"""The playground's form as data: every offline-catalog model's entry → field specs → a valid request."""

from __future__ import annotations

import pytest

from gatewaykit.emulator.catalog import CATALOG
from gatewaykit.errors import BadRequestError, PromptTooLongError
from gatewaykit.notebook.widgets.playground_fields import (
    SLIDER_MAX_STOPS,
    build_request,
    check_request,
    fields_for,
    length_text,
    models_by_kind,
    skipped_parameters,
)
from gatewaykit.types import Model

MODELS = {model_id: Model.model_validate(spec.entry) for model_id, spec in CATALOG.items()}
MEDIA = [model_id for model_id, model in MODELS.items() if model.kind != "chat"]
LYRICS = "[Verse]\nsmall lights on the water\n[Chorus]\nhome again"


def defaults(model: Model, prompt: str = "a red fox in snow") -> dict:
    values = {field.name: field.default for field in fields_for(model)}
    values["prompt"] = prompt
    if "lyrics_prompt" in values:
        values["lyrics_prompt"] = LYRICS
    return values


@pytest.mark.parametrize("model_id", list(MODELS))
def test_prompt_comes_first_with_the_model_limit(model_id: str) -> None:
    """The first field is the prompt text area, limited to the entry's prompt_max_length."""
    model = MODELS[model_id]
    first = fields_for(model)[0]
    assert (first.name, first.widget, first.max_length) == ("prompt", "textarea", model.prompt_max_length)


@pytest.mark.parametrize("model_id", MEDIA)
def test_every_parameter_gets_the_widget_of_its_type(model_id: str) -> None:
    """enum → dropdown, boolean → checkbox, range → slider, string → text area; the rest is listed as skipped."""
    model = MODELS[model_id]
    by_name = {field.name: field for field in fields_for(model)}
    expected = {"enum": "dropdown", "boolean": "checkbox", "range": "int_slider", "string": "textarea"}
    for name, spec in (model.parameters or {}).items():
        if spec.type in expected:
            assert by_name[name].widget == expected[spec.type], name
        else:
            assert name not in by_name and name in skipped_parameters(model)


@pytest.mark.parametrize("model_id", MEDIA)
def test_field_defaults_and_limits_are_the_catalog_ones(model_id: str) -> None:
    """Each field starts at the catalog default and offers exactly its values or its min/max/step."""
    model = MODELS[model_id]
    for field in fields_for(model)[1:]:
        spec = model.parameters[field.name]
        extra = spec.__pydantic_extra__ or {}
        if field.widget == "dropdown":
            assert (list(field.options), field.default) == (spec.values, spec.default)
        elif field.widget == "int_slider":
            assert (field.low, field.high, field.step, field.default) == (extra["min"], extra["max"], extra.get("step", 1), spec.default)
        elif field.widget == "textarea":
            assert (field.min_length, field.max_length, field.required) == (extra["min_length"], extra["max_length"], True)
        else:
            assert field.default is spec.default


@pytest.mark.parametrize("model_id", list(MODELS))
def test_form_defaults_are_a_valid_request(model_id: str) -> None:
    """The untouched form (plus a prompt, and lyrics where required) passes the client's pre-send checks."""
    model = MODELS[model_id]
    request = build_request(model, defaults(model))
    check_request(model, request)
    assert request["model"] == model_id


def test_chat_form_builds_messages() -> None:
    """A chat form sends the system and user prompts as messages, and the temperature as is."""
    model = MODELS["chat-mini"]
    request = build_request(model, {"prompt": "hi", "system": "be brief", "temperature": 0.5})
    assert request == {"model": "chat-mini", "temperature": 0.5,
                       "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}


def test_blank_optional_text_is_left_out() -> None:
    """An empty lyrics box sends no lyrics_prompt (so the client's 'requires lyrics' check speaks)."""
    model = MODELS["music-song"]
    request = build_request(model, {**defaults(model), "lyrics_prompt": ""})
    assert "lyrics_prompt" not in request
    with pytest.raises(BadRequestError, match="requires lyrics_prompt") as caught:
        check_request(model, request)
    assert caught.value.param == "lyrics_prompt"


def test_prompt_over_the_limit_is_refused_by_the_client_check() -> None:
    """A prompt longer than prompt_max_length raises the client's PromptTooLongError."""
    model = MODELS["image-aspect"]
    with pytest.raises(PromptTooLongError, match="8,000"):
        check_request(model, build_request(model, defaults(model, "x" * 8_001)))


def test_blank_prompt_is_refused() -> None:
    """Running with only spaces in the prompt names the prompt field."""
    model = MODELS["video-range"]
    with pytest.raises(BadRequestError, match="prompt") as caught:
        check_request(model, build_request(model, defaults(model, "   ")))
    assert caught.value.param == "prompt"


def test_wide_range_gets_a_bounded_box() -> None:
    """A range with more stops than a slider handles gets a bounded number box."""
    entry = {"id": "m", "output_modalities": ["image"],
             "parameters": {"seed": {"type": "range", "min": 0, "max": SLIDER_MAX_STOPS * 10, "default": 0}}}
    (seed,) = [field for field in fields_for(Model.model_validate(entry)) if field.name == "seed"]
    assert (seed.widget, seed.low, seed.high) == ("bounded_int", 0, SLIDER_MAX_STOPS * 10)


def test_models_are_grouped_by_kind_in_order() -> None:
    """The kind picker lists chat, image, video, music, each with its catalog models."""
    grouped = models_by_kind(MODELS.values())
    assert list(grouped) == ["chat", "image", "video", "music"]
    assert grouped["video"] == ["video-tiers", "video-range"] and grouped["music"] == ["music-song"]


def test_length_text_counts_against_the_limit() -> None:
    """The live counter reads '120 / 8,000' (or a plain count without a limit)."""
    assert length_text("x" * 120, 8000) == "120 / 8,000"
    assert length_text("abc", None) == "3 characters"
