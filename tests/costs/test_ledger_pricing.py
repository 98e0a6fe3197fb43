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


@pytest.mark.parametrize(
    ("prices", "named"),
    [
        ({"v": {"per_second": -0.1}}, r"prices\['v'\]\['per_second'\] is -0.1; a price cannot be negative"),
        ({"v": {"per_second": float("nan")}}, r"prices\['v'\]\['per_second'\] is nan"),
        ({"v": {"per_second": {"720p": "cheap"}}}, r"prices\['v'\]\['per_second'\]\['720p'\] is 'cheap'"),
        ({"m": 0.05}, r"prices\['m'\] must be a dict of rates"),
        ([("m", {"per_song": 1})], "prices must map model ids to rates"),
        ({"": {"per_song": 1}}, "is not a model id"),
    ],
)
def test_malformed_table_is_refused_naming_the_entry(prices, named):
    """A malformed table, a negative or NaN price: a ValueError naming the entry, at construction."""
    with pytest.raises(ValueError, match=named):
        PriceTable(prices)


def test_ledger_with_a_bad_table_is_refused():
    """Ledger(prices=...) refuses the same tables before it records anything."""
    import gatewaykit as gk

    with pytest.raises(ValueError, match="per_song"):
        gk.Ledger(path=None, prices={"music-song": {"per_song": -1}})


def test_catalog_source_prices_what_the_table_does_not():
    """A catalog added as a source answers after the table; the quote names the source."""
    from gatewaykit.costs.catalog_prices import CatalogPrices

    catalog = CatalogPrices([{"id": "music-song", "pricing": {"usd_per_song": 0.06}, "parameters": {}}])
    table = PriceTable({"video-x": {"per_second": 0.1}})
    table.add_source("http://gw", catalog)
    assert table.estimate("music", "music-song") == 0.06
    assert table.quote("music", "music-song", {}).source == "catalog"
    assert table.quote("video", "video-x", {"duration": 2}).source == "price table"
    assert table.quote("music", "elsewhere", {}).total_cost is None


def test_catalog_sources_do_not_pickle():
    """A pickled table keeps the user's rates only (a client re-adds its catalog)."""
    import pickle

    from gatewaykit.costs.catalog_prices import CatalogPrices

    table = PriceTable({"m": {"per_song": 0.05}})
    table.add_source("http://gw", CatalogPrices([{"id": "x", "pricing": {"usd_per_song": 1}}]))
    copy = pickle.loads(pickle.dumps(table))
    assert copy.estimate("music", "m") == 0.05 and copy.sources == {}


def test_a_chat_quote_counts_a_picture_as_a_picture_not_its_base64_as_text() -> None:
    """An image part is IMAGE_PART_TOKENS prompt tokens (85 at detail "low"), whatever the length of its data URI;
    the text around it still counts at about 4 characters a token."""
    import base64

    from gatewaykit.costs.pricing import IMAGE_PART_TOKENS, LOW_DETAIL_IMAGE_TOKENS, prompt_token_estimate

    picture = "data:image/png;base64," + base64.b64encode(bytes(300_000)).decode()  # 400 KB of base64

    def asking(*details: str) -> list[dict]:
        parts = [{"type": "image_url", "image_url": {"url": picture, **({"detail": d} if d else {})}} for d in details]
        return [{"role": "user", "content": [{"type": "text", "text": "What is in these?"}, *parts]}]

    text_only = prompt_token_estimate(asking())
    assert 0 < text_only < 40
    assert prompt_token_estimate(asking("")) == text_only + IMAGE_PART_TOKENS
    assert prompt_token_estimate(asking("high", "low")) == text_only + IMAGE_PART_TOKENS + LOW_DETAIL_IMAGE_TOKENS
    plain = [{"role": "user", "content": "x" * 400}]
    assert prompt_token_estimate(plain) == len('[{"role": "user", "content": "' + "x" * 400 + '"}]') // 4
