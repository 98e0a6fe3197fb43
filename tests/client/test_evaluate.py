"""client.evaluate(): cases × models, scored, quoted first, cached and resumable, against the offline gateway."""

from __future__ import annotations

import asyncio
import csv
import io
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY

COLUMNS_HEAD = ["case_id", "prompt", "model", "output"]
COLUMNS_TAIL = ["latency_s", "total_cost", "cost_source", "error"]


@pytest.fixture
def client(booked_client: gk.Client) -> gk.Client:
    return booked_client


def long_enough(output: str, case: dict[str, Any]) -> bool:
    return len(output.split()) > 3


def test_every_case_runs_on_every_model_in_row_order(client: gk.Client) -> None:
    """Cells go case by case, each row in the order of models=[...], each with its output, latency and cost."""
    ev = client.evaluate(["What is SSE?", {"id": "q2", "prompt": "Name a river"}], models=["chat-mini", "chat-vision"])
    assert isinstance(ev, gk.Evaluation) and ev.kind == "chat"
    assert [(c.case_id, c.model) for c in ev.cells] == [
        ("1", "chat-mini"), ("1", "chat-vision"), ("q2", "chat-mini"), ("q2", "chat-vision")]
    for cell in ev.cells:
        assert cell.ok, cell.error
        assert cell.text and cell.latency_s is not None and cell.latency_s >= 0
        assert cell.cost_source == "reported"
        assert cell.total_cost == pytest.approx(cell.result.usage.cost.total_cost)


def test_to_pandas_has_exactly_the_documented_columns(client: gk.Client) -> None:
    """case_id, prompt, model, output, one column per scorer, latency_s, total_cost, cost_source, error."""
    ev = client.evaluate(["Say hi"], models=["chat-mini"], scorers=[long_enough])
    frame = ev.to_pandas()
    assert list(frame.columns) == [*COLUMNS_HEAD, "long_enough", *COLUMNS_TAIL]
    row = frame.iloc[0]
    assert row.output == ev.cells[0].text and row.long_enough == (len(row.output.split()) > 3)
    assert row.error is None


def test_a_raising_scorer_is_that_cells_error_and_the_rest_go_on(client: gk.Client) -> None:
    """A scorer that raises on one case leaves its error there; other scorers and other cells are scored."""

    def picky(output: str, case: dict[str, Any]) -> float:
        if case["id"] == "bad":
            raise RuntimeError("cannot score this one")
        return 0.5

    ev = client.evaluate([{"id": "good", "prompt": "one"}, {"id": "bad", "prompt": "two"}], models=["chat-mini"],
                         scorers=[picky, long_enough])
    good, bad = ev.cells
    assert good.scores == {"picky": 0.5, "long_enough": True}
    assert isinstance(bad.score_errors["picky"], RuntimeError) and "picky" not in bad.scores
    assert bad.scores["long_enough"] is True
    frame = ev.to_pandas().set_index("case_id")
    assert "cannot score this one" in frame.loc["bad", "error"] and not isinstance(frame.loc["good", "error"], str)
    assert ev.summary().set_index("model").loc["chat-mini", "errors"] == 1


def test_a_dict_scorer_gives_one_column_per_key(client: gk.Client) -> None:
    """{'words': n, 'has_title': bool} becomes columns shape.words and shape.has_title."""

    def shape(output: str, case: Any) -> dict[str, Any]:
        return {"words": len(output.split()), "has_title": output.startswith("#")}

    frame = client.evaluate(["Explain caching"], models=["chat-mini"], scorers=[shape]).to_pandas()
    assert list(frame.columns) == [*COLUMNS_HEAD, "shape.words", "shape.has_title", *COLUMNS_TAIL]
    assert frame["shape.words"].iloc[0] > 0


