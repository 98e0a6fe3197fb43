"""client.models: list, get, the cache used for checks, to_pandas."""

from __future__ import annotations

import asyncio

import pytest

import gatewaykit as gk


def test_list_is_the_keys_catalog(client: gk.Client) -> None:
    """list() returns the ModelList with the catalog ids and fills the cache."""
    models = client.models.list()
    assert "chat-mini" in models.ids and client.models.cached is models


def test_list_is_scoped_to_the_key(make_client: object, keys: object) -> None:
    """A key limited to chat-mini sees only chat-mini."""
    assert make_client(keys.chat_only).models.list().ids == ["chat-mini"]  # type: ignore[operator, attr-defined]


def test_get_returns_one_entry(client: gk.Client) -> None:
    """get(id) returns the entry with its parameters."""
    entry = client.models.get("image-tiers")
    assert entry.kind == "image" and entry.parameters["resolution"].values == ["1K", "2K", "4K"]


def test_get_unknown_raises_model_not_found(client: gk.Client) -> None:
    """get() of an id missing after a fresh fetch raises ModelNotFoundError listing the ids."""
    with pytest.raises(gk.ModelNotFoundError, match="chat-mini"):
        client.models.get("nope")


def test_to_pandas_has_one_row_per_model(client: gk.Client) -> None:
    """to_pandas() gives one row per model with its kind."""
    frame = client.models.list().to_pandas()
    assert len(frame) == len(client.models.cached) and set(frame["kind"]) == {"chat", "image", "video", "music"}


@pytest.mark.parametrize(
    ("kind", "needs", "expected"),
    [
        ("chat", (), "chat-mini"),
        ("chat", ("reasoning",), "chat-reasoner"),
        ("chat", ("vision",), "chat-vision"),
        ("image", ("width", "height"), "image-pixels"),
        ("image", ("aspect_ratio", "resolution"), "image-tiers"),
        ("image", ("aspect_ratio",), "image-aspect"),
        ("image", ("image_size",), "image-preset"),
        ("video", ("resolution", "image_to_video"), "video-tiers"),
        ("video", ("duration",), "video-range"),
        ("music", ("lyrics_prompt",), "music-song"),
    ],
)
def test_pick_returns_the_most_specific_model_that_fits(client: gk.Client, kind: str, needs: tuple,
                                                        expected: str) -> None:
    """pick(kind, needs) returns the fitting model with the fewest parameters beyond the needs."""
    assert client.models.pick(kind, needs) == expected


def test_pick_fetches_the_catalog_once(client: gk.Client) -> None:
    """pick() fills the catalog cache on first use and reuses it."""
    client.models.pick("image", ["width"])
    cached = client.models.cached
    client.models.pick("video")
    assert cached is not None and client.models.cached is cached


def test_pick_with_no_fitting_model_lists_what_the_models_accept(client: gk.Client) -> None:
    """No model accepting the needs raises ModelNotFoundError naming each model of the kind and its parameters."""
    with pytest.raises(gk.ModelNotFoundError) as caught:
        client.models.pick("video", ["width"])
    message = caught.value.message
    assert "No video model accepting width" in message
    assert "video-tiers: aspect_ratio, duration" in message and "video-range:" in message


def test_pick_of_a_kind_missing_from_the_key_names_the_kinds_it_has(make_client: object, keys: object) -> None:
    """A key limited to chat models gets an error saying it has only chat models."""
    limited = make_client(keys.chat_only)  # type: ignore[operator, attr-defined]
    with pytest.raises(gk.ModelNotFoundError, match="no image model; it has chat models"):
        limited.models.pick("image")


def test_pick_rejects_an_unknown_kind(client: gk.Client) -> None:
    """A kind outside chat/image/video/music raises ValueError listing the kinds."""
    with pytest.raises(ValueError, match="'chat', 'image', 'video', 'music'"):
        client.models.pick("audio")


def test_pick_on_an_async_client_is_awaitable(emulator: object, keys: object) -> None:
    """AsyncClient.models.pick() is awaited and gives the same choice."""

    async def run() -> str:
        async with gk.AsyncClient(api_key=keys.acme, base_url=emulator.base_url) as aclient:  # type: ignore[attr-defined]
            return await aclient.models.pick("image", ["image_size"])

    assert asyncio.run(run()) == "image-preset"


def test_an_optional_pick_with_no_fitting_model_prints_a_note_and_gives_none(
        client: gk.Client, capsys: pytest.CaptureFixture[str]) -> None:
    """pick(optional=True) answers None and prints that the part needing the model is skipped, not an error."""
    assert client.models.pick("video", ["width"], optional=True) is None
    note = capsys.readouterr().out
    assert note.startswith("This key's catalog has no video model accepting width (it has: ") and "skipped" in note
