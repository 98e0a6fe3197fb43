"""client.models: list, get, the cache used for checks, to_pandas."""

from __future__ import annotations

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
