"""The plain-text faces of gateway results: what ``print()`` and ``repr()`` show in a terminal.

``str(result)`` is readable and short (an answer is its text and one line of
model, tokens and cost; a model list is a table of ids and kinds; a job is one
line); an answer the client's cassette replayed shows, where its cost would
stand, the note its ledger row has (:func:`gatewaykit.types.replayed.not_charged_note`:
not charged, and what the recording paid); an answer from the response cache likewise; ``repr(result)`` is one line of ids and key figures, under
:data:`REPR_LIMIT` characters. Model output is untrusted: control characters
and escape sequences are removed from everything shown here (:func:`gatewaykit.terminal_text.plain_text`).
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from gatewaykit.terminal_text import plain_text
from gatewaykit.types.replayed import not_charged_note

__all__ = [
    "REPR_LIMIT",
    "completion_repr",
    "completion_text",
    "image_result_repr",
    "image_result_text",
    "job_repr",
    "job_text",
    "model_list_repr",
    "model_list_text",
    "short_repr",
    "usage_repr",
]

REPR_LIMIT = 300

def _clean(text: Any) -> str:
    return plain_text(str(text))


def _snippet(text: Optional[str], width: int = 60) -> str:
    flat = " ".join(_clean(text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _usd(amount: Optional[float]) -> str:
    if amount is None:
        return "cost unknown"
    return f"${amount:.6f}".rstrip("0").rstrip(".") if amount else "$0"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def short_repr(text: str) -> str:
    """``text`` on one line and under :data:`REPR_LIMIT` characters."""
    flat = " ".join(_clean(text).split())
    return flat if len(flat) < REPR_LIMIT else flat[: REPR_LIMIT - 3] + "…)"


def _cost(answer: Any) -> str:
    """What stands for an answer's cost: the amount, or for one not charged now (replayed from a cassette, or
    from the response cache) its ledger row's note."""
    note = not_charged_note(answer)
    if note is not None:
        return note
    usage = answer.usage
    return _usd(usage.total_cost) if usage is not None else ""


def usage_repr(usage: Any) -> str:
    cost = usage.total_cost
    return short_repr(
        f"Usage({usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens, {_usd(cost)})"
    )


def _usage_line(completion: Any) -> str:
    model, usage = completion.model, completion.usage
    parts = [_clean(model) if model else "unknown model"]
    if usage is not None:
        parts.append(f"{usage.prompt_tokens} + {usage.completion_tokens} tokens")
    cost = _cost(completion)
    if cost:
        parts.append(cost)
    return " · ".join(parts)


def completion_text(completion: Any) -> str:
    """The answer's text, then one line: model, tokens, cost."""
    message = completion.message
    body = _clean(message.content) if message is not None and message.content else ""
    if not body and message is not None and message.tool_calls:
        names = ", ".join(_clean(call.function.name) for call in message.tool_calls if call.function is not None)
        body = f"(calls tools: {names})"
    if not body and message is not None and getattr(message, "refusal", None):
        body = f"(refused: {_clean(message.refusal)})"
    footer = "— " + _usage_line(completion)
    return f"{body}\n{footer}" if body else f"(no text)\n{footer}"


def completion_repr(completion: Any) -> str:
    usage = completion.usage
    figures = f", {usage.total_tokens} tokens" if usage is not None else ""
    cost = _cost(completion)
    figures += f", {cost}" if cost else ""
    message = completion.message
    text = f", content={_snippet(message.content)!r}" if message is not None and message.content else ""
    calls = f", {_plural(len(message.tool_calls), 'tool call')}" if message is not None and message.tool_calls else ""
    return short_repr(f"ChatCompletion(id={completion.id!r}, model={completion.model!r}{text}{calls}{figures})")


def model_list_text(models: Iterable[Any]) -> str:
    """A table: one line per model, its id, its kind and (when the catalog states one) its price."""
    rows = [(_clean(model.id), model.kind, _clean(getattr(model, "price", ""))) for model in models]
    if not rows:
        return "(no models)"
    width = max(len("id"), *(len(model_id) for model_id, _, _ in rows))
    priced = any(price for _, _, price in rows)
    lines = [f"{'id':<{width}}  kind " + ("  price" if priced else ""), f"{'-' * width}  -----" + ("  -----" if priced else "")]
    lines += [f"{model_id:<{width}}  {kind:<5}" + (f"  {price}" if priced else "") for model_id, kind, price in rows]
    return "\n".join(line.rstrip() for line in lines)


def model_list_repr(models: Any) -> str:
    ids = [_clean(model.id) for model in models]
    shown = ", ".join(ids[:8]) + (", …" if len(ids) > 8 else "")
    return short_repr(f"ModelList({_plural(len(ids), 'model')}: {shown})")


def _seconds(value: Any) -> str:
    number = float(value)
    return f"{number:g} s"


def job_text(job: Any) -> str:
    """``video_… completed · video-tiers · length 4 s · 1280×720 · took 2 s · saved to waves.mp4``.

    ``length`` is the clip's (or song's) own duration, ``took`` how long the gateway took to make it.
    """
    parts = [f"{_clean(job.id)} {_clean(job.status)}"]
    if job.model:
        parts.append(_clean(job.model))
    try:
        if job.seconds:
            parts.append(f"length {_seconds(job.seconds)}")
    except (TypeError, ValueError):  # not a number: shown as the gateway sent it
        parts.append(f"length {_clean(job.seconds)}")
    size = getattr(job, "size", None)
    if size:
        parts.append(_clean(size).replace("x", "×"))
    if job.created_at and job.completed_at:
        parts.append(f"took {_seconds(job.completed_at - job.created_at)}")
    if job.error is not None:
        parts.append(f"error: {_snippet(job.error.message, 120)}")
    elif job.status == "completed":
        saved = getattr(job, "_saved_to", None)
        parts.append(f"saved to {saved}" if saved else "not saved (job.save(path))")
    return " · ".join(parts)


def job_repr(job: Any) -> str:
    size = getattr(job, "size", None)
    figures = [f"id={job.id!r}", f"status={job.status!r}", f"model={job.model!r}"]
    if size:
        figures.append(f"size={size!r}")
    if job.seconds:
        figures.append(f"seconds={job.seconds!r}")
    if job.error is not None:
        figures.append(f"error={_snippet(job.error.message)!r}")
    return short_repr(f"{type(job).__name__}({', '.join(figures)})")


def image_result_text(result: Any) -> str:
    """``image-pixels · 1 image · 768×512 · $0.0123`` (``result.images`` for the pictures)."""
    parts = [_clean(result.model or "unknown model"), _plural(len(result.data), "image")]
    if result.size:
        parts.append(_clean(result.size).replace("x", "×"))
    cost = _cost(result)
    if cost:
        parts.append(cost)
    return " · ".join(parts) + "  (result.images, result.save(dir))"


def image_result_repr(result: Any) -> str:
    cost = _cost(result)
    figures = f", {cost}" if cost else ""
    return short_repr(f"ImageResult(model={result.model!r}, {_plural(len(result.data), 'image')}, size={result.size!r}{figures})")
