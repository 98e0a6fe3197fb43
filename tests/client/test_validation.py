"""Checks before sending: the gateway's error class, the allowed values, and nothing sent."""

from __future__ import annotations

from typing import Any

import pytest

import gatewaykit as gk

from .conftest import RecordingLedger, user


@pytest.mark.parametrize(
    ("field", "value"),
    [("temperature", 2.5), ("top_p", 1.5), ("frequency_penalty", -3), ("presence_penalty", 3), ("top_logprobs", 21), ("stop", ["a", "b", "c", "d", "e"])],
)
def test_chat_ranges(client: gk.Client, sink: RecordingLedger, field: str, value: Any) -> None:
    """Out-of-range chat fields raise BadRequestError naming the param; nothing is sent or recorded."""
    with pytest.raises(gk.BadRequestError) as caught:
        client.chat.completions.create(model="chat-mini", messages=user("Hi"), **{field: value})
    assert caught.value.param == field
    assert sink.records == [] and sink.budget_checks == []


def test_image_prompt_too_long(client: gk.Client, sink: RecordingLedger) -> None:
    """An image prompt over the model's prompt_max_length raises PromptTooLongError before sending."""
    with pytest.raises(gk.PromptTooLongError, match="8,000"):
        client.images.generate(model="image-aspect", prompt="x" * 8_001)
    assert sink.records == []


def test_enum_value_lists_the_allowed_values(client: gk.Client) -> None:
    """A resolution the model does not offer names the offered ones."""
    with pytest.raises(gk.BadRequestError, match="'1K', '2K', '4K'") as caught:
        client.images.generate(model="image-tiers", prompt="a fox", resolution="8K")
    assert caught.value.param == "resolution"


def test_n_beyond_the_model(client: gk.Client) -> None:
    """n=2 on a one-image model is refused locally."""
    with pytest.raises(gk.BadRequestError) as caught:
        client.images.generate(model="image-aspect", prompt="a fox", n=2)
    assert caught.value.param == "n"


def test_too_many_reference_images(client: gk.Client) -> None:
    """More reference images than the model's max_reference_images is refused locally."""
    with pytest.raises(gk.BadRequestError, match="at most 1 reference"):
        client.images.edit(model="image-aspect", prompt="make it blue", image=[PNG, PNG])


def test_video_duration_range(client: gk.Client) -> None:
    """A duration outside the model's range is refused with the range."""
    with pytest.raises(gk.BadRequestError, match="2 to 12"):
        client.videos.create(model="video-range", prompt="waves", duration=30)


def test_music_lyrics_length(client: gk.Client) -> None:
    """Lyrics shorter than 10 characters are refused; a style prompt over 300 is too long."""
    with pytest.raises(gk.BadRequestError) as caught:
        client.music.create(model="music-song", prompt="jazz", lyrics_prompt="la")
    assert caught.value.param == "lyrics_prompt"
    with pytest.raises(gk.PromptTooLongError):
        client.music.create(model="music-song", prompt="j" * 301, lyrics_prompt="[Verse]\nla la la la")


def test_music_lyrics_required(client: gk.Client) -> None:
    """The launch music model requires lyrics_prompt."""
    with pytest.raises(gk.BadRequestError, match="requires lyrics_prompt"):
        client.music.create(model="music-song", prompt="jazz")


def test_validate_false_lets_the_gateway_answer(client: gk.Client, sink: RecordingLedger) -> None:
    """validate=False sends the request: the gateway's own 400 comes back and is recorded."""
    with pytest.raises(gk.BadRequestError):
        client.images.generate(model="image-tiers", prompt="a fox", resolution="8K", validate=False)
    assert [r.http_status for r in sink.records] == [400]


def test_unknown_model_is_left_to_the_gateway(client: gk.Client) -> None:
    """A model missing from the cached catalog is not refused locally: the gateway's error comes back."""
    with pytest.raises(gk.ModelNotFoundError) as caught:
        client.images.generate(model="image-next", prompt="a fox")
    assert caught.value.status == 400


def _png() -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="PNG")
    return buffer.getvalue()


PNG = _png()


def test_image_to_video_on_a_text_only_model(client: gk.Client, sink: RecordingLedger) -> None:
    """input_reference on a model without image input fails locally, naming the field; nothing is sent."""
    with pytest.raises(gk.BadRequestError, match="image-to-video") as caught:
        client.videos.create(model="video-range", prompt="waves", input_reference="data:image/png;base64,AAAA")
    assert caught.value.param == "input_reference"
    assert sink.records == []
