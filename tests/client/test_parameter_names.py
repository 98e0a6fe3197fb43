"""Unknown keywords: a warning naming the closest valid name, or an error on a strict client."""

from __future__ import annotations

import asyncio
import io
import warnings
from typing import Any

import pytest
from PIL import Image

import gatewaykit as gk

from .conftest import FAST_RETRIES, RecordingLedger, user


@pytest.fixture
def aclient_options(emulator: Any, keys: Any, sink: RecordingLedger) -> dict[str, Any]:
    return {"api_key": keys.acme, "base_url": emulator.base_url, "ledger": sink, "retry_policy": FAST_RETRIES}


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 120, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_misspelled_image_width_warns_with_the_closest_name(client: gk.Client, sink: RecordingLedger) -> None:
    """widht=512 on an image model warns UnknownParameterWarning naming width=, and the call goes on."""
    with pytest.warns(gk.UnknownParameterWarning, match=r"widht=.*did you mean width=\?") as caught:
        result = client.images.generate(model="image-pixels", prompt="a cat", widht=512)
    assert len(result.data) == 1 and [r.kind for r in sink.records] == ["image.generate"]
    assert caught[0].filename == __file__  # points at this line, not at gatewaykit


def test_misspelled_video_duration_warns(client: gk.Client) -> None:
    """durration=4 on a video model names duration=."""
    with pytest.warns(gk.UnknownParameterWarning, match=r"durration=.*did you mean duration=\?"):
        client.videos.create(model="video-range", prompt="waves", durration=4)


def test_chat_keyword_with_no_close_name_still_warns(client: gk.Client) -> None:
    """colour= on a chat model warns (no suggestion is invented) and the answer arrives."""
    with pytest.warns(gk.UnknownParameterWarning, match=r"colour= for model 'chat-mini'; the request is sent anyway") as caught:
        answer = client.chat.completions.create(model="chat-mini", messages=user("Hi"), colour="red")
    assert answer.content and "did you mean" not in str(caught[0].message)


def test_edit_and_music_warn(client: gk.Client) -> None:
    """images.edit and music.create check their keywords too."""
    with pytest.warns(gk.UnknownParameterWarning, match=r"images\.edit\(\) got an unknown keyword qualty="):
        client.images.edit(model="image-gpt", prompt="add a hat", image=png(), qualty="low")
    with pytest.warns(gk.UnknownParameterWarning, match=r"did you mean sample_rate=\?"):
        client.music.create(model="music-song", prompt="folk", lyrics_prompt="[Verse]\nla la la la la", samplerate=44100)


def test_extended_chat_fields_and_extra_body_are_never_warned(client: gk.Client) -> None:
    """Known extended chat fields and anything in extra_body= go out without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client.chat.completions.create(model="chat-mini", messages=user("Hi"), verbosity="low", store=False)
        client.images.generate(model="image-pixels", prompt="a cat", extra_body={"widht": 512})


def test_strict_client_raises_before_sending(make_client: Any, keys: Any, sink: RecordingLedger) -> None:
    """Client(strict=True): an unknown keyword raises BadRequestError naming it; nothing is sent."""
    strict = make_client(keys.acme, strict=True)
    with pytest.raises(gk.BadRequestError, match=r"did you mean width=\?.*nothing was sent") as caught:
        strict.images.generate(model="image-pixels", prompt="a cat", widht=512)
    assert caught.value.param == "widht" and caught.value.code == "unknown_parameter"
    assert sink.records == [] and sink.budget_checks == []


def test_validate_false_skips_the_check(client: gk.Client) -> None:
    """validate=False turns the keyword check off with the other checks."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client.images.generate(model="image-pixels", prompt="a cat", widht=512, validate=False)


def test_async_client_warns_at_the_awaiting_line(aclient_options: dict[str, Any]) -> None:
    """AsyncClient: the warning points at the user's awaiting line."""

    async def run() -> None:
        async with gk.AsyncClient(**aclient_options) as client:
            await client.videos.create(model="video-range", prompt="waves", durration=4)

    with pytest.warns(gk.UnknownParameterWarning, match="durration") as caught:
        asyncio.run(run())
    assert caught[0].filename == __file__


def test_async_strict_client_raises(aclient_options: dict[str, Any], sink: RecordingLedger) -> None:
    """AsyncClient(strict=True) raises before sending, like the sync client."""

    async def run() -> None:
        async with gk.AsyncClient(strict=True, **aclient_options) as client:
            await client.chat.completions.create(model="chat-mini", messages=user("Hi"), tempreature=0.2)

    with pytest.raises(gk.BadRequestError, match=r"did you mean temperature=\?"):
        asyncio.run(run())
    assert sink.records == []


def test_the_warning_names_the_call_as_written(client: gk.Client) -> None:
    """client.chat.ask(temprature=...) is named client.chat.ask(), the call on the user's line."""
    with pytest.warns(gk.UnknownParameterWarning, match=r"^client\.chat\.ask\(\) got an unknown keyword temprature="):
        client.chat.ask("hello", model="chat-mini", temprature=0.2)
