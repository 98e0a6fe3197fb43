"""``Client.evaluate`` / ``AsyncClient.evaluate``: every case on every model, scored, shown as it goes.

The plan is checked first, so nothing is sent for a typo. ``dry_run=True`` quotes every cell (and every
judge) without sending; ``checkpoint=path`` reuses the cells an earlier run stored and stores each new one
as it finishes, so a run killed half-way pays each cell once; ``Client(confirm_over=)`` asks once for the
whole evaluation. The cells run at most ``concurrency`` at a time, each tagged in the ledger and scored
when it ends, and the display fills the grid as they do. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any, Callable, Optional

from gatewaykit.client.core.comparison_view import GuardedComparisonView, evaluation_view_of
from gatewaykit.client.session_tools.comparison import Timer, kind_of, settle
from gatewaykit.client.session_tools.comparison_runs import send_prompt
from gatewaykit.client.session_tools.evaluation import Evaluation, EvaluationCell
from gatewaykit.client.session_tools.evaluation_plan import EvaluationPlan, cell_key, plan_evaluation
from gatewaykit.client.session_tools.evaluation_store import EvaluationStore
from gatewaykit.client.session_tools.scoring import Judge, plain_score, scorer_output, verdict_score
from gatewaykit.costs.assumed_output import assumed_output
from gatewaykit.request_numbers import as_integer

__all__ = ["run_evaluation", "run_evaluation_async"]


def _plan(catalog: Any, cases: Any, models: Any, scorers: Any, repeats: int, concurrency: int, params: dict[str, Any]) -> EvaluationPlan:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"evaluate(concurrency=...) is a whole number from 1, not {concurrency!r}")
    plan = plan_evaluation(catalog, cases, models, scorers, repeats, params)
    for name, scorer in plan.scorers:
        if isinstance(scorer, Judge) and kind_of(catalog, scorer.model, "judge") != "chat":
            raise ValueError(f"judge(model={scorer.model!r}) is not a chat model; a judge answers in words")
    return plan


def _repeat_params(cell: EvaluationCell, params: dict[str, Any]) -> dict[str, Any]:
    """A cell's request keywords: with ``seed=s``, repeat r sends ``seed=s + r`` (reproducible, yet the repeats differ)."""
    seed = params.get("seed")
    if cell.repeat and isinstance(seed, int) and not isinstance(seed, bool):
        return {**params, "seed": seed + cell.repeat}
    return dict(params)


def _send(client: Any, cell: EvaluationCell, params: dict[str, Any], stream: bool) -> Callable[[], Any]:
    return functools.partial(send_prompt, client, cell.kind, cell.model, cell.prompt, _repeat_params(cell, params), stream)


def _judges(plan: EvaluationPlan) -> list[Judge]:
    return [scorer for _, scorer in plan.scorers if isinstance(scorer, Judge)]


def _judge_calls(client: Any, plan: EvaluationPlan, cells: list[EvaluationCell],
                 params: dict[str, Any]) -> list[Callable[[], Any]]:
    """Each judge's request per cell for a quote, with a stand-in for the output it will grade: a chat's answer as
    long as it may run (its ``max_tokens``, else the output its quote assumes), images as many pictures as the
    request asks for (priced as pictures are), video and music their description."""
    calls: list[Callable[[], Any]] = []
    pictures = _pictures_asked(params)
    for scorer in _judges(plan):
        for cell in cells:
            stand_in: Any = (_longest_answer(client, cell, params) if cell.kind == "chat"
                             else _StandIn(pictures if cell.kind == "image" else 0))
            request = scorer.request(stand_in, cell.case, cell.kind)
            calls.append(functools.partial(client.chat.completions.create, **request))
    return calls


def _to_judge(plan: EvaluationPlan, store: Optional[EvaluationStore], todo: list[EvaluationCell]) -> list[EvaluationCell]:
    """The cells a judge will be asked about: those to send, and restored ones missing a verdict."""
    missing = [c for c in plan.evaluation.cells if c.restored and store is not None
               and any(store.verdict(c, judge) is None for judge in _judges(plan))]  # fmt: skip
    return missing + todo


def _longest_answer(client: Any, cell: EvaluationCell, params: dict[str, Any]) -> str:
    """Text a quote counts as the most tokens a chat cell's answer may have (4 characters a token, as a quote
    counts a prompt); the prompt when nothing bounds the answer."""
    bound = as_integer(params.get("max_completion_tokens")) or as_integer(params.get("max_tokens"))
    if bound is None:
        assumed = assumed_output(client._catalog_fields(cell.model))
        bound = assumed[0] if assumed is not None else None
    return cell.prompt if bound is None else "word" * bound


