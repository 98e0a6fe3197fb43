"""Evaluations as a gate: gk.expect scorers, stability over repeats, save/load, a noise-aware compare, and
assert_no_regression, against the offline gateway with sampled (temperature > 0) answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gatewaykit.client.session_tools.evaluation_stats import fisher_exact

GOOD = [{"id": "volcano", "prompt": "In one sentence, tell me about volcanoes."},
        {"id": "tides", "prompt": "In one sentence, tell me about tides."},
        {"id": "bees", "prompt": "In one sentence, tell me about bees."}]  # fmt: skip
VAGUE = [{"id": "volcano", "prompt": "volcanoes?"}, {"id": "tides", "prompt": "tides?"}, {"id": "bees", "prompt": "bees?"}]


def mentions(output: str, case: dict[str, Any]) -> bool:
    """The answer names the case's subject (its id, without a plural s)."""
    return case["id"].rstrip("s") in output.lower()


@pytest.fixture
def client(booked_client: gk.Client) -> gk.Client:
    return booked_client


@pytest.fixture
def own_gateway() -> Iterator[Any]:
    """A fresh gateway (seed 7): its sampled answers do not depend on other tests' requests."""
    with gk.emulator.start(time_scale=0, seed=7) as gateway:
        yield gateway


def client_on(gateway: Any) -> gk.Client:
    return gk.Client(base_url=gateway.base_url, api_key=gateway.api_key, ledger=gk.Ledger(path=None), display=False)


@pytest.fixture
def sampling(own_gateway: Any) -> Iterator[gk.Client]:
    """A client on :func:`own_gateway`."""
    with client_on(own_gateway) as made:
        yield made


def test_expectations_name_their_columns_and_combine_with_functions(client: gk.Client) -> None:
    """contains, regex, json_schema, max_cost and max_latency score beside a function and a judge, each its column."""
    schema = {"title": "reply", "type": "object", "required": ["answer"]}
    scorers = [gk.expect.contains("volcanoes"), gk.expect.regex(r"^\w"), gk.expect.json_schema(schema),
               gk.expect.max_cost(0.0000001), gk.expect.max_latency(60), mentions,
               gk.judge(model="chat-mini", rubric="Names the subject.")]  # fmt: skip
    ev = client.evaluate([GOOD[0]], models=["chat-mini"], scorers=scorers)
    scores = ev.cells[0].scores
    assert list(scores) == ["contains('volcanoes')", r"regex('^\\w')", "json_schema(reply)", "max_cost($1e-07)",
                            "max_latency(60s)", "mentions", "judge"]  # fmt: skip
    assert 0 <= scores["judge"] <= 1 and ev.cells[0].score_errors == {}
    assert scores == {**scores, "contains('volcanoes')": True, "json_schema(reply)": False,
                      "max_cost($1e-07)": False, "max_latency(60s)": True, "mentions": True}  # fmt: skip


def test_json_schema_passes_a_json_answer(client: gk.Client) -> None:
    """expect.json_schema passes an answer given in JSON mode that fits the schema, named by name=."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    ev = client.evaluate(["Which city?"], models=["chat-mini"], scorers=[gk.expect.json_schema(schema, name="fits")],
                         response_format={"type": "json_schema", "json_schema": {"name": "c", "schema": schema}})  # fmt: skip
    assert ev.cells[0].scores == {"fits": True}


def test_expectations_refuse_bad_arguments_before_anything_is_sent() -> None:
    """An empty text, a broken pattern, a non-schema or a negative limit is a ValueError naming what to change."""
    for make, match in ((lambda: gk.expect.contains(""), "non-empty"), (lambda: gk.expect.regex("("), "regular"),
                        (lambda: gk.expect.json_schema({"type": 3}), "JSON Schema"),
                        (lambda: gk.expect.max_cost(-1), "from 0")):  # fmt: skip
        with pytest.raises(ValueError, match=match):
            make()


def test_stability_reports_pass_rate_pass_k_spread_and_flaky(sampling: gk.Client) -> None:
    """Over 12 sampled repeats: each group's pass rate, pass^k, spread, and flaky when some but not all passed."""
    ev = sampling.evaluate(VAGUE[:1], models=["chat-mini"], scorers=[mentions], repeats=12, temperature=1.0)
    row = ev.stability().iloc[0]
    passed = sum(cell.scores["mentions"] for cell in ev.cells)
    assert (row.case_id, row.model, row.scorer, row.repeats, row.passed) == ("volcano", "chat-mini", "mentions", 12, passed)
    assert 0 < passed < 12 and row.flaky and not row.pass_k and row.pass_rate == passed / 12
    assert row.spread == pytest.approx((passed / 12 * (1 - passed / 12)) ** 0.5)
    assert "stability: 0 of 1 cell stable, 1 flaky, 0 failing" in str(ev)


def test_a_seeded_evaluation_sends_seed_plus_repeat(sampling: gk.Client) -> None:
    """seed=s with repeats: repeat r asks with seed s + r, so the repeats differ and a re-run gives the same ones."""
    first = sampling.evaluate(VAGUE[:1], models=["chat-mini"], repeats=4, temperature=1.0, seed=40)
    again = sampling.evaluate(VAGUE[:1], models=["chat-mini"], repeats=4, temperature=1.0, seed=40)
    assert [c.text for c in first.cells] == [c.text for c in again.cells]
    assert len({c.text for c in first.cells}) > 1