def test_best_is_said_to_be_the_highest_mean_and_each_cell_shows_its_mean(client: gk.Client) -> None:
    """With several scores a row's "best" goes to the highest mean of them: the grid and the text say so, and each
    cell shows the mean it was compared on (without it, a best cell with a lower score of one kind reads wrong)."""
    from gatewaykit.notebook.html_views.evaluation_html import render_evaluation_html

    def words(output: str, case: Any) -> float:
        return min(1.0, len(output.split()) / 200)

    ev = client.evaluate(["Explain caching", "Name a river"], models=["chat-mini", "chat-vision"],
                         scorers=[words, long_enough])  # fmt: skip
    html, text = render_evaluation_html(ev), str(ev)
    assert "best = the highest mean score" in html and "(best = the highest mean score)" in text.splitlines()[0]
    for cell in ev.cells:
        mean = f"mean {cell.score:.2f}"
        assert mean == f"mean {(cell.scores['words'] + cell.scores['long_enough']) / 2:.2f}"
        assert mean in html and mean in text
    one = client.evaluate(["Name a river"], models=["chat-mini", "chat-vision"], scorers=[words])
    assert "best = the highest words" in render_evaluation_html(one) and "mean " not in str(one)


def test_an_unknown_model_is_refused_with_did_you_mean_and_nothing_is_sent(client: gk.Client, book: gk.Ledger) -> None:
    """A typo in models=[...] is a ModelNotFoundError naming the closest id, before any request."""
    with pytest.raises(gk.ModelNotFoundError, match="did you mean 'chat-mini'"):
        client.evaluate(["hi", "there"], models=["chat-mini", "chat-mnii"])
    assert book.rows == []


def test_models_of_different_kinds_are_a_value_error_naming_them(client: gk.Client, book: gk.Ledger) -> None:
    """A chat model beside an image model: ValueError naming both with their kinds."""
    with pytest.raises(ValueError, match=r"'chat-mini' \(chat\), 'image-pixels' \(image\)"):
        client.evaluate(["hi"], models=["chat-mini", "image-pixels"])
    assert book.rows == []


def test_a_case_without_a_prompt_is_a_value_error_naming_it(client: gk.Client) -> None:
    """A dict case with no 'prompt' is refused, naming its id (or its position)."""
    with pytest.raises(ValueError, match="case 'q7' has no prompt"):
        client.evaluate(["fine", {"id": "q7", "question": "oops"}], models=["chat-mini"])
    with pytest.raises(ValueError, match="case 2 has no prompt"):
        client.evaluate(["fine", {"prompt": "  "}], models=["chat-mini"])


def test_a_dry_run_returns_the_plan_and_its_quote_and_sends_nothing(client: gk.Client, book: gk.Ledger) -> None:
    """dry_run=True: every cell planned, none sent, the quote prices the whole grid."""
    ev = client.evaluate(["a fox", "a lighthouse"], models=["image-pixels", "image-aspect"], dry_run=True)
    assert ev.dry_run and len(ev.cells) == 4 and all(c.result is None and c.error is None for c in ev.cells)
    assert book.rows == []
    assert isinstance(ev.quote, gk.Quote) and ev.quote.requests == 4
    one = client.images.quote(model="image-aspect", prompt="a fox").total_cost
    assert ev.quote.total_cost is not None and ev.quote.total_cost >= 2 * one
    assert "dry run" in str(ev) and "quote" in str(ev)


def test_a_dry_run_quotes_the_judge_too(client: gk.Client) -> None:
    """A judge adds one request per cell to the quote."""
    plain = client.evaluate(["a", "b"], models=["chat-mini"], dry_run=True).quote
    judged = client.evaluate(["a", "b"], models=["chat-mini"], dry_run=True,
                             scorers=[gk.judge(model="chat-mini", rubric="is it kind?")]).quote
    assert (plain.requests, judged.requests) == (2, 4)


