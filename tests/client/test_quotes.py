"""Quotes before spending and Client(confirm_over=): priced from the catalog, nothing sent unless confirmed."""

from __future__ import annotations

import asyncio
import math
import pickle
from typing import Any

import httpx
import pytest

import gatewaykit as gk

LYRICS = "[Verse]\nquote me a song\n[Chorus]\nla la la\n"


@pytest.fixture
def ledger() -> gk.Ledger:
    return gk.Ledger(path=None)


class PathSpy(httpx.HTTPTransport):
    """A real transport that remembers the method and path of every request it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        return super().handle_request(request)


@pytest.fixture
def spied(emulator: Any, keys: Any, ledger: gk.Ledger) -> Any:
    """A client with confirm_over=0.50 whose transport lists what it sent: (client, spy)."""
    spy = PathSpy()
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, confirm_over=0.50,
        http_transport=spy,
    ) as made:  # fmt: skip
        yield made, spy


@pytest.fixture
def quoting(emulator: Any, keys: Any, ledger: gk.Ledger) -> Any:
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as made:
        yield made


@pytest.fixture
def guarded(emulator: Any, keys: Any, ledger: gk.Ledger) -> Any:
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, confirm_over=0.50
    ) as made:
        yield made


def test_video_quote_prices_resolution_duration_and_audio(quoting: Any) -> None:
    """A 1080p 8 s video with audio is quoted from the catalog at 8 x $0.40, with what it assumed."""
    quote = quoting.videos.quote(model="video-tiers", prompt="x", resolution="1080p", duration=8, generate_audio=True)
    assert isinstance(quote, gk.Quote) and quote.source == "catalog"
    assert quote.total_cost == pytest.approx(3.20)
    assert dict(quote.assumptions) == {"duration": 8, "resolution": "1080p", "generate_audio": True}
    assert quote.summary.endswith("video-tiers: duration 8, resolution 1080p, generate_audio on")  # not Python's True


def test_video_quote_assumes_the_models_defaults(quoting: Any) -> None:
    """Left out, duration and audio are the catalog's defaults (video-range: 5 s with audio, $0.12/s)."""
    quote = quoting.videos.quote(model="video-range", prompt="x")
    assert quote.total_cost == pytest.approx(0.60) and quote.assumptions["duration"] == 5
    assert "≈ $0.60 est. (catalog)" in str(quote)


def test_music_and_image_quotes(quoting: Any) -> None:
    """A song is its per-song price; images multiply by n and follow size and quality."""
    assert quoting.music.quote(model="music-song", prompt="folk", lyrics_prompt=LYRICS).total_cost == 0.06
    gpt = quoting.images.quote(model="image-gpt", prompt="x", n=2, quality="high", image_size="1536x1024")
    assert gpt.total_cost == pytest.approx(2 * 0.19) and gpt.assumptions["n"] == 2
    pixels = quoting.images.quote(model="image-pixels", prompt="x", width=512, height=256)
    assert pixels.total_cost == pytest.approx(512 * 256 * 0.015 / 1e6)


def test_quote_sends_and_records_nothing(spied: Any, ledger: gk.Ledger) -> None:
    """A quote sends nothing but the one catalog read, and records nothing."""
    client, spy = spied
    client.videos.quote(model="video-tiers", prompt="x", duration=8)
    client.music.quote(model="music-song", prompt="folk", lyrics_prompt=LYRICS)
    assert spy.sent == ["GET /v1/models"] and len(ledger) == 0


def test_quote_of_an_unknown_model_names_it(quoting: Any, ledger: gk.Ledger) -> None:
    """An unknown model is a ModelNotFoundError (the catalog checks' class) naming it and the closest id."""
    with pytest.raises(gk.ModelNotFoundError, match="'video-tierz'.*did you mean 'video-tiers'"):
        quoting.videos.quote(model="video-tierz", prompt="x")
    assert len(ledger) == 0


