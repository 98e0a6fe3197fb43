"""A model's parameters as a table (HTML and aligned text): name, type, accepted values, default.

``model.parameters`` (a :class:`gatewaykit.types.catalog.ParameterMap`) and a
single :class:`~gatewaykit.types.catalog.ParameterSpec` display this way. The
catalog is the gateway's data: every cell is escaped.
"""

from __future__ import annotations

from typing import Any, Mapping

from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.style import esc

__all__ = [
    "ID_CELL",
    "parameter_spec_text",
    "parameter_values_text",
    "parameters_text",
    "render_parameter_spec_html",
    "render_parameters_html",
]

ID_CELL = f"{style.CELL};white-space:nowrap"  # a model id or parameter name never wraps mid-word


def parameter_values_text(spec: Any) -> str:
    """What a parameter accepts: its values, or its range (``64 to 2048, step 64``)."""
    if spec.values is not None:
        return ", ".join(str(value) for value in spec.values)
    extra = getattr(spec, "__pydantic_extra__", None) or {}
    low, high = extra.get("min", extra.get("min_length")), extra.get("max", extra.get("max_length"))
    if low is None and high is None:
        return ""
    text = f"{'' if low is None else low} to {'' if high is None else high}".strip()
    if extra.get("min_length") is not None or extra.get("max_length") is not None:
        text += " characters"
    if extra.get("step"):
        text += f", step {extra['step']}"
    return text


_PARAMETER_HEADINGS = ("parameter", "type", "values", "default")


def _parameter_rows(parameters: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (name, str(spec.type), parameter_values_text(spec), "" if spec.default is None else str(spec.default))
        for name, spec in sorted(parameters.items())
    ]


def render_parameters_html(parameters: Mapping[str, Any]) -> str:
    """A parameter map (``model.parameters``) as a table: name, type, values, default."""
    rows = "".join(
        f'<tr><td style="{ID_CELL}"><code style="{style.CODE}">{esc(name)}</code></td>'
        f'<td style="{style.CELL}">{esc(kind)}</td><td style="{style.CELL}">{esc(values)}</td>'
        f'<td style="{style.CELL}">{esc(default)}</td></tr>'
        for name, kind, values, default in _parameter_rows(parameters)
    )
    header = "".join(f'<th style="{style.CELL}">{h}</th>' for h in _PARAMETER_HEADINGS)
    return (
        f'<table class="gk-parameters" style="{style.TABLE};margin-top:4px">'
        f"<thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>"
    )


def parameters_text(parameters: Mapping[str, Any]) -> str:
    """The same table as aligned plain text."""
    rows = [_PARAMETER_HEADINGS, *_parameter_rows(parameters)]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3] for row in rows
    ).rstrip()


def _spec_rows(spec: Any) -> list[tuple[str, str]]:
    return [
        ("type", str(spec.type)),
        ("values", parameter_values_text(spec)),
        ("default", "" if spec.default is None else str(spec.default)),
    ]


def render_parameter_spec_html(spec: Any) -> str:
    """One :class:`ParameterSpec` as a two-column table (type, values, default)."""
    rows = "".join(
        f'<tr><th style="{style.CELL}">{label}</th><td style="{style.CELL}">{esc(value)}</td></tr>'
        for label, value in _spec_rows(spec)
    )
    return f'<table class="gk-parameter" style="{style.TABLE}"><tbody>{rows}</tbody></table>'


def parameter_spec_text(spec: Any) -> str:
    return "\n".join(f"{label + ':':<8} {value}" for label, value in _spec_rows(spec)).rstrip()