def test_a_dry_run_prices_the_judge_s_pictures_and_every_prompt_near_what_the_run_costs(
    client: gk.Client, book: gk.Ledger
) -> None:
    """The quote counts each chat's prompt (it counted none without confirm_over) and each picture a judge is
    shown as a picture (it was shown none): an image evaluation's quote came to 92% of what the run cost, the
    judging left out. It is never below the cost, and above it by at most the verdicts' unused ``max_tokens``."""
    judge = gk.judge(model=client.models.pick("chat", needs=["vision", "json_schema"]), rubric="Is it a fox?")
    cases, models = ["a red fox in snow", "a fox asleep"], ["image-pixels", "image-aspect"]
    quote = client.evaluate(cases, models=models, scorers=[judge], dry_run=True).quote
    client.evaluate(cases, models=models, scorers=[judge])
    spent = book.total_cost
    rate = client.models.get(judge.model).pricing["output"]  # type: ignore[attr-defined]  # USD per million
    verdicts = 4 * judge.max_tokens * rate / 1e6  # four verdicts, each quoted at its whole max_tokens
    assert quote.total_cost is not None and spent <= quote.total_cost <= 1.03 * spent + verdicts, (quote, spent)
    short, long = (client.evaluate([prompt], models=["chat-mini"], dry_run=True).quote
                   for prompt in ("Hi.", "Describe the sea. " * 400))  # fmt: skip
    assert long.total_cost > short.total_cost, (long, short)  # about 1,800 more prompt tokens


class CountingConfirm(gk.NullDisplay):
    """A display that can be asked; counts the questions and answers yes."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    def confirm(self, quote: Any, threshold: float) -> bool:
        self.asked.append(quote)
        return True


def test_confirm_over_asks_once_for_the_whole_evaluation(emulator: Any, book: gk.Ledger) -> None:
    """Two cases × two image models over confirm_over: one question, with the whole grid's quote."""
    display = CountingConfirm()
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=book, display=display, confirm_over=0.0) as client:
        ev = client.evaluate(["a fox", "a cat"], models=["image-pixels", "image-aspect"])
    assert len(display.asked) == 1 and display.asked[0].requests == 4
    assert all(cell.ok for cell in ev.cells)


def test_confirm_over_without_anyone_to_ask_sends_nothing(emulator: Any, book: gk.Ledger) -> None:
    """No display can ask: ConfirmationRequiredError naming confirm=True, and no request went out."""
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=book, display=False, confirm_over=0.0) as client:
        with pytest.raises(gk.ConfirmationRequiredError, match="confirm=True to evaluate"):
            client.evaluate(["a fox"], models=["image-pixels", "image-aspect"])
        assert book.rows == []
        ev = client.evaluate(["a fox"], models=["image-pixels"], confirm=True)
    assert ev.cells[0].ok


def test_confirm_over_on_a_re_run_quotes_only_what_is_left(emulator: Any, book: gk.Ledger, tmp_path: Path) -> None:
    """A checkpointed re-run: nothing to send is no question; a judge added then is quoted for the restored cells."""
    display = CountingConfirm()
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=book, display=display, confirm_over=0.0) as client:
        client.evaluate(["a", "b"], models=["chat-mini"], checkpoint=tmp_path / "c.sqlite")
        client.evaluate(["a", "b"], models=["chat-mini"], checkpoint=tmp_path / "c.sqlite")
        grader = gk.judge(model="chat-vision", rubric="Is it polite?")
        client.evaluate(["a", "b"], models=["chat-mini"], scorers=[grader], checkpoint=tmp_path / "c.sqlite")
    assert [quote.requests for quote in display.asked] == [2, 2]  # the first run's cells, then the judge's two


def test_the_judge_is_pinned_shown_and_scores_each_output(client: gk.Client, book: gk.Ledger) -> None:
    """A judge's repr shows model, temperature and seed; its requests carry them; its score is a 0..1 column."""
    grader = gk.judge(model="chat-mini", rubric="Answers the question")
    assert repr(grader) == "judge(model='chat-mini', temperature=0, seed=0, name='judge')"
    ev = client.evaluate(["What is SSE?"], models=["chat-vision"], scorers=[grader])
    cell = ev.cells[0]
    assert 0 <= cell.scores["judge"] <= 1 and "judge" in cell.reasons
    judged = [row for row in book.rows if row["model"] == "chat-mini"]
    assert len(judged) == 1 and ev.judge_cost == pytest.approx(judged[0]["total_cost"])


