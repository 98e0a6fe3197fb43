"""The user's price table, for what the gateway bills without reporting an amount."""

from __future__ import annotations

import pytest

from gatewaykit.costs import PriceTable


def test_video_per_second_by_resolution():
    """per_second may map resolutions to rates."""
    table = PriceTable({"video-tiers": {"per_second": {"480p": 0.05, "1080p": 0.2}}})
    assert table.estimate("video", "video-tiers", params={"resolution": "1080p"}, seconds=4) == pytest.approx(0.8)
    assert table.estimate("video", "video-tiers", params={"resolution": "720p"}, seconds=4) is None


def test_video_audio_rate():
    """generate_audio switches to per_second_audio."""
    table = PriceTable({"v": {"per_second": 0.1, "per_second_audio": 0.15}})
    assert table.estimate("video", "v", params={"generate_audio": True}, seconds=4) == pytest.approx(0.6)
    assert table.estimate("video", "v", params={"generate_audio": False}, seconds=4) == pytest.approx(0.4)


def test_video_length_from_request_or_default():
    """A video with no seconds yet is priced by its requested duration, else default_seconds."""
    table = PriceTable({"v": {"per_second": 0.1, "default_seconds": 6}})
    assert table.estimate("video", "v", params={"duration": 2}) == pytest.approx(0.2)
    assert table.estimate("video", "v", params={}) == pytest.approx(0.6)


def test_music_images_and_chat():
    """per_song, per_image (times n) and per-million-token rates."""
    table = PriceTable(
        {"m": {"per_song": 0.05}, "i": {"per_image": 0.04}, "c": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}
    )
    assert table.estimate("music", "m") == 0.05
    assert table.estimate("image.generate", "i", params={"n": 3}) == pytest.approx(0.12)
    assert table.estimate("chat", "c", prompt_tokens=1_000_000, completion_tokens=500_000) == pytest.approx(2.0)


def test_wildcard_model_and_per_request():
    """'*' prices models not listed; per_request adds a flat amount."""
    table = PriceTable({"*": {"per_request": 0.01}})
    assert table.estimate("chat", "anything") == 0.01


def test_unpriced_model_is_none():
    """A model missing from the table cannot be estimated."""
    assert PriceTable({"m": {"per_song": 0.05}}).estimate("music", "other") is None


def test_unknown_rate_name_is_refused():
    """A misspelt rate is a ValueError naming the known ones."""
    with pytest.raises(ValueError, match="per_secnd"):
        PriceTable({"v": {"per_secnd": 0.1}})


def test_chat_request_estimate_uses_characters_and_max_tokens():
    """Before sending, a chat is priced from a quarter of its characters and max_tokens."""
    table = PriceTable({"c": {"input_per_mtok": 1e6, "output_per_mtok": 1e6}})
    request = {"messages": [{"role": "user", "content": "x" * 400}], "max_tokens": 10}
    estimate = table.estimate_request("chat", "c", request)
    assert 100 + 10 <= estimate <= 130 + 10