def test_quote_of_an_unoffered_value_names_it(quoting: Any) -> None:
    """A resolution the model does not offer is the catalog check's BadRequestError naming the values."""
    with pytest.raises(gk.BadRequestError, match="resolution='4k'.*'1080p'") as caught:
        quoting.videos.quote(model="video-tiers", prompt="x", resolution="4k")
    assert caught.value.param == "resolution"


def test_price_table_quote_is_labelled(emulator: Any, keys: Any) -> None:
    """With a price table for the model, the quote's source is 'price table'."""
    ledger = gk.Ledger(path=None, prices={"video-tiers": {"per_second": 1.0}})
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        quote = client.videos.quote(model="video-tiers", prompt="x", duration=6)
    assert (quote.total_cost, quote.source) == (6.0, "price table")


def test_async_quote(emulator: Any, keys: Any) -> None:
    """AsyncClient's quote has the same name and answer, awaited."""

    async def main() -> gk.Quote:
        async with gk.AsyncClient(api_key=keys.acme, base_url=emulator.base_url, display=False) as client:
            return await client.videos.quote(model="video-tiers", prompt="x", duration=4, resolution="480p")

    assert asyncio.run(main()).total_cost == pytest.approx(0.20)


def test_over_the_threshold_outside_a_kernel_raises(spied: Any, ledger: gk.Ledger) -> None:
    """Quoted over confirm_over with no one to ask: ConfirmationRequiredError naming confirm=True, nothing sent."""
    client, spy = spied
    with pytest.raises(gk.ConfirmationRequiredError, match=r"confirm=True") as caught:
        client.videos.create(model="video-tiers", prompt="x", resolution="1080p", duration=8)
    assert caught.value.quote.total_cost == pytest.approx(2.0) and isinstance(caught.value, gk.GatewayError)
    assert spy.sent == ["GET /v1/models"] and len(ledger) == 0


def test_confirm_true_sends(guarded: Any, ledger: gk.Ledger) -> None:
    """confirm=True skips the question: the job is created and recorded."""
    job = guarded.videos.create(model="video-tiers", prompt="x", resolution="1080p", duration=8, confirm=True)
    assert job.id and len(ledger) == 1


def test_under_the_threshold_is_sent_without_asking(guarded: Any, ledger: gk.Ledger) -> None:
    """A request quoted under confirm_over goes straight through (chats and images too)."""
    guarded.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS)
    guarded.images.generate(model="image-pixels", prompt="x", width=256, height=256)
    guarded.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
    assert len(ledger) == 3


def test_map_asks_once_for_the_whole_batch(guarded: Any, ledger: gk.Ledger) -> None:
    """Three $0.20 videos: none over $0.50 alone, the batch is: one error for the batch, nothing sent."""

    def make(duration: int) -> Any:
        return guarded.videos.create(model="video-tiers", prompt="x", resolution="480p", duration=duration)

    with pytest.raises(gk.ConfirmationRequiredError, match="3 requests") as caught:
        guarded.map(make, [4, 4, 4])
    assert caught.value.quote.total_cost == pytest.approx(0.60) and len(ledger) == 0
    result = guarded.map(make, [4, 4, 4], confirm=True)
    assert not result.errors and len(ledger) == 3


def test_async_batch_asks_once(emulator: Any, keys: Any) -> None:
    """AsyncClient.batch quotes the whole batch too; confirm=True runs it."""
    ledger = gk.Ledger(path=None)

    async def main() -> Any:
        async with gk.AsyncClient(
            api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, confirm_over=0.5
        ) as client:
            calls = [lambda: client.videos.create(model="video-tiers", prompt="x", duration=4) for _ in range(2)]
            with pytest.raises(gk.ConfirmationRequiredError):
                await client.batch(calls)
            assert len(ledger) == 0
            return await client.batch(calls, confirm=True)

    assert len(asyncio.run(main())) == 2 and len(ledger) == 2