def test_a_re_run_with_the_cache_costs_nothing_and_re_judges_nothing(emulator: Any) -> None:
    """cache=True: the second identical evaluation's cells and verdicts are answered locally, $0."""
    cases = ["What is SSE?", "Name two rivers"]
    grader = gk.judge(model="chat-mini", rubric="Answers the question")
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
                   cache=True) as client:  # fmt: skip
        first = client.evaluate(cases, models=["chat-mini", "chat-vision"], scorers=[grader])
        second = client.evaluate(cases, models=["chat-mini", "chat-vision"], scorers=[grader])
    assert first.total_cost > 0
    assert second.total_cost == 0 and second.judge_cost == 0
    assert {cell.cost_source for cell in second.cells} == {"cached"}
    assert [c.text for c in second.cells] == [c.text for c in first.cells]
    assert [c.scores for c in second.cells] == [c.scores for c in first.cells]


_KILLED_RUN = textwrap.dedent(
    """
    import os, sys, time
    import gatewaykit as gk

    base_url, key, checkpoint, ledger, marker = sys.argv[1:6]

    def slow_on_the_third(output, case):
        if case["id"] == "c3":
            open(marker, "w").close()  # the third cell is stored: now wait to be killed
            time.sleep(600)
        return True

    client = gk.Client(api_key=key, base_url=base_url, ledger=gk.Ledger(path=ledger), display=False)
    client.evaluate([{"id": f"c{i}", "prompt": f"case number {i}"} for i in range(1, 6)], models=["chat-mini"],
                    scorers=[slow_on_the_third], concurrency=1, checkpoint=checkpoint)
    """
)


def test_a_run_killed_half_way_and_re_run_pays_each_cell_once(emulator: Any, tmp_path: Path) -> None:
    """SIGKILL after three of five cells; the re-run restores them ($0, 'checkpoint') and sends only two."""
    checkpoint, ledger, marker = tmp_path / "eval.sqlite", tmp_path / "ledger.sqlite", tmp_path / "third-stored"
    script = tmp_path / "killed_run.py"
    script.write_text(_KILLED_RUN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(gk.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, str(script), emulator.base_url, ACME_KEY, str(checkpoint), str(ledger),
                                str(marker)], env=env)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert process.poll() is None, "the run ended before it reached the third cell"
            assert time.monotonic() < deadline, "the run never reached the third cell"
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    book = gk.Ledger(path=ledger)
    assert len(book.rows) == 3  # three cells paid before the kill

    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=book, display=False) as client:
        ev = client.evaluate([{"id": f"c{i}", "prompt": f"case number {i}"} for i in range(1, 6)], models=["chat-mini"],
                             scorers=[long_enough], concurrency=1, checkpoint=checkpoint)
    assert [c.restored for c in ev.cells] == [True, True, True, False, False]
    assert all(cell.ok and "long_enough" in cell.scores for cell in ev.cells)
    assert [c.cost_source for c in ev.cells[:3]] == ["checkpoint"] * 3 and ev.cells[0].total_cost == 0
    paid = [row for row in book.rows if row["model"] == "chat-mini"]
    assert len(paid) == 5  # each of the five cells paid exactly once, across both runs


def test_a_checkpoint_keeps_the_judges_verdicts(client: gk.Client, book: gk.Ledger, tmp_path: Path) -> None:
    """The re-run of a finished evaluation sends nothing at all: outputs and verdicts come from the file."""
    grader = gk.judge(model="chat-mini", rubric="Is it short?")
    first = client.evaluate(["hello", "bye"], models=["chat-vision"], scorers=[grader], checkpoint=tmp_path / "c.sqlite")
    sent = len(book.rows)
    second = client.evaluate(["hello", "bye"], models=["chat-vision"], scorers=[grader], checkpoint=tmp_path / "c.sqlite")
    assert len(book.rows) == sent == 4
    assert [c.scores for c in second.cells] == [c.scores for c in first.cells]
    assert second.total_cost == 0


