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
    """cheapest/fastest pick among the successful columns; "fastest" only for a model that reads faster than
    every other (to the tenth of a second a comparison shows), never one of two that read alike."""
    from gatewaykit.client.session_tools.comparison import shown_seconds

    result = client.compare("Say hello", models=["chat-mini", "chat-reasoner"])
    costs = {e.model: e.total_cost for e in result.entries}
    assert result.cheapest == min(costs, key=costs.get)
    shown = {e.model: shown_seconds(e.latency_s) for e in result.entries}
    if len(set(shown.values())) == 1:  # an instant gateway: "0.0 s" twice
        assert result.fastest is None
    else:
        assert result.fastest == min(shown, key=shown.get)
    first, second = result.entries
    first.latency_s, second.latency_s = 0.34, 0.26  # "0.3 s" twice
    assert result.fastest is None
    second.latency_s = 0.21
    assert result.fastest == second.model


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
    assert list(frame.columns) == ["model", "preview", "latency_s", "total_cost", "cost_source", "tokens", "error", "note"]
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


def _footers(html: str) -> list[str]:
    """The grid's column footers (latency, tokens, cost), then the line under the grid."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    columns = soup.select("div.gk-compare-column")
    said = [column.find_all("div", class_="gk-footer", recursive=False)[-1].get_text() for column in columns]
    return said + [footer.get_text() for footer in soup.select("div.gk-comparison > div.gk-footer")]


def test_a_replayed_comparison_says_not_charged_where_each_cost_stands(emulator: Any, tmp_path: Any, no_key: None) -> None:
    """Replayed from a cassette (sync and async), each model's cost says what its ledger row says (replayed, not
    charged, the recorded cost as such) in print(), the grid and to_pandas(), instead of a bare $0.00; the total
    says how many models were not charged; cheapest still compares what the models cost."""
    from gatewaykit.money import format_usd
    from gatewaykit.notebook.html_views.comparison_html import render_comparison_html

    path = tmp_path / "compare.jsonl"
    models = ["chat-vision", "chat-mini"]
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, cassette=path, cassette_mode="record",
                   ledger=gk.Ledger(path=None), display=False) as recording:  # fmt: skip
        fresh = recording.compare("Name a river, compared.", models=models)

    def replayed() -> tuple[gk.Comparison, list[dict[str, Any]]]:
        with gk.Client(cassette=path, cassette_mode="replay", ledger=gk.Ledger(path=None), display=False) as client:
            return client.compare("Name a river, compared.", models=models), client.ledger.rows

    async def replayed_async() -> tuple[gk.Comparison, list[dict[str, Any]]]:
        async with gk.AsyncClient(cassette=path, cassette_mode="replay", ledger=gk.Ledger(path=None),
                                  display=False) as client:  # fmt: skip
            return await client.compare("Name a river, compared.", models=models), client.ledger.rows

    paid = [entry.total_cost for entry in fresh.entries]
    notes = [f"replayed from a cassette: not charged (recorded cost {format_usd(cost)})" for cost in paid]
    total = f"in all: $0.00 · 2 models replayed from a cassette: not charged (recorded cost {format_usd(sum(paid))})"
    assert all(entry.cost_source == "reported" and entry.note is None for entry in fresh.entries)
    assert "replayed" not in str(fresh) + render_comparison_html(fresh)
    for comparison, rows in (replayed(), asyncio.run(replayed_async())):
        assert [(entry.cost_source, entry.total_cost) for entry in comparison.entries] == [("replayed", 0.0)] * 2
        assert [entry.note for entry in comparison.entries] == notes == [row["note"] for row in rows]
        lines = str(comparison).splitlines()
        for model, note in zip(models, notes):
            assert any(line.startswith(f"  {model} ") and f"  {note} " in line for line in lines), lines
        assert lines[-1] == f"  {total}" and comparison.total_text == total
        footers = _footers(render_comparison_html(comparison))
        assert [footer.split(" · ")[-1] for footer in footers[:2]] == notes and footers[-1] == total
        assert list(comparison.to_pandas().note) == notes
        assert comparison.cheapest == fresh.cheapest == "chat-mini"  # not the first of two $0 columns
        assert comparison.fastest is None  # a local read's seconds time no model
        fresh.entries[0].latency_s, fresh.entries[1].latency_s = 0.5, 0.2
        assert fresh.fastest == models[1]
        for entry, seconds in zip(comparison.entries, (0.5, 0.2)):
            entry.latency_s = seconds  # not even seconds that differ
        assert comparison.fastest is None


def test_a_cached_comparison_says_not_charged_where_each_cost_stands(emulator: Any, keys: Any, tmp_path: Any) -> None:
    """Answered from the response cache, each model's cost (a chat's, a music job's) says what its ledger row says
    (cached, not sent, not charged, what it saved) in print(), the grid and to_pandas(); the total says how many."""
    from gatewaykit.money import format_usd
    from gatewaykit.notebook.html_views.comparison_html import render_comparison_html

    def run(client: gk.Client) -> tuple[gk.Comparison, gk.Comparison]:
        return (client.compare("Name a lake, compared.", models=["chat-mini", "chat-vision"]),
                client.compare("upbeat synth pop, kept", models=["music-song"], lyrics_prompt=LYRICS))  # fmt: skip

    def client() -> gk.Client:
        return gk.Client(api_key=keys.acme, base_url=emulator.base_url, cache=tmp_path / "cache",
                         ledger=gk.Ledger(path=None), display=False)  # fmt: skip

    with client() as first:
        fresh, _ = run(first)
    with client() as second:
        chats, song = run(second)
        rows = second.ledger.rows
    notes = [f"cached: not sent, not charged (saved {format_usd(entry.total_cost)})" for entry in fresh.entries]
    assert [entry.note for entry in chats.entries] == notes == [row["note"] for row in rows[:2]]
    total = f"in all: $0.00 · 2 models cached: not sent, not charged (saved {format_usd(fresh.total_cost)})"
    assert str(chats).splitlines()[-1] == f"  {total}"
    footers = _footers(render_comparison_html(chats))
    assert [footer.split(" · ")[-1] for footer in footers[:2]] == notes and footers[-1] == total
    assert list(chats.to_pandas().note) == notes
    (entry,) = song.entries
    assert (entry.cost_source, entry.total_cost, entry.note) == ("cached", 0.0, "cached: not sent, not charged")
    assert entry.note == rows[-1]["note"] and "  cached: not sent, not charged " in str(song)
