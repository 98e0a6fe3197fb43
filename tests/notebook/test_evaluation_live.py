"""The evaluation grid: live on a capturing sink (what a front end receives), and the static grid it leaves."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest
from factories import chat

import gatewaykit as gk
from gatewaykit.client.session_tools.evaluation import Evaluation, EvaluationCell
from gatewaykit.notebook.cell_output.sinks import CapturingSink
from gatewaykit.notebook.comparison_views.evaluation_live import LiveEvaluationView
from gatewaykit.notebook.html_views.evaluation_html import render_evaluation_html
from gatewaykit.notebook.html_views.rendering import mimebundle
from gatewaykit.types import ChatCompletionChunk

HOSTILE = '<img src=x onerror="window.__pwned = 1">'
_CELL = re.compile(r'class="gk-eval-cell" data-model="([^"]*)" data-case="([^"]*)" data-state="([^"]*)"')


def chunk(text: str) -> ChatCompletionChunk:
    return ChatCompletionChunk.model_validate({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                                               "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def planned(models: list[str], prompts: list[str]) -> Evaluation:
    ev = Evaluation(kind="chat", models=models, cases=[{"prompt": p} for p in prompts],
                    case_ids=[str(i + 1) for i in range(len(prompts))], scorers=[])  # fmt: skip
    for row, prompt in enumerate(prompts):
        for model in models:
            ev.cells.append(EvaluationCell(row=row, case_id=str(row + 1), case={"prompt": prompt}, model=model, kind="chat"))
    return ev


class LiveDisplay(gk.NullDisplay):
    """Opens a real LiveEvaluationView on a capturing sink (the views it opened are kept)."""

    def __init__(self) -> None:
        self.views: list[LiveEvaluationView] = []

    def evaluate_view(self, evaluation: Any) -> LiveEvaluationView:
        view = LiveEvaluationView(evaluation, sink=CapturingSink())
        self.views.append(view)
        return view


@pytest.fixture
def live(emulator: Any, keys: Any) -> Iterator[tuple[gk.Client, LiveDisplay]]:
    display = LiveDisplay()
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=display) as client:
        yield client, display


def test_the_grid_shows_every_cell_waiting_before_any_request() -> None:
    """The first message is the whole grid: one row per case, one cell per model, all waiting."""
    ev = planned(["chat-mini", "chat-vision"], ["one", "two"])
    sink = CapturingSink()
    LiveEvaluationView(ev, sink=sink, painter=False)
    kind, bundle = sink.messages[0]
    cells = _CELL.findall(bundle["text/html"])
    assert kind == "show"
    assert cells == [("chat-mini", "1", "waiting"), ("chat-vision", "1", "waiting"),
                     ("chat-mini", "2", "waiting"), ("chat-vision", "2", "waiting")]  # fmt: skip


def test_streamed_text_and_prompts_are_escaped_in_the_live_grid() -> None:
    """A streaming answer, a prompt and a model id carrying markup reach the grid as text, never as tags."""
    ev = planned(['evil"<b>'], [HOSTILE])
    sink = CapturingSink()
    view = LiveEvaluationView(ev, sink=sink, painter=False, clock=iter(range(1000)).__next__)
    view.started(ev.cells[0])
    view.chunk(ev.cells[0], chunk(HOSTILE))
    view.paint()
    html = sink.messages[-1][1]["text/html"]
    assert "<img" not in html and html.count("&lt;img") == 2 and '"<b>' not in html
    assert 'data-state="running"' in html


def test_a_real_evaluation_fills_the_grid_and_leaves_the_static_one(live: tuple[gk.Client, LiveDisplay]) -> None:
    """Every cell ends done; the last message is the Evaluation's own grid, with marks and a summary row."""
    client, display = live
    ev = client.evaluate(["What is SSE?", "Name a river"], models=["chat-mini", "chat-vision"],
                         scorers=[lambda output, case: len(output) > 10])
    view = display.views[0]
    messages = view.sink.messages
    assert messages[0][0] == "show" and len(messages) >= 2
    final = messages[-1][1]["text/html"]
    assert final == mimebundle(ev)["text/html"] and final.endswith(render_evaluation_html(ev))
    assert {state for _, _, state in _CELL.findall(final)} == {"done"}
    assert "gk-eval-summary" in final and 'class="gk-mark"' in final
    assert view.paint_seconds >= 0 and view._closed.is_set()


def test_the_final_grid_escapes_model_output(live: tuple[gk.Client, LiveDisplay]) -> None:
    """The offline model echoes the prompt: the markup in it is escaped in every cell of the saved grid."""
    client, _ = live
    ev = client.evaluate([HOSTILE], models=["chat-mini"])
    html = render_evaluation_html(ev)
    assert HOSTILE in ev.cells[0].text
    assert "<img src=x" not in html and "&lt;img src=x" in html