def test_a_re_run_from_the_checkpoint_marks_the_same_cells_cheapest(client: gk.Client, tmp_path: Path) -> None:
    """Restored cells cost $0 now; "cheapest" compares what each cost when it was paid for, so the marks a class
    saw on the first run stay on the re-run (they all vanished: every cell read $0.00)."""
    models = ["chat-mini", "chat-reasoner", "chat-vision"]
    first = client.evaluate(["hello", "bye"], models=models, checkpoint=tmp_path / "c.sqlite")
    second = client.evaluate(["hello", "bye"], models=models, checkpoint=tmp_path / "c.sqlite")
    assert all(cell.restored and cell.total_cost == 0 for cell in second.cells)
    assert [c.paid_cost for c in second.cells] == [c.total_cost for c in first.cells]

    def cheapest(evaluation: Any) -> list[list[int]]:
        return [[i for i, labels in evaluation.marks(row).items() if "cheapest" in labels] for row in evaluation.rows]

    assert cheapest(first) == cheapest(second) and all(cheapest(first)), cheapest(second)
    legend = "cheapest = by what each cost when it was sent"  # beside cells that all read $0.00 now
    from gatewaykit.notebook.html_views.evaluation_html import render_evaluation_html

    assert legend in render_evaluation_html(second) and legend in str(second).splitlines()[0]
    assert legend not in render_evaluation_html(first) and legend not in str(first)


def test_a_judge_added_on_a_re_run_grades_the_restored_outputs(client: gk.Client, book: gk.Ledger,
                                                                 tmp_path: Path) -> None:
    """Outputs come from the checkpoint (not sent again); only the new judge's requests go out."""
    client.evaluate(["hello", "bye"], models=["chat-vision"], checkpoint=tmp_path / "c.sqlite")
    grader = gk.judge(model="chat-mini", rubric="Is it short?")
    ev = client.evaluate(["hello", "bye"], models=["chat-vision"], scorers=[grader], checkpoint=tmp_path / "c.sqlite")
    assert all(c.restored and 0 <= c.scores["judge"] <= 1 for c in ev.cells)
    assert [row["model"] for row in book.rows] == ["chat-vision", "chat-vision", "chat-mini", "chat-mini"]
    assert ev.judge_cost > 0


def test_summary_has_one_row_per_model(client: gk.Client) -> None:
    """Mean scores, total cost, median latency and errors per model, in the order asked."""
    ev = client.evaluate(["a", "b", "c"], models=["chat-vision", "chat-mini"], scorers=[long_enough])
    summary = ev.summary()
    assert list(summary.columns) == ["model", "long_enough", "total_cost", "median_latency_s", "errors"]
    assert list(summary.model) == ["chat-vision", "chat-mini"]
    mini = [c for c in ev.cells if c.model == "chat-mini"]
    assert summary.iloc[1].total_cost == pytest.approx(sum(c.total_cost for c in mini))
    assert summary.iloc[1].errors == 0


def test_save_writes_a_formula_safe_csv_and_the_images(client: gk.Client, tmp_path: Path) -> None:
    """Cells starting with = + - @ get a leading quote; each image is saved under the name its output column gives."""
    ev = client.evaluate([{"id": "f1", "prompt": "=HYPERLINK(\"http://x\")"}, "@a boat"], models=["image-pixels"],
                         scorers=[lambda output, case: len(output.data) == 1])
    path = ev.save(tmp_path / "out")
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert rows[0]["prompt"] == "'=HYPERLINK(\"http://x\")" and rows[1]["prompt"] == "'@a boat"
    assert list(rows[0]) == [*COLUMNS_HEAD, "score_1", *COLUMNS_TAIL]
    for row in rows:
        assert (tmp_path / "out" / row["output"]).stat().st_size > 0
    assert rows[0]["output"] == "f1-image-pixels.png"


