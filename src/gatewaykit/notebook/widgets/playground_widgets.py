"""The playground's widget pieces: a field spec as a widget, an HTML-widget display sink, and the no-widgets message.

Core ipywidgets only, used in ways ipywidgets 7.7 and 8 share (``description``,
``style={"description_width"}``, ``Layout``, ``add_class``, ``observe``).
"""

from __future__ import annotations

from typing import Any, Optional

from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.widgets.playground_fields import FieldSpec, length_text

__all__ = ["HTMLWidgetSink", "PlaygroundUnavailable", "field_widget", "unavailable_reason"]

LABEL_STYLE = {"description_width": "120px"}


class HTMLWidgetSink:
    """A display sink (``show``/``update``) that writes each bundle's HTML into an ``HTML`` widget."""

    def __init__(self, widget: Any) -> None:
        self.widget = widget

    def show(self, bundle: dict[str, Any]) -> None:
        html = bundle.get("text/html")
        self.widget.value = html if html is not None else f"<pre>{style.esc(bundle.get('text/plain', ''))}</pre>"

    update = show


class PlaygroundUnavailable:
    """What :func:`playground` returns where widgets cannot work: a message saying how to get them."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return self.reason

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        html = f'<div class="gk-playground-unavailable" style="{style.BOX}">{style.esc(self.reason)}</div>'
        return style.aligned_in_exports({"text/plain": self.reason, "text/html": html})


def unavailable_reason() -> Optional[str]:
    """Why the widgets cannot show here (a page's Python, no ipywidgets, no kernel), or None when they can."""
    from gatewaykit.notebook.cell_output.kernel import in_kernel, threads_available

    if not threads_available():
        return ("The playground sends each request from a thread, which a browser page's Python (JupyterLite) "
                "cannot start: here, call the models from cells (client.chat.ask, client.images.generate), "
                "or open the playground in JupyterLab.")

    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return ("The playground needs ipywidgets: pip install 'gatewaykit[notebook]' (or pip install ipywidgets), "
                "restart the kernel, and run gk.playground() again.")  # fmt: skip
    if not in_kernel():
        return ("The playground is an interactive form: run gk.playground() in a Jupyter notebook "
                "(JupyterLab, Notebook 7, VS Code, Colab) or as an app: voila notebooks/09-playground.ipynb.")  # fmt: skip
    return None


def field_widget(field: FieldSpec, widgets: Any) -> tuple[Any, Any]:
    """(the value widget, what to lay out) for one field spec."""
    common = dict(description=field.label, style=LABEL_STYLE)
    if field.widget == "textarea":
        area = widgets.Textarea(value=field.default or "", rows=4 if field.name != "system" else 2,
                                layout=widgets.Layout(width="95%"), **common)  # fmt: skip
        area.add_class(f"gk-field-{field.name}")
        counter = widgets.HTML(layout=widgets.Layout(width="95%"))  # right-aligned under the text area
        counter.add_class("gk-playground-count")

        def count(_change: Any = None) -> None:
            text, over = area.value, field.max_length is not None and len(area.value) > field.max_length
            color = "color:#b00020" if over else style.MUTED
            shown = style.esc(length_text(text, field.max_length))
            counter.value = f'<div style="{color};font-size:0.85em;text-align:right">{shown}</div>'

        area.observe(count, names="value")
        count()
        return area, widgets.VBox([area, counter])
    if field.widget == "dropdown":
        widget = widgets.Dropdown(options=[(str(v), v) for v in field.options], value=field.default, **common)
    elif field.widget == "checkbox":
        widget = widgets.Checkbox(value=bool(field.default), **common)
    elif field.widget == "int_slider":
        widget = widgets.IntSlider(value=field.default, min=field.low, max=field.high, step=field.step,
                                   continuous_update=False, **common)  # fmt: skip
    elif field.widget == "bounded_int":
        widget = widgets.BoundedIntText(value=field.default, min=field.low, max=field.high, step=field.step, **common)
    else:
        widget = widgets.FloatSlider(value=field.default, min=field.low, max=field.high, step=field.step,
                                     continuous_update=False, **common)  # fmt: skip
    widget.add_class(f"gk-field-{field.name}")
    return widget, widget


