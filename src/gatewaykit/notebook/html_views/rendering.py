"""``mimebundle(obj)``: how every gateway object, error and the ledger show themselves in a notebook.

Importing this module registers :func:`mimebundle` with
:mod:`gatewaykit.presentation`, which every core object's ``_repr_mimebundle_``
asks, so the core never imports this package (the composition root imports it
on the first display). Each type gets a ``text/plain`` that reads
well in a terminal, a saved notebook or a diff, and ``text/html`` from the
pure renderers in :mod:`gatewaykit.notebook.html_views.html`. A rendering bug must not
break the user's cell: :func:`mimebundle` falls back to ``text/plain`` (the
altair way).
"""

from __future__ import annotations

import functools
from typing import Any

from gatewaykit.client.session_tools.batch import BatchResult
from gatewaykit.client.session_tools.comparison import Comparison
from gatewaykit.client.session_tools.evaluation import Evaluation
from gatewaykit.client.session_tools.evaluation_report import ChangesGrid, EvaluationReport
from gatewaykit.client.session_tools.gallery import Gallery
from gatewaykit.client.conversation.state import SessionState
from gatewaykit.costs.ledger import Ledger
from gatewaykit.costs.views import LedgerView
from gatewaykit.errors import GatewayError
from gatewaykit.notebook.html_views import html as views
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.media_html import job_cost
from gatewaykit.types.replayed import not_charged_note
from gatewaykit.presentation import register_renderer
from gatewaykit.types import (
    ChatCompletion,
    ChatCompletionChunk,
    Cost,
    ImageResult,
    Model,
    ModelList,
    ParameterMap,
    ParameterSpec,
    MusicJob,
    Usage,
    VideoJob,
    is_finished,
)

__all__ = ["chat_text", "mimebundle", "plain_bundle"]


def mimebundle(obj: Any) -> dict[str, Any]:
    """The display bundle of a gateway object; always has ``text/plain``."""
    try:
        bundle = _bundle(obj)
    except Exception:  # noqa: BLE001 - a display bug must never break the user's cell
        return plain_bundle(obj)
    if "text/plain" not in bundle:
        bundle["text/plain"] = _safe_repr(obj)
    return style.aligned_in_exports(bundle)


def plain_bundle(obj: Any) -> dict[str, Any]:
    return {"text/plain": _safe_repr(obj)}


def _safe_repr(obj: Any) -> str:
    try:
        return repr(obj)
    except Exception:  # noqa: BLE001
        return f"<{type(obj).__name__}>"


@functools.singledispatch
def _bundle(obj: Any) -> dict[str, Any]:
    return plain_bundle(obj)


def chat_text(completion: ChatCompletion, note: str = "", *, replayed: bool = False) -> str:
    """A chat completion as plain text: answer, tool calls, then a footer line (the HTML footer's facts:
    ``replayed`` from a cassette or cached, it says so instead of a cost)."""
    lines = []
    for choice in completion.choices:
        message = choice.message
        if len(completion.choices) > 1:
            lines.append(f"[choice {choice.index}]")
        if message.reasoning:
            lines.append(f"(reasoning: {len(message.reasoning.split()):,} words, not shown)")
        if message.content:
            shown, hidden = views.shown_part(message.content)
            lines.append(shown + (f"\n… {hidden:,} more characters not shown (see .content)" if hidden else ""))
        if message.refusal:
            lines.append(f"Refused: {message.refusal}")
        for call in message.tool_calls or []:
            lines.append(f"tool call: {call.function.name}({call.function.arguments})")
    finish = completion.choices[0].finish_reason if completion.choices else None
    offline = views.offline_content(completion)
    foot = [completion.model or "", f"{offline} (offline gateway)" if offline else "",
            style.usage_text(completion.usage, cached=views.not_charged(completion, replayed))]  # fmt: skip
    if finish and finish != "stop":
        foot.append(f"finish: {finish}")
    foot.append(note)
    lines.append("— " + " · ".join(part for part in foot if part))
    return "\n".join(lines)


@_bundle.register
def _(obj: ChatCompletion) -> dict[str, Any]:
    return {"text/plain": chat_text(obj), "text/html": views.render_chat_html(obj)}


@_bundle.register
def _(obj: ChatCompletionChunk) -> dict[str, Any]:
    pieces = [choice.delta.content or "" for choice in obj.choices]
    text = "".join(pieces)
    return {"text/plain": f"ChatCompletionChunk({obj.model!r}, {text!r})"}