def test_printing_an_evaluation_strips_terminal_escapes(client: gk.Client) -> None:
    """The offline model echoes the prompt; an ESC sequence in it never reaches the text view."""
    ev = client.evaluate(["\x1b[31mred\x1b[0m alert"], models=["chat-mini"], scorers=[long_enough])
    assert "\x1b" in ev.cells[0].text  # the echo carried it
    text = str(ev)
    assert "\x1b" not in text and "chat-mini" in text and "summary:" in text


def test_the_terminal_display_writes_a_line_per_cell(emulator: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """TerminalDisplay shows each cell as it finishes, as it shows compare's columns."""
    from gatewaykit.client.terminal_display import TerminalDisplay

    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None),
                   display=TerminalDisplay()) as client:  # fmt: skip
        client.evaluate(["one", "two"], models=["chat-mini", "chat-vision"])
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert len(lines) == 4 and all(" · " in line for line in lines)


def test_the_async_client_evaluates_with_the_same_method(emulator: Any, tmp_path: Path) -> None:
    """await aclient.evaluate(...): the same cells, scores and checkpoint."""

    async def main() -> tuple[gk.Evaluation, gk.Evaluation]:
        async with gk.AsyncClient(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None),
                                  display=False) as client:  # fmt: skip
            first = await client.evaluate(["one", "two"], models=["chat-mini", "chat-vision"], scorers=[long_enough],
                                          checkpoint=tmp_path / "a.sqlite")  # fmt: skip
            again = await client.evaluate(["one", "two"], models=["chat-mini", "chat-vision"], scorers=[long_enough],
                                          checkpoint=tmp_path / "a.sqlite")  # fmt: skip
            return first, again

    first, again = asyncio.run(main())
    assert [c.model for c in first.cells] == ["chat-mini", "chat-vision"] * 2
    assert all(c.ok and c.scores["long_enough"] is True for c in first.cells)
    assert all(c.restored for c in again.cells) and again.total_cost == 0


def test_an_image_judge_sees_the_image(client: gk.Client, book: gk.Ledger) -> None:
    """An image evaluation's judge request carries the image as an image part, and its verdict is a score."""
    grader = gk.judge(model="chat-vision", rubric="Shows a red fox")
    request = grader.request(client.images.generate(model="image-pixels", prompt="a fox"), {"prompt": "a fox"}, "image")
    parts = request["messages"][1]["content"]
    assert parts[1]["type"] == "image_url" and parts[1]["image_url"]["url"].startswith("data:image/")
    ev = client.evaluate(["a fox"], models=["image-pixels"], scorers=[grader])
    assert 0 <= ev.cells[0].scores["judge"] <= 1


def test_bad_scorers_and_settings_are_refused_before_sending(client: gk.Client, book: gk.Ledger) -> None:
    """Two scorers of one name, a judge on an image model, repeats=0, stream=True: each a clear error, nothing sent."""
    with pytest.raises(ValueError, match="two scorers are named 'judge'"):
        client.evaluate(["a"], models=["chat-mini"], scorers=[gk.judge(model="chat-mini", rubric="x"),
                                                              gk.judge(model="chat-vision", rubric="y")])
    with pytest.raises(ValueError, match="not a chat model"):
        client.evaluate(["a"], models=["chat-mini"], scorers=[gk.judge(model="image-pixels", rubric="x")])
    with pytest.raises(ValueError, match="repeats"):
        client.evaluate(["a"], models=["chat-mini"], repeats=0)
    with pytest.raises(TypeError, match="stream"):
        client.evaluate(["a"], models=["chat-mini"], stream=True)
    assert book.rows == []


def test_repeats_make_one_row_per_case_and_repeat(client: gk.Client) -> None:
    """repeats=2: each case twice, each repeat its own row of the grid."""
    ev = client.evaluate(["a", "b"], models=["chat-mini", "chat-vision"], repeats=2, temperature=1.0)
    assert len(ev.cells) == 8 and len(ev.rows) == 4
    assert [(row[0].case_id, row[0].repeat) for row in ev.rows] == [("1", 0), ("1", 1), ("2", 0), ("2", 1)]