def test_confirm_over_survives_pickling(emulator: Any, keys: Any) -> None:
    """A pickled Client(confirm_over=...) still asks after unpickling."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, confirm_over=0.25, display=False) as client:
        copy = pickle.loads(pickle.dumps(client))
    with copy:
        assert copy._confirm_over == 0.25
        with pytest.raises(gk.ConfirmationRequiredError):
            copy.videos.create(model="video-tiers", prompt="x", duration=4)


@pytest.mark.parametrize("bad", [-1, math.nan, "0.5", True])
def test_bad_confirm_over_is_refused(bad: Any) -> None:
    """confirm_over must be a non-negative number of USD."""
    with pytest.raises(ValueError, match="confirm_over"):
        gk.Client(offline=True, confirm_over=bad, display=False)


def test_table_entry_for_an_unknown_model_warns_naming_it(emulator: Any, keys: Any) -> None:
    """A price table entry naming no catalog model gives PriceTableWarning naming it and the closest id."""
    ledger = gk.Ledger(path=None, prices={"video-tierz": {"per_second": 1.0}})
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        with pytest.warns(gk.costs.PriceTableWarning, match="'video-tierz'.*did you mean 'video-tiers'"):
            client.models.list()


def test_strict_client_refuses_a_table_entry_for_an_unknown_model(emulator: Any, keys: Any) -> None:
    """With strict=True that entry is a ValueError before the first paid request: nothing sent or recorded."""
    ledger = gk.Ledger(path=None, prices={"music-sng": {"per_song": 1.0}})
    spy = PathSpy()
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, strict=True, http_transport=spy
    ) as client:
        with pytest.raises(ValueError, match="'music-sng'"):
            client.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS)
    assert spy.sent == ["GET /v1/models"] and len(ledger) == 0


def test_image_quote_with_references_is_an_edit_quote(quoting: Any) -> None:
    """images.quote(image=...) quotes the edit and checks the reference count as edit would."""
    from PIL import Image

    picture = Image.new("RGB", (32, 32), (10, 120, 60))
    quote = quoting.images.quote(model="image-aspect", prompt="bluer", image=picture)
    assert (quote.kind, quote.total_cost) == ("image.edit", pytest.approx(0.03))
    with pytest.raises(gk.BadRequestError, match="at most 1 reference") as caught:
        quoting.images.quote(model="image-aspect", prompt="bluer", image=[picture, picture])
    assert caught.value.param == "image"


def test_a_long_chat_over_the_threshold_asks(emulator: Any, keys: Any, ledger: gk.Ledger) -> None:
    """A chat is quoted from its messages and max_tokens: a huge prompt on a $0.0001 threshold asks."""
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, confirm_over=0.0001
    ) as client:
        with pytest.raises(gk.ConfirmationRequiredError, match="chat-mini"):
            client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "word " * 4000}],
                                           max_tokens=20)
        client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}], max_tokens=20)
    assert len(ledger) == 1


def test_a_chat_without_max_tokens_is_quoted_at_the_model_s_longest_answer(emulator: Any, keys: Any,
                                                                          ledger: gk.Ledger) -> None:
    """No max_tokens: the quote assumes the catalog's max_output_tokens, says so, and asks; nothing is sent."""
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, confirm_over=0.01
    ) as client:
        with pytest.raises(gk.ConfirmationRequiredError) as raised:
            client.chat.completions.create(model="chat-reasoner", messages=[{"role": "user", "content": "hi"}])
    quote = raised.value.quote
    assert quote.assumptions["max_tokens"] == "unset, assumed 4096 (the model's max_output_tokens)"
    assert quote.total_cost is not None and quote.total_cost >= 4096 * 4.4 / 1e6
    assert "assumed 4096" in str(raised.value) and len(ledger) == 0


def test_ask_without_max_tokens_is_asked_about_and_its_quote_covers_its_cost(emulator: Any, keys: Any,
                                                                             ledger: gk.Ledger) -> None:
    """chat.ask() (no max_tokens): asked about past confirm_over; once confirmed, it costs no more than quoted."""
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, confirm_over=0.001
    ) as client:
        with pytest.raises(gk.ConfirmationRequiredError) as raised:
            client.chat.ask("Explain in detail how tides work", model="chat-reasoner", stream=False)
        answer = client.chat.ask("Explain in detail how tides work", model="chat-reasoner", stream=False, confirm=True)
    assert answer.usage.cost.total_cost <= raised.value.quote.total_cost