@_bundle.register
def _(obj: ImageResult) -> dict[str, Any]:
    count = len(obj.data)
    cost = obj.usage.total_cost if obj.usage is not None else None
    facts = [obj.model or "", obj.size or "", f"{count} image{'s' if count != 1 else ''}",
             not_charged_note(obj) or style.format_cost(cost)]  # fmt: skip
    plain = f"ImageResult({', '.join(fact for fact in facts if fact)})"
    return {"text/plain": plain, "text/html": views.render_image_grid_html(obj)}


def _job_bundle(job: Any) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.players import job_player_html

    facts = [job.model or "", job.status]
    if getattr(job, "size", None):
        facts.append(job.size)
    if job.seconds:
        facts.append(f"{job.seconds}s")
    if job.status == "failed" and job.error is not None:
        facts.append(f"error: {job.error.message}")
    plain = f"{type(job).__name__}({job.id!r}, {', '.join(facts)})"
    player = job_player_html(job) if job.status == "completed" else ""
    hint = ""
    if not is_finished(job.status):
        hint = "Still running: job.wait() or gatewaykit.notebook.show_progress(job) follows it live."
    cost = ""
    if job.status == "completed":  # what it cost, as the live card that followed it says (the ledger's row)
        cost = job_cost(job)
        if cost:
            plain = plain[:-1] + f", {cost})"
    return {"text/plain": plain, "text/html": views.render_job_html(job, player=player, hint=hint, cost=cost)}


_bundle.register(VideoJob, _job_bundle)
_bundle.register(MusicJob, _job_bundle)


@_bundle.register
def _(obj: SessionState) -> dict[str, Any]:
    from gatewaykit.client.conversation.transcript import to_text
    from gatewaykit.notebook.html_views.conversation_html import render_conversation_html

    return {"text/plain": to_text(obj), "text/html": render_conversation_html(obj)}


@_bundle.register
def _(obj: Model) -> dict[str, Any]:
    params = ", ".join(sorted(obj.parameters or {}))
    plain = f"Model({obj.id!r}, kind={obj.kind!r}" + (f", parameters: {params}" if params else "") + ")"
    return {"text/plain": plain, "text/html": views.render_model_html(obj)}


@_bundle.register
def _(obj: ModelList) -> dict[str, Any]:
    lines = [f"ModelList ({len(obj)} models)"]
    lines += [f"  {model.id:<24} {model.kind:<5}  {model.price}".rstrip() for model in obj]
    return {"text/plain": "\n".join(lines), "text/html": views.render_models_table_html(obj)}


@_bundle.register
def _(obj: ParameterMap) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.parameter_html import parameters_text, render_parameters_html

    return {"text/plain": parameters_text(obj), "text/html": render_parameters_html(obj)}


@_bundle.register
def _(obj: ParameterSpec) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.parameter_html import parameter_spec_text, render_parameter_spec_html

    return {"text/plain": parameter_spec_text(obj), "text/html": render_parameter_spec_html(obj)}


@_bundle.register
def _(obj: BatchResult) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.batch_html import batch_text, render_batch_html

    return {"text/plain": batch_text(obj), "text/html": render_batch_html(obj)}


@_bundle.register
def _(obj: Comparison) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.comparison_html import render_comparison_html

    return {"text/plain": str(obj), "text/html": render_comparison_html(obj)}


@_bundle.register
def _(obj: Evaluation) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.evaluation_html import render_evaluation_html

    return {"text/plain": str(obj), "text/html": render_evaluation_html(obj)}


@_bundle.register
def _(obj: ChangesGrid) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.evaluation_report_html import render_changes_html

    return {"text/plain": repr(obj), "text/html": render_changes_html(obj)}


@_bundle.register
def _(obj: EvaluationReport) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.evaluation_report_html import render_report_html

    return {"text/plain": repr(obj), "text/html": render_report_html(obj)}


@_bundle.register
def _(obj: Gallery) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.gallery_html import render_gallery_html

    return {"text/plain": str(obj), "text/html": render_gallery_html(obj)}


@_bundle.register
def _(obj: Usage) -> dict[str, Any]:
    return {"text/plain": f"Usage({style.usage_text(obj)})", "text/html": views.render_usage_html(obj)}


@_bundle.register
def _(obj: Cost) -> dict[str, Any]:
    return {"text/plain": f"Cost({style.format_cost(obj.total_cost)})"}


@_bundle.register
def _(obj: GatewayError) -> dict[str, Any]:
    return {"text/plain": str(obj), "text/html": views.render_error_html(obj)}


@_bundle.register(Ledger)
@_bundle.register(LedgerView)
def _(obj: Any) -> dict[str, Any]:
    from gatewaykit.notebook.html_views.ledger_html import render_ledger

    text, html = render_ledger(obj._display_state())
    return {"text/plain": text, "text/html": html}


register_renderer(mimebundle)