def test_music_cells_wait_for_their_jobs_and_save_the_songs(client: gk.Client, tmp_path: Path) -> None:
    """A music evaluation waits for each job; its output is the song's file name, and save() writes the mp3."""
    lyrics = "[Verse]\nLights on the water\n[Chorus]\nWe sing till dawn"
    ev = client.evaluate([{"id": "pop", "prompt": "upbeat synth pop"}], models=["music-song"], lyrics_prompt=lyrics,
                         scorers=[lambda output, case: output.status == "completed"])
    cell = ev.cells[0]
    assert cell.ok and cell.result.status == "completed" and cell.scores["score_1"] is True
    assert cell.output == "pop-music-song.mp3" and cell.cost_source in ("estimated", "not reported")
    ev.save(tmp_path)
    assert (tmp_path / "pop-music-song.mp3").stat().st_size > 0



def test_a_replayed_evaluation_marks_its_cells_and_totals_as_not_charged(emulator: Any, tmp_path: Path, no_key: None) -> None:
    """Replayed from a cassette, each cell's cost says what its ledger row says (replayed, not charged, the
    recorded cost as such) in print(ev) and the grid; each model's total, the grid's 'in all' and the judging say
    how many cells and judge requests were replayed, instead of a bare $0."""
    import re

    from gatewaykit.money import format_usd
    from gatewaykit.notebook.html_views.evaluation_html import render_evaluation_html

    path = tmp_path / "evaluation.jsonl"
    cases = [{"id": "river", "prompt": "Name a river, evaluated."}, {"id": "lake", "prompt": "Name a lake, evaluated."}]
    models = ["chat-mini", "chat-vision"]
    scorers = [long_enough, gk.judge(model="chat-mini", rubric="Does it name a place?")]
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, cassette=path, cassette_mode="record",
                   ledger=gk.Ledger(path=None), display=False) as recording:  # fmt: skip
        fresh = recording.evaluate(cases, models=models, scorers=scorers, concurrency=2)
    with gk.Client(cassette=path, cassette_mode="replay", ledger=gk.Ledger(path=None), display=False) as client:
        ev = client.evaluate(cases, models=models, scorers=scorers, concurrency=2)
        row_notes = {row["tags"][-1]: row["note"] for row in client.ledger.rows if "-judge" not in " ".join(row["tags"])}
    assert fresh.judge_cost > 0 and all(cell.cost_source == "reported" for cell in fresh.cells)
    assert "replayed" not in str(fresh) + render_evaluation_html(fresh)
    notes = [f"replayed from a cassette: not charged (recorded cost {format_usd(cell.total_cost)})" for cell in fresh.cells]
    assert [(cell.cost_source, cell.total_cost) for cell in ev.cells] == [("replayed", 0.0)] * 4
    assert [row_notes[cell.tag] for cell in ev.cells] == notes  # the cells say what their ledger rows say
    text = str(ev)
    assert [line.split(" · ")[2] for line in text.splitlines() if line.startswith("  chat-") and " — " in line] == notes
    for model in models:
        recorded = format_usd(math.fsum(cell.total_cost for cell in fresh.cells if cell.model == model))
        said = f"$0.00 · 2 cells replayed from a cassette: not charged (recorded cost {recorded})"
        assert any(line.startswith(f"  {model} ·") and said in line for line in text.splitlines())
    assert ev.judge_replayed == 4 and "  judging: 4 judge requests replayed from a cassette: not charged" in text
    html = render_evaluation_html(ev)
    footers = re.findall(r'<div class="gk-footer"[^>]*>(.*?)</div>', html)
    assert [footer.split(" · ")[-1] for footer in footers[:4]] == notes
    everything = format_usd(math.fsum(cell.total_cost for cell in fresh.cells))
    assert footers[-1] == (f"in all: $0.00 · 4 cells replayed from a cassette: not charged (recorded cost {everything})"
                           " · 4 judge requests replayed from a cassette: not charged")  # fmt: skip
