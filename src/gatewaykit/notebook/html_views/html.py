"""Pure HTML renderers for every gateway object: data in, a string out.

No IPython, no I/O, no clocks, no random ids: the same object always gives
the same HTML, so nbval can compare saved outputs. Everything that came from
a model or the gateway is escaped, or rendered through the sanitising
Markdown renderer. Importing this module is cheap (markdown-it-py and nh3 load
on first use). Media renderers live in :mod:`gatewaykit.notebook.html_views.media_html`
and are re-exported here.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional, Sequence, Union

from gatewaykit.money import plural
from gatewaykit.notebook.html_views import style
from gatewaykit.types.replayed import not_charged_note
from gatewaykit.notebook.html_views.media_html import (
    render_audio_player_html,
    render_edit_html,
    render_image_grid_html,
    render_job_html,
    render_jobs_dashboard_html,
    render_video_player_html,
)
from gatewaykit.notebook.html_views.parameter_html import ID_CELL as _ID_CELL
from gatewaykit.notebook.html_views.parameter_html import render_parameters_html
from gatewaykit.notebook.html_views.style import esc

__all__ = [
    "render_audio_player_html",
    "render_chat_html",
    "render_edit_html",
    "render_error_html",
    "render_image_grid_html",
    "render_job_html",
    "render_jobs_dashboard_html",
    "render_live_chat_html",
    "render_live_part_html",
    "render_model_html",
    "render_models_table_html",
    "render_offline_banner_html",
    "render_reasoning_html",
    "render_tool_calls_html",
    "render_usage_html",
    "render_video_player_html",
]


# A displayed answer is capped: a multi-megabyte output would take seconds to parse, bloat the
# saved notebook and stall the browser. The full text stays on the object (``.content``).
MAX_DISPLAY_CHARS = 200_000


def shown_part(text: str, limit: int = MAX_DISPLAY_CHARS) -> tuple[str, int]:
    """``(the part of text to display, how many characters are left out)``; cut at a paragraph if one is near."""
    if len(text) <= limit:
        return text, 0
    cut = text.rfind("\n\n", limit // 2, limit)
    cut = cut if cut > 0 else limit
    return text[:cut], len(text) - cut


def _markdown(text: str) -> str:
    from gatewaykit.notebook.markdown_html.markdown import render_markdown

    shown, hidden = shown_part(text)
    html = render_markdown(shown)
    if hidden:
        html += (
            f'<p style="{style.MUTED}"><em>… {hidden:,} more characters not shown; '
            "the whole answer is in <code>.content</code>.</em></p>"
        )
    return html


def render_reasoning_html(reasoning: Optional[str], *, open: bool = False) -> str:
    """The reasoning trace as a collapsible block (collapsed unless ``open``)."""
    if not reasoning:
        return ""
    words = len(reasoning.split())
    flag = " open" if open else ""
    return (
        f'<details class="gk-reasoning"{flag} style="margin-bottom:0.5em">'
        f'<summary style="cursor:pointer;{style.MUTED}">Reasoning ({words:,} words)</summary>'
        f'<div style="{style.MUTED};font-size:0.9em;white-space:pre-wrap;padding-left:1em;'
        f'border-left:2px solid rgba(128,128,128,0.4)">{esc(reasoning)}</div></details>'
    )


def _pretty_arguments(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # arguments nested too deeply to parse show as text
        return arguments


def render_tool_calls_html(tool_calls: Optional[Iterable[Any]]) -> str:
    """Tool calls as a numbered list: function name and pretty-printed JSON arguments."""
    calls = list(tool_calls or [])
    if not calls:
        return ""
    items = []
    for call in calls:
        function = call.function
        items.append(
            f'<li><code style="{style.CODE}">{esc(function.name or "?")}</code>'
            f'<pre style="{style.CODE};margin:2px 0 6px 0;white-space:pre-wrap">'
            f"{esc(_pretty_arguments(function.arguments))}</pre></li>"
        )
    return (
        f'<div class="gk-tool-calls"><div style="{style.MUTED}">Tool calls</div>'
        f'<ol style="margin-top:2px">{"".join(items)}</ol></div>'
    )


def offline_content(obj: Any) -> Optional[str]:
    """``synthetic`` / ``scripted`` when the offline gateway says so (``extra_fields.offline_content``).

    ``obj`` is a response (or chunk), or its ``model_extra`` dict.
    """
    fields = obj.get("extra_fields") if isinstance(obj, dict) else (getattr(obj, "model_extra", None) or {}).get("extra_fields")
    value = fields.get("offline_content") if isinstance(fields, dict) else None
    return str(value) if value else None


def _offline_label(kind: Optional[str]) -> str:
    return f"<strong>{esc(kind)}</strong> (offline gateway)" if kind else ""


def not_charged(completion: Any, replayed: bool = False) -> Optional[str]:
    """What stands for the cost of an answer nothing was paid for: replayed from a cassette
    (``replayed``, known to whoever read the stream), or answered by the response cache; else None."""
    return style.replayed_note(completion.usage) if replayed else not_charged_note(completion)


def _chat_footer(completion: Any, finish_reason: Optional[str], note: str = "", replayed: bool = False) -> str:
    parts = [esc(completion.model), _offline_label(offline_content(completion))] + style.usage_parts(
        completion.usage, cached=not_charged(completion, replayed)
    )
    if finish_reason and finish_reason != "stop":
        parts.append(f"finish: {esc(finish_reason)}")
    if note:
        parts.append(esc(note))
    return style.footer(parts)


def render_chat_html(completion: Any, *, note: str = "", replayed: bool = False) -> str:
    """A chat completion: Markdown answer, collapsible reasoning, tool calls, quiet footer.

    ``replayed``: the answer came from the client's cassette; the footer says so instead of a cost.
    """
    choices = list(completion.choices or [])
    blocks = []
    for choice in choices:
        message = choice.message
        head = ""
        if len(choices) > 1:
            head = f'<div style="{style.MUTED};font-size:0.85em">choice {choice.index}</div>'
        body = _markdown(message.content or "")
        if message.refusal:
            body += f'<p style="{style.MUTED}"><em>Refused:</em> {esc(message.refusal)}</p>'
        if not body and not message.tool_calls:
            body = f'<p style="{style.MUTED}"><em>(no content)</em></p>'
        blocks.append(
            head
            + render_reasoning_html(message.reasoning)
            + f'<div class="gk-answer">{body}</div>'
            + render_tool_calls_html(message.tool_calls)
        )
    finish = choices[0].finish_reason if choices else None
    return (
        f'<div class="gk-chat" style="{style.CHAT_BOX}">'
        + "".join(blocks)
        + _chat_footer(completion, finish, note, replayed)
        + "</div>"
    )


def render_live_chat_html(
    answer_html: Union[str, Sequence[str]], *, reasoning: str = "", model: Optional[str] = None, note: str = "",
    offline: Optional[str] = None, replayed: bool = False,
) -> str:
    """The live view of a streaming answer: already-sanitised answer HTML and a status line.

    ``answer_html`` may be a sequence of fragments, joined here without an intermediate copy.
    ``replayed``: the stream comes from the client's cassette (the status line says it is not charged).
    """
    # Called up to ~15 times a second with a growing answer: one join, no intermediate copies.
    fragments = (answer_html,) if isinstance(answer_html, str) else tuple(answer_html)
    return "".join(
        (
            f'<div class="gk-chat gk-live" style="{style.CHAT_BOX}">',
            render_reasoning_html(reasoning, open=not any(fragments)),
            '<div class="gk-answer">',
            *fragments,
            "</div>",
            style.footer([esc(model), _offline_label(offline), esc(style.replayed_note()) if replayed else "", esc(note)]),
            "</div>",
        )
    )


def render_live_part_html(fragments: Sequence[str], *, reasoning: str = "", footer: Sequence[str] = ()) -> str:
    """One output of a streaming answer shown as several: finished blocks, or the open tail with a status line.

    ``fragments`` are already-sanitised answer HTML; ``footer`` plain parts (escaped here).
    """
    return "".join(
        (
            f'<div class="gk-chat gk-live" style="{style.CHAT_PART_BOX}">',
            render_reasoning_html(reasoning, open=not any(fragments)) if reasoning else "",
            '<div class="gk-answer">',
            *fragments,
            "</div>",
            style.footer([esc(part) for part in footer]) if footer else "",
            "</div>",
        )
    )


def render_usage_html(usage: Any) -> str:
    """A usage object as one quiet line."""
    return f'<div class="gk-usage">{" · ".join(style.usage_parts(usage))}</div>'


def render_error_html(err: Any) -> str:
    """A readable error: class, status and code, the gateway's message, and the param."""
    name = type(err).__name__
    head = " ".join(str(part) for part in (getattr(err, "status", None), getattr(err, "code", None)) if part)
    message = getattr(err, "message", None) or str(err)
    param = getattr(err, "param", None)
    extra = f'<div style="{style.MUTED}">param: <code>{esc(param)}</code></div>' if param else ""
    return (
        f'<div class="gk-error" style="{style.BOX};{style.ERROR_BOX}">'
        f"<strong>{esc(name)}</strong>"
        + (f' <span style="{style.MUTED}">{esc(head)}</span>' if head else "")
        + f'<div style="white-space:pre-wrap">{esc(message)}</div>{extra}</div>'
    )


