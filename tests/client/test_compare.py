"""client.compare(): one prompt on several models of one kind, against the offline gateway."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY

LYRICS = "[Verse]\nLights on the water\n[Chorus]\nWe sing till dawn"


@pytest.fixture
def client(booked_client: gk.Client) -> gk.Client:
    return booked_client


def test_chat_models_answer_side_by_side_in_the_order_asked(client: gk.Client) -> None:
    """Each chat model gets the prompt; entries keep the order of models=[...]."""
    result = client.compare("Explain server-sent events", models=["chat-vision", "chat-mini"])
    assert [e.model for e in result.entries] == ["chat-vision", "chat-mini"]
    assert result.kind == "chat"
    for entry in result.entries:
        assert entry.ok, entry.error
        assert entry.result.choices[0].message.content
        assert entry.latency_s is not None and entry.latency_s >= 0


def test_each_model_costs_what_the_gateway_reported(client: gk.Client) -> None:
    """A chat column's cost is its own request's usage.cost.total_cost, labelled reported."""
    result = client.compare("Name three rivers", models=["chat-mini", "chat-vision"])
    for entry in result.entries:
        assert entry.cost_source == "reported"
        assert entry.total_cost == pytest.approx(entry.result.usage.cost.total_cost)
        assert entry.tokens == entry.result.usage.total_tokens
    assert result.total_cost == pytest.approx(sum(e.total_cost for e in result.entries))


def test_cheapest_and_fastest_name_a_model_that_succeeded(client: gk.Client) -> None:
    """cheapest/fastest pick among the successful columns."""
    result = client.compare("Say hello", models=["chat-mini", "chat-reasoner"])
    costs = {e.model: e.total_cost for e in result.entries}
    assert result.cheapest == min(costs, key=costs.get)
    assert result.fastest in costs


def test_images_compare_with_their_pictures(client: gk.Client) -> None:
    """Image models each return an ImageResult."""
    result = client.compare("a lighthouse at dusk", models=["image-pixels", "image-aspect"])
    assert all(isinstance(e.result, gk.ImageResult) and e.result.data for e in result.entries)
    assert "1 image" in result.entries[0].preview


def test_one_model_failing_shows_its_error_and_the_others_finish(client: gk.Client) -> None:
    """A parameter only one model rejects fails that column alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = client.compare("a red balloon", models=["image-pixels", "image-aspect"], width=99999, height=64)
    by_model = {e.model: e for e in result.entries}
    assert isinstance(by_model["image-pixels"].error, gk.GatewayError)
    assert by_model["image-aspect"].ok
    assert list(result.errors) == ["image-pixels"]
    frame = result.to_pandas()
    assert frame.loc[frame.model == "image-pixels", "error"].iloc[0]


def test_music_jobs_end_completed_with_their_cost_labelled(client: gk.Client) -> None:
    """Jobs are waited for; a job's cost is estimated or says it is not reported."""
    result = client.compare("upbeat synth pop", models=["music-song"], lyrics_prompt=LYRICS)
    entry = result.entries[0]
    assert entry.ok and entry.result.status == "completed"
    assert entry.cost_source in ("estimated", "not reported")


def test_an_unknown_model_suggests_the_closest_and_sends_nothing(client: gk.Client, book: gk.Ledger) -> None:
    """A typo is a ModelNotFoundError with did-you-mean, before any request."""
    with pytest.raises(gk.ModelNotFoundError, match="did you mean 'chat-mini'"):
        client.compare("hi", models=["chat-mini", "chat-mnii"])
    assert len(book.rows) == 0


def test_models_of_different_kinds_are_refused_before_sending(client: gk.Client, book: gk.Ledger) -> None:
    """Mixing a chat and an image model says which kind each is."""
    with pytest.raises(ValueError, match="'image-pixels' is an image model"):
        client.compare("hi", models=["chat-mini", "image-pixels"])
    assert len(book.rows) == 0


def test_models_must_be_a_list_not_a_string(client: gk.Client) -> None:
    """models='chat-mini' is a TypeError that says to pass a list."""
    with pytest.raises(TypeError, match="list of model ids"):
        client.compare("hi", models="chat-mini")


def test_to_pandas_has_one_row_per_model(client: gk.Client) -> None:
    """The frame's columns are the documented ones."""
    frame = client.compare("hi", models=["chat-mini", "chat-vision"]).to_pandas()
    assert list(frame.columns) == ["model", "preview", "latency_s", "total_cost", "cost_source", "tokens", "error"]
    assert list(frame.model) == ["chat-mini", "chat-vision"]


def test_the_async_client_compares_concurrently(emulator: Any) -> None:
    """await aclient.compare(...) gives the same Comparison."""

    async def main() -> gk.Comparison:
        async with gk.AsyncClient(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None),
                                  display=False) as aclient:
            return await aclient.compare("Explain SSE", models=["chat-mini", "chat-vision"])

    result = asyncio.run(main())
    assert [e.model for e in result.entries] == ["chat-mini", "chat-vision"]
    assert all(e.ok and e.cost_source == "reported" for e in result.entries)


def test_the_grid_escapes_the_prompt_and_marks_the_cheapest(client: gk.Client) -> None:
    """The HTML has one column per model, the prompt escaped, and the marks."""
    from gatewaykit.notebook.html_views.comparison_html import render_comparison_html

    result = client.compare("<script>alert(1)</script> hello", models=["chat-mini", "chat-vision"])
    html = render_comparison_html(result)
    assert "<script>" not in html
    assert html.count('class="gk-compare-column"') == 2
    assert "cheapest" in html and "grid-template-columns:repeat(2" in html


def test_confirm_over_quotes_the_whole_comparison_once(emulator: Any, book: gk.Ledger) -> None:
    """With confirm_over, a comparison whose total passes it is refused before anything is sent."""
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=book, display=False, confirm_over=0.05) as client:
        with pytest.raises(gk.ConfirmationRequiredError):
            client.compare("a lighthouse", models=["image-pixels", "image-tiers", "image-aspect"])
        assert len(book.rows) == 0
        done = client.compare("a lighthouse", models=["image-pixels", "image-aspect"], confirm=True)
        assert all(entry.ok for entry in done.entries)
