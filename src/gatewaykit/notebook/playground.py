"""``gk.playground()``: an interactive form over the catalog, for trying models without code.

A kind picker and a model picker sit above a form built from the model's
catalog entry (:mod:`gatewaykit.notebook.playground_fields`); changing the
model rebuilds the form. Run sends the request from a background thread (the
kernel stays free, and a second click while a run is in flight is ignored)
and shows the result with the notebook layer's own renderers, through a sink
that writes into an ``HTML`` widget: chat streams live, images inline, jobs
show their progress and then the player. The client's pre-send checks run on
every change once the form was touched and again on Run; their message shows
under the form, never a traceback. Every row this playground adds to the
client's ledger carries a tag of its own; the cost line sums those rows.

Only core ipywidgets are used, in ways ipywidgets 7.7 and 8 share (Colab's
widget manager is switched on first). Without ipywidgets, or outside a
kernel, :func:`playground` returns a :class:`PlaygroundUnavailable` whose
text says how to get the widgets.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Optional

from gatewaykit.errors import GatewayError, JobFailedError, JobTimeoutError
from gatewaykit.notebook import html as views
from gatewaykit.notebook import style
from gatewaykit.notebook.playground_fields import (
    FieldSpec,
    build_request,
    check_request,
    fields_for,
    length_text,
    models_by_kind,
    skipped_parameters,
)

__all__ = ["HTMLWidgetSink", "Playground", "PlaygroundUnavailable", "playground", "unavailable_reason"]

WIDGET_FALLBACK = "(The playground is an ipywidgets form: run this cell in Jupyter, with its kernel, to show it.)"
_counter = itertools.count(1)


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
        return {"text/plain": self.reason, "text/html": html}


def unavailable_reason() -> Optional[str]:
    """Why the widgets cannot show here (no ipywidgets, no kernel), or None when they can."""
    from gatewaykit.notebook.kernel import in_kernel

    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return ("The playground needs ipywidgets: pip install 'gatewaykit[notebook]' (or pip install ipywidgets), "
                "restart the kernel, and run gk.playground() again.")  # fmt: skip
    if not in_kernel():
        return ("The playground is an interactive form: run gk.playground() in a Jupyter notebook "
                "(JupyterLab, Notebook 7, VS Code, Colab) or as an app: voila notebooks/09-playground.ipynb.")  # fmt: skip
    return None


def _field_widget(field: FieldSpec, widgets: Any) -> tuple[Any, Any]:
    """(the value widget, what to lay out) for one field spec."""
    common = dict(description=field.label, style={"description_width": "120px"})
    if field.widget == "textarea":
        area = widgets.Textarea(value=field.default or "", rows=4 if field.name != "system" else 2,
                                layout=widgets.Layout(width="95%"), **common)  # fmt: skip
        counter = widgets.HTML(layout=widgets.Layout(margin="0 0 0 124px"))
        counter.add_class("gk-playground-count")

        def count(_change: Any = None) -> None:
            text, over = area.value, field.max_length is not None and len(area.value) > field.max_length
            color = "color:#b00020" if over else style.MUTED
            counter.value = f'<span style="{color};font-size:0.85em">{style.esc(length_text(text, field.max_length))}</span>'

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


class Playground:
    """The form, its Run button, the result and the cost; ``widget`` is the whole thing."""

    def __init__(self, client: Any, widgets: Any) -> None:
        self.client, self._widgets = client, widgets
        self.tag = f"playground-{next(_counter)}"
        self.catalog = client.models.list()
        self.kinds = models_by_kind(self.catalog)
        first = next(iter(self.kinds))
        self.kind_picker = widgets.ToggleButtons(options=list(self.kinds), value=first, description="Kind")
        self.model_picker = widgets.Dropdown(options=self.kinds[first], value=self.kinds[first][0], description="Model")
        self.form = widgets.VBox()
        self.message = widgets.HTML()
        self.message.add_class("gk-playground-message")
        self.run_button = widgets.Button(description="Run", button_style="primary", icon="play")
        self.run_button.add_class("gk-playground-run")
        self.result = widgets.HTML()
        self.result.add_class("gk-playground-result")
        self.cost = widgets.HTML()
        self.cost.add_class("gk-playground-cost")
        self.values: dict[str, Any] = {}
        self.thread: Optional[threading.Thread] = None
        self.runs = 0
        self._lock = threading.Lock()
        self._running = self._touched = False
        self.kind_picker.observe(self._kind_changed, names="value")
        self.model_picker.observe(lambda _change: self._rebuild(), names="value")
        self.run_button.on_click(self._clicked)
        pickers = widgets.HBox([self.kind_picker, self.model_picker])
        self.widget = widgets.VBox([pickers, self.form, self.message, self.run_button, self.cost, self.result])
        self.widget.add_class("gk-playground")
        self._rebuild()
        self._show_cost()

    @property
    def model(self) -> Any:
        return self.catalog[self.model_picker.value]

    def _kind_changed(self, change: Any) -> None:
        ids = self.kinds[change["new"]]
        self.model_picker.options = ids  # kinds share no ids, so the value changes: observed, rebuilds the form
        if self.model_picker.value != ids[0]:
            self.model_picker.value = ids[0]

    def _rebuild(self) -> None:
        """A fresh form for the selected model."""
        entry = self.model
        self.values, rows = {}, []
        for field in fields_for(entry):
            widget, row = _field_widget(field, self._widgets)
            self.values[field.name] = widget
            widget.observe(self._changed, names="value")
            rows.append(row)
        skipped = skipped_parameters(entry)
        if skipped:
            note = f"Not in the playground: {', '.join(skipped)} (pass it to the client call in code)."
            rows.append(self._widgets.HTML(f'<span style="{style.MUTED};font-size:0.85em">{style.esc(note)}</span>'))
        self.form.children = rows
        self._touched = False
        self.message.value = ""

    def _changed(self, _change: Any) -> None:
        self._touched = True
        self.check()

    def request(self) -> dict[str, Any]:
        """The keyword arguments the Run button would send now."""
        return build_request(self.model, {name: widget.value for name, widget in self.values.items()})

    def check(self) -> Optional[GatewayError]:
        """Run the client's pre-send checks on the form; show and return the error (None when valid)."""
        try:
            check_request(self.model, self.request())
        except GatewayError as error:
            self.message.value = views.render_error_html(error)
            return error
        self.message.value = ""
        return None

    def _clicked(self, _button: Any = None) -> None:
        with self._lock:
            if self._running:
                return  # a click while a run is in flight: ignored
            self._running = True
        self.run_button.disabled = True
        entry, request = self.model, self.request()
        if self.check() is not None:
            self._finish()
            return
        from gatewaykit.notebook.kernel import start_thread

        self.thread = start_thread(lambda: self._run(entry, request), name="gatewaykit-playground")

    def _run(self, entry: Any, request: dict[str, Any]) -> None:
        sink = HTMLWidgetSink(self.result)
        following_job = False
        try:
            with self.client.ledger.tag(self.tag):
                sink.show({"text/html": f'<div style="{style.MUTED}">Sending to {style.esc(entry.id)}…</div>'})
                if entry.kind == "chat":
                    from gatewaykit.notebook.live import render_stream

                    render_stream(self.client.chat.completions.create(stream=True, **request), sink=sink, model=entry.id)
                elif entry.kind == "image":
                    from gatewaykit.notebook.rendering import mimebundle

                    sink.show(mimebundle(self.client.images.generate(**request)))
                else:
                    from gatewaykit.notebook.jobs import wait_with_progress

                    create = self.client.videos.create if entry.kind == "video" else self.client.music.create
                    job = create(**request)
                    following_job = True
                    wait_with_progress(job, sink=sink)
        except (JobFailedError, JobTimeoutError) as error:
            if not following_job:
                sink.show({"text/html": views.render_error_html(error)})
        except Exception as error:  # noqa: BLE001 - shown in the result area, never a traceback in a callback
            sink.show({"text/plain": str(error), "text/html": views.render_error_html(error)})
        finally:
            self.runs += 1
            self._finish()

    def _finish(self) -> None:
        self._show_cost()
        with self._lock:
            self._running = False
        self.run_button.disabled = False

    def total(self) -> tuple[float, int]:
        """(USD of this playground's charged rows with an amount, charged rows without one)."""
        rows = [row for row in self.client.ledger.rows if self.tag in row["tags"] and row["charged"]]
        priced = sum(row["total_cost"] for row in rows if row["total_cost"] is not None)
        return priced, sum(1 for row in rows if row["total_cost"] is None)

    def _show_cost(self) -> None:
        usd, unpriced = self.total()
        text = f"Cost of this playground: {style.format_cost(usd)} ({self.runs} run{'s' if self.runs != 1 else ''})"
        if unpriced:
            text += f" + {unpriced} job{'s' if unpriced != 1 else ''} charged at a price the gateway does not report"
        self.cost.value = f'<div style="{style.MUTED}">{style.esc(text)}</div>'

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the run in flight (if any) ends; True when none is left running."""
        if self.thread is not None:
            self.thread.join(timeout)
        return not self._running

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # Built by hand (not widget._repr_mimebundle_, which ipywidgets 7 lacks); both versions render view 2.0.
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        return {"text/plain": WIDGET_FALLBACK, "application/vnd.jupyter.widget-view+json": view}


def playground(client: Any = None) -> Any:
    """The interactive playground (a :class:`Playground`), or a :class:`PlaygroundUnavailable` saying why not."""
    reason = unavailable_reason()
    if reason is not None:
        return PlaygroundUnavailable(reason)
    import ipywidgets

    from gatewaykit.notebook.cancel import enable_colab_widgets

    enable_colab_widgets()
    if client is None:
        from gatewaykit import Client

        client = Client()
    return Playground(client, ipywidgets)