class _StandIn:
    """What a judge's quote reads in place of a media output not made yet: ``count`` pictures, or a finished job."""

    status = "completed"
    seconds = None

    def __init__(self, count: int) -> None:
        self.data = [_PICTURE] * count


_PICTURE = SimpleNamespace(b64_json=None, url="data:image/png;base64,")  # a picture's part; its size is the quote's


def _pictures_asked(params: dict[str, Any]) -> int:
    """How many pictures an image request with ``params`` makes (``n``, 1 by default; a judge sees at most 4)."""
    count = params.get("n")
    return min(4, count) if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1


def _finish_request(client: Any, cell: EvaluationCell, timer: Timer) -> None:
    cell.latency_s = timer.stop()
    settle(cell, client.ledger.rows_as_recorded(cell.tag))  # type: ignore[arg-type]  # a cell has an entry's fields


def _score_sync(client: Any, plan: EvaluationPlan, cell: EvaluationCell, store: Optional[EvaluationStore]) -> None:
    if not cell.ok:
        return
    output = scorer_output(cell)
    for name, scorer in plan.scorers:
        try:
            if isinstance(scorer, Judge):
                verdict = store.verdict(cell, scorer) if store is not None else None
                if verdict is None:
                    with client.ledger.tag(plan.tag, f"{plan.tag}-judge"):
                        completion = client.chat.completions.create(**scorer.request(output, cell.case, cell.kind))
                    verdict = scorer.verdict(completion)
                    if store is not None:
                        store.keep_verdict(cell, scorer, verdict)
                verdict_score(cell, scorer, verdict)
            else:
                plain_score(cell, name, scorer)
        except Exception as exc:  # noqa: BLE001 - a scorer failing is that cell's score, the rest go on
            cell.score_errors[name] = exc


async def _score_async(client: Any, plan: EvaluationPlan, cell: EvaluationCell, store: Optional[EvaluationStore]) -> None:
    if not cell.ok:
        return
    output = scorer_output(cell)
    for name, scorer in plan.scorers:
        try:
            if isinstance(scorer, Judge):
                verdict = store.verdict(cell, scorer) if store is not None else None
                if verdict is None:
                    with client.ledger.tag(plan.tag, f"{plan.tag}-judge"):
                        completion = await client.chat.completions.create(**scorer.request(output, cell.case, cell.kind))
                    verdict = scorer.verdict(completion)
                    if store is not None:
                        store.keep_verdict(cell, scorer, verdict)
                verdict_score(cell, scorer, verdict)
            else:
                plain_score(cell, name, scorer)
        except Exception as exc:  # noqa: BLE001
            cell.score_errors[name] = exc


def _judging(client: Any, plan: EvaluationPlan) -> tuple[float, int]:
    """What the judges' requests cost (their ledger rows' total), and how many of them the cassette replayed."""
    judged = f"{plan.tag}-judge"
    rows = client.ledger.rows_as_recorded(judged)
    return sum(row.get("total_cost") or 0.0 for row in rows), sum(1 for row in rows if row.get("cost_source") == "replayed")


def _open(client: Any, plan: EvaluationPlan, checkpoint: Any, params: dict[str, Any]) -> tuple[Optional[EvaluationStore], list[EvaluationCell]]:
    """The checkpoint (restoring what it holds) and the cells still to send."""
    cells = plan.evaluation.cells
    if checkpoint is None:
        return None, list(cells)
    store = EvaluationStore(checkpoint, client)
    try:
        calls = [_send(client, cell, params, False) for cell in cells]
        todo = store.restore(cells, calls, [cell_key(c) for c in cells], _judges(plan))
    except BaseException:
        store.close()
        raise
    return store, todo


def _close(client: Any, plan: EvaluationPlan, store: Optional[EvaluationStore], view: GuardedComparisonView) -> Evaluation:
    evaluation = plan.evaluation
    try:
        evaluation.judge_cost, evaluation.judge_replayed = _judging(client, plan)
    finally:
        if store is not None:
            store.close()
        view.close(evaluation)
    if store is not None:
        store.warn()
    return evaluation