def _parameter_summary(model: Any) -> str:
    params = model.parameters or {}
    return ", ".join(sorted(params))


def render_models_table_html(models: Iterable[Any]) -> str:
    """The catalog as a table: id, kind, price, modalities, parameters, edit support, prompt limit."""
    rows = []
    for model in models:
        edit = model.edit
        edit_text = f"up to {plural(edit.max_reference_images, 'image')}" if edit is not None and edit.supported else ""
        cells = [
            f'<code style="{style.CODE};white-space:nowrap">{esc(model.id)}</code>',  # the page's code CSS may wrap
            esc(model.kind),
            esc(model.price),
            esc(", ".join(model.input_modalities)) + " → " + esc(", ".join(model.output_modalities)),
            esc(_parameter_summary(model)),
            esc(edit_text),
            esc(f"{model.prompt_max_length:,}" if model.prompt_max_length else ""),
        ]
        rows.append(
            "<tr>"
            + "".join(f'<td style="{_ID_CELL if i == 0 else style.CELL}">{cell}</td>' for i, cell in enumerate(cells))
            + "</tr>"
        )
    header = "".join(
        f'<th style="{style.CELL}">{name}</th>'
        for name in ("model", "kind", "price", "modalities", "parameters", "edit", "prompt max")
    )
    return (
        f'<table class="gk-models {style.NO_MATH}" style="{style.TABLE}"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def render_model_html(model: Any) -> str:
    """One catalog entry: the summary row plus each parameter's allowed values and default."""
    table = render_parameters_html(model.parameters) if model.parameters else ""
    return f'<div class="gk-model" style="{style.BOX}">{render_models_table_html([model])}{table}</div>'


def render_offline_banner_html(base_url: str, *, implicit: bool = False, switches: str = "", app: bool = False) -> str:
    """The banner shown when the client uses the offline gateway (``implicit``: no key was found;
    ``switches``: the grading switches that impose it, e.g. ``GATEWAYKIT_OFFLINE=1``).

    ``app``: the notebook is served as an app (Voilà), whose users see no code and set no
    environment: the banner says what the results are, not how a developer would change that.
    """
    if switches:  # no URL: its port changes from run to run, and graded outputs must not
        return (
            f'<div class="gk-offline-banner" style="{style.BOX};{style.BANNER_BOX}">'
            f'<strong>Offline gateway</strong>: <code style="{style.CODE}">{esc(switches)}</code> is set, so '
            "every client uses the offline gateway on this machine, whatever key or URL the code gives. "
            "Answers, images, media and costs are generated locally and are not real model output.</div>"
        )
    if app:
        return (
            f'<div class="gk-offline-banner" style="{style.BOX};{style.BANNER_BOX}">'
            "<strong>Offline gateway</strong>: answers, images, media and costs here are synthetic, "
            "generated locally; they are not real model output.</div>"
        )
    reason = "No API key was found, so these are " if implicit else ""
    return (
        f'<div class="gk-offline-banner" style="{style.BOX};{style.BANNER_BOX}">'
        f"<strong>Offline gateway</strong>: {reason}synthetic results from the offline gateway "
        f'at <code style="{style.CODE}">{esc(base_url)}</code>. Answers, images, media and '
        "costs are generated locally and are not real model output. Set "
        f'<code style="{style.CODE}">SVC_API_KEY</code> and <code style="{style.CODE}">SVC_BASE_URL</code> '
        "to use the real gateway.</div>"
    )