def test_save_then_load_gives_the_same_evaluation_with_its_media(client: gk.Client, tmp_path: Path) -> None:
    """load(folder) reads what save(folder) wrote: cells, scores, costs and the images' bytes; JSON, no pickle."""
    ev = client.evaluate(["a red fox"], models=["image-pixels"], scorers=[lambda output, case: len(output.data) == 1],
                         width=256, height=256, repeats=2)  # fmt: skip
    ev.save(tmp_path)
    json.loads((tmp_path / "evaluation.json").read_text())
    back = gk.Evaluation.load(tmp_path)
    assert back.to_pandas().equals(ev.to_pandas())
    assert [c.result.data[0].content for c in back.cells] == [c.result.data[0].content for c in ev.cells]
    assert back.stability().equals(ev.stability())


def test_load_names_a_folder_without_a_saved_evaluation(tmp_path: Path) -> None:
    """Loading a folder save() did not write is a FileNotFoundError saying what load() reads."""
    with pytest.raises(FileNotFoundError, match="Evaluation.save"):
        gk.Evaluation.load(tmp_path)


def test_fisher_exact_matches_the_tea_tasting_example() -> None:
    """The two-sided Fisher exact p-value of [[3, 1], [1, 3]] is 17/35; of [[10, 0], [0, 10]] about 1.1e-5."""
    assert fisher_exact(3, 1, 1, 3) == pytest.approx(17 / 35)
    assert fisher_exact(10, 0, 0, 10) == pytest.approx(2 / 184756)


def test_compare_marks_a_worse_prompt_worse_and_an_unchanged_one_same(sampling: gk.Client) -> None:
    """At temperature 1.5 a vaguer prompt's cells are 'worse' than the baseline's; the baseline against itself 'same'."""
    baseline = sampling.evaluate(GOOD, models=["chat-mini"], scorers=[mentions], repeats=20, temperature=1.5)
    worse = sampling.evaluate(VAGUE, models=["chat-mini"], scorers=[mentions], repeats=20, temperature=1.5)
    frame = worse.compare(baseline)
    assert list(frame.change) == ["worse"] * 3
    assert list(frame.columns[:3]) == ["case_id", "model", "scorer"] and frame.p_value.max() < 0.05 / 3
    assert list(baseline.compare(baseline).change) == ["same"] * 3


def test_compare_refuses_a_baseline_that_is_not_an_evaluation(client: gk.Client, tmp_path: Path) -> None:
    """A folder path or a bad alpha is an error saying what compare() takes."""
    ev = client.evaluate([GOOD[0]], models=["chat-mini"], scorers=[mentions])
    with pytest.raises(TypeError, match=r"gk.Evaluation.load\(folder\)"):
        ev.compare(str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="alpha"):
        ev.compare(ev, alpha=5)


def test_one_repeat_runs_compare_by_their_unanimous_results(client: gk.Client) -> None:
    """With one repeat a side (temperature 0), a pass turned fail is 'worse', a fail turned pass 'better'."""
    baseline = client.evaluate([GOOD[0]], models=["chat-mini"], scorers=[gk.expect.contains("volcanoes")])
    changed = client.evaluate([{"id": "volcano", "prompt": "In one sentence, tell me about lava."}],
                              models=["chat-mini"], scorers=[gk.expect.contains("volcanoes")])  # fmt: skip
    assert list(changed.compare(baseline).change) == ["worse"]
    assert list(baseline.compare(changed).change) == ["better"]


def test_assert_no_regression_names_every_worse_cell(sampling: gk.Client) -> None:
    """The AssertionError subclass names each worse cell: case, model, scorer, before → after."""
    baseline = sampling.evaluate(GOOD[:2], models=["chat-mini"], scorers=[mentions], repeats=20, temperature=1.0)
    worse = sampling.evaluate(VAGUE[:2], models=["chat-mini"], scorers=[mentions], repeats=20, temperature=1.0)
    with pytest.raises(gk.RegressionError) as raised:
        worse.assert_no_regression(baseline)
    assert isinstance(raised.value, AssertionError) and len(raised.value.worse) == 2
    message = str(raised.value)
    assert message.startswith("2 of 2 cells got worse")
    for case in ("volcano", "tides"):
        row = raised.value.worse[raised.value.worse.case_id == case].iloc[0]
        assert (f"case {case!r}, model 'chat-mini', scorer 'mentions': {row.before_passed}/20 passed → "
                f"{row.after_passed}/20 passed") in message  # fmt: skip
    baseline.assert_no_regression(baseline)


def test_the_gate_catches_an_injected_regression_and_rarely_cries_wolf(own_gateway: Any) -> None:
    """Against a 40-repeat baseline, 20 runs of a vaguer prompt are caught ≥ 19 times, 20 unchanged runs alarm ≤ 1."""
    def run(cases: list[dict[str, Any]], repeats: int) -> gk.Evaluation:
        with client_on(own_gateway) as fresh:  # each run a client and ledger of its own, as each CI job has
            return fresh.evaluate(cases, models=["chat-mini"], scorers=[mentions], repeats=repeats, temperature=1.0,
                                  concurrency=1)  # fmt: skip

    baseline = run(GOOD, 40)
    caught = sum("worse" in set(run(VAGUE, 10).compare(baseline).change) for _ in range(20))
    alarms = sum("worse" in set(run(GOOD, 10).compare(baseline).change) for _ in range(20))
    assert caught >= 19 and alarms <= 1, (caught, alarms)