def test_a_finished_answer_shows_as_rendered_markdown_not_its_source(live: tuple[gk.Client, LiveDisplay]) -> None:
    """A finished chat cell shows its answer as a chat answer shows (headings, quotes, emphasis rendered and
    sanitised), not its Markdown source ("## A synthetic reply" in a grid read as noise); the first heading
    has no gap above it."""
    client, _ = live
    ev = client.evaluate(["Name a **river**."], models=["chat-mini", "chat-vision"])
    html = render_evaluation_html(ev)
    answers = re.findall(r'<div class="gk-eval-text gk-eval-answer"[^>]*>(.*?)</div></td>', html, re.S)
    assert len(answers) == 2, html
    for cell, answer in zip(ev.cells, answers):
        assert cell.text.startswith("## ") and "\n## " not in answer and "## " not in answer
        assert answer.startswith('<p class="gk-heading" style="font-weight:600;margin:0 ')
        assert "<blockquote" in answer and "<strong>river</strong>" in answer
    # the grid says whose answers these are, as each chat answer's own footer does
    assert "chat evaluation · 1 case × 2 models · <strong>synthetic</strong> (offline gateway)</div>" in html


def test_row_marks_name_the_best_the_cheapest_and_the_fastest() -> None:
    """Per row: the highest mean score is 'best', the lowest cost 'cheapest', the lowest latency 'fastest'."""
    ev = planned(["a", "b"], ["one"])
    first, second = ev.cells
    for cell, score, cost, latency in ((first, 0.9, 0.02, 2.0), (second, 0.4, 0.01, 1.0)):
        cell.result = object()
        cell.scores, cell.total_cost, cell.latency_s = {"s": score}, cost, latency
    assert ev.marks(ev.rows[0]) == {0: ["best"], 1: ["cheapest", "fastest"]}
    for source in ("replayed", "cached"):  # seconds of a local read, not a model's: no "fastest" among them
        first.cost_source = second.cost_source = source
        assert ev.marks(ev.rows[0]) == {0: ["best"], 1: ["cheapest"]}
    first.cost_source = second.cost_source = "reported"
    first.latency_s, second.latency_s = 0.31, 0.27  # both read "0.3s" in the grid: neither is shown fastest
    assert ev.marks(ev.rows[0]) == {0: ["best"], 1: ["cheapest"]}
    first.latency_s = 0.36  # "0.4s" against "0.3s"
    assert ev.marks(ev.rows[0]) == {0: ["best"], 1: ["cheapest", "fastest"]}


def test_image_cells_show_thumbnails_and_a_scorer_error_in_red(live: tuple[gk.Client, LiveDisplay]) -> None:
    """An image cell is an inline <img> (a data: URI, saved with the notebook); a raising scorer is marked failed."""
    client, _ = live

    def broken(output: Any, case: Any) -> bool:
        raise KeyError("no such field")

    ev = client.evaluate(["a fox"], models=["image-pixels"], scorers=[broken])
    html = render_evaluation_html(ev)
    assert '<img src="data:image/' in html
    assert 'data-failed="1"' in html and "broken error" in html


def test_a_dry_run_shows_the_plan_and_its_quote() -> None:
    """Every cell 'planned', the quote's summary under the grid."""
    ev = planned(["chat-mini"], ["one"])
    ev.dry_run, ev.quote = True, gk.Quote(kind="batch", model="chat-mini", total_cost=0.5, source="catalog", requests=1)
    html = render_evaluation_html(ev)
    assert 'data-state="planned"' in html and "gk-eval-quote" in html and "$0.50" in html


def test_the_marimo_display_shows_the_returned_grid_only() -> None:
    """marimo gets no live view (as for compare): the Evaluation it returns is the cell's output."""
    from gatewaykit.client.core.comparison_view import NullComparisonView
    from gatewaykit.notebook.displays.marimo_display import MarimoDisplay

    ev = gk.Evaluation(kind="chat", models=["chat-mini"], cases=[{"prompt": "hi"}], case_ids=["1"], scorers=[])
    assert isinstance(MarimoDisplay().evaluate_view(ev), NullComparisonView)
    assert "gk-evaluation" in ev._repr_mimebundle_()["text/html"]


def test_with_repeats_the_live_grid_shows_each_cells_stability_so_far() -> None:
    """repeats=3: a row per case; after two repeats finish, the cell's badge counts them and its list holds them."""
    ev = Evaluation(kind="chat", models=["chat-mini"], cases=[{"prompt": "p"}], case_ids=["1"], scorers=["ok"], repeats=3)
    for repeat in range(3):
        ev.cells.append(EvaluationCell(row=repeat, case_id="1", case={"prompt": "p"}, model="chat-mini", kind="chat",
                                       repeat=repeat))  # fmt: skip
    sink = CapturingSink()
    view = LiveEvaluationView(ev, sink=sink, painter=False, clock=iter(range(1000)).__next__)
    assert _CELL.findall(sink.messages[0][1]["text/html"]) == [("chat-mini", "1", "waiting")]
    for cell, passed in zip(ev.cells[:2], (True, False)):
        view.started(cell)
        cell.result, cell.scores = chat("answer"), {"ok": passed}
        view.finished(cell)
    view.paint()
    html = sink.messages[-1][1]["text/html"]
    assert _CELL.findall(html) == [("chat-mini", "1", "running")]
    assert 'data-stability="flaky"' in html and "ok <b>1/2</b> flaky" in html
    assert "2 of 3 repeats done" in html and html.count('class="gk-eval-repeat"') == 2