def run_evaluation(client: Any, cases: Any, models: Any, scorers: Any, repeats: int, concurrency: int,
                   checkpoint: Any, dry_run: bool, confirm: bool, params: dict[str, Any]) -> Evaluation:  # fmt: skip
    """``Client.evaluate``: the cells on a thread pool (see the module docstring)."""
    from gatewaykit.client.session_tools.batch import run_each

    from gatewaykit.client.core.confirmation import collect_quote, confirm_quote, confirmed_call

    catalog = client.models.cached or client.models.list()
    plan = _plan(catalog, cases, models, scorers, repeats, concurrency, params)
    evaluation = plan.evaluation
    if dry_run:
        evaluation.dry_run = True
        calls = [_send(client, cell, params, False) for cell in evaluation.cells] + _judge_calls(client, plan, evaluation.cells, params)
        evaluation.quote = collect_quote(client, calls)
        return evaluation
    store, todo = _open(client, plan, checkpoint, params)
    try:
        confirming = client._confirm_over is not None
        if confirming and not confirm:
            calls = [_send(client, c, params, False) for c in todo] + _judge_calls(client, plan, _to_judge(plan, store, todo), params)
            quote = collect_quote(client, calls)
            confirm_quote(client, quote, how="confirm=True to evaluate")
    except BaseException:
        if store is not None:
            store.close()
        raise
    view = evaluation_view_of(client._display, evaluation)
    streams = evaluation.kind == "chat" and view.streams
    def restored(cell: EvaluationCell) -> None:  # from the checkpoint: only its scores (a new judge may ask)
        _score_sync(client, plan, cell, store)
        view.finished(cell)

    def one(cell: EvaluationCell) -> None:
        view.started(cell)
        timer = Timer()
        try:
            with client.ledger.tag(plan.tag, cell.tag):
                result = _send(client, cell, params, streams)()
                if streams:
                    for chunk in result:
                        view.chunk(cell, chunk)
                    result = result.final()
                elif cell.kind in ("video", "music"):
                    result = result.wait(on_update=functools.partial(view.job_update, cell))
            cell.result = result
        except Exception as exc:  # noqa: BLE001 - one cell failing is shown in its place
            cell.error = exc
        _finish_request(client, cell, timer)
        if store is not None and cell.ok:
            store.keep(cell)
        _score_sync(client, plan, cell, store)
        view.finished(cell)

    jobs: list[Callable[[], Any]] = [functools.partial(restored, c) for c in evaluation.cells if c.restored]
    jobs += [functools.partial(one, cell) for cell in todo]
    if confirming:
        jobs = [confirmed_call(job) for job in jobs]
    try:
        if jobs:
            run_each(jobs, concurrency, "gatewaykit-evaluate")
    finally:
        _close(client, plan, store, view)
    return evaluation


async def run_evaluation_async(client: Any, cases: Any, models: Any, scorers: Any, repeats: int, concurrency: int,
                               checkpoint: Any, dry_run: bool, confirm: bool, params: dict[str, Any]) -> Evaluation:  # fmt: skip
    """``AsyncClient.evaluate``: the cells as tasks, at most ``concurrency`` at once."""
    import asyncio

    from gatewaykit.client.core.confirmation import collect_async_quote, confirm_quote, confirmed_async_call

    catalog = client.models.cached or await client.models.list()
    plan = _plan(catalog, cases, models, scorers, repeats, concurrency, params)
    evaluation = plan.evaluation
    if dry_run:
        evaluation.dry_run = True
        calls = [_send(client, cell, params, False) for cell in evaluation.cells] + _judge_calls(client, plan, evaluation.cells, params)
        evaluation.quote = await collect_async_quote(client, calls)
        return evaluation
    store, todo = _open(client, plan, checkpoint, params)
    try:
        confirming = client._confirm_over is not None
        if confirming and not confirm:
            calls = [_send(client, c, params, False) for c in todo] + _judge_calls(client, plan, _to_judge(plan, store, todo), params)
            quote = await collect_async_quote(client, calls)
            confirm_quote(client, quote, how="confirm=True to evaluate")
    except BaseException:
        if store is not None:
            store.close()
        raise
    view = evaluation_view_of(client._display, evaluation)
    streams = evaluation.kind == "chat" and view.streams
    gate = asyncio.Semaphore(concurrency)

    async def restored(cell: EvaluationCell) -> None:
        async with gate:
            await _score_async(client, plan, cell, store)
            view.finished(cell)

    async def one(cell: EvaluationCell) -> None:
        async with gate:
            view.started(cell)
            timer = Timer()
            try:
                with client.ledger.tag(plan.tag, cell.tag):
                    result = await _send(client, cell, params, streams)()
                    if streams:
                        async for chunk in result:
                            view.chunk(cell, chunk)
                        result = await result.final()
                    elif cell.kind in ("video", "music"):
                        result = await result.wait(on_update=functools.partial(view.job_update, cell))
                cell.result = result
            except Exception as exc:  # noqa: BLE001
                cell.error = exc
            _finish_request(client, cell, timer)
            if store is not None and cell.ok:
                store.keep(cell)
            await _score_async(client, plan, cell, store)
            view.finished(cell)

    jobs: list[Callable[[], Any]] = [functools.partial(restored, c) for c in evaluation.cells if c.restored]
    jobs += [functools.partial(one, cell) for cell in todo]
    if confirming:
        jobs = [confirmed_async_call(job) for job in jobs]
    try:
        await asyncio.gather(*(job() for job in jobs))
    finally:
        _close(client, plan, store, view)
    return evaluation
