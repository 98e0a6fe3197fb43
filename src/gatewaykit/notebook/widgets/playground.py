"""``gk.playground()``: an interactive form over the catalog, for trying models without code.

A kind and a model picker above a form built from the model's catalog entry; Run sends from a
background thread and shows the result with the notebook layer's renderers; the client's pre-send
checks show their message under the form. Rows it adds carry a tag of its own (the cost line sums
them). Only core ipywidgets (7.7 and 8); without them it returns a :class:`PlaygroundUnavailable`.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from typing import Any, Optional

from gatewaykit.errors import GatewayError, JobFailedError, JobTimeoutError
from gatewaykit.notebook.html_views import html as views
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.cell_output.kernel import CellThread, route_to_frontend_subshell, sleep_until, start_thread
from gatewaykit.notebook.widgets.playground_fields import (
    build_request,
    check_request,
    fields_for,
    models_by_kind,
    prompt_is_blank,
    skipped_parameters,
)
from gatewaykit.notebook.widgets.playground_widgets import (
    LABEL_STYLE,
    HTMLWidgetSink,
    PlaygroundUnavailable,
    field_widget,
    unavailable_reason,
)
from gatewaykit.notebook.widgets.class_budget import class_budget_text

__all__ = ["Playground", "playground"]

PROMPT_HINT = "Write a prompt, then press Run."
WIDGET_FALLBACK = "(The playground is an ipywidgets form: run this cell in Jupyter, with its kernel, to show it.)"
_counter = itertools.count(1)


class Playground:
    """The form, its Run button, the result and the cost; ``widget`` is the whole thing."""

    def __init__(self, client: Any, widgets: Any) -> None:
        self.client, self._widgets = client, widgets
        self.tag = f"playground-{next(_counter)}"
        self.catalog = client.models.list()
        self.kinds = models_by_kind(self.catalog)
        first = next(iter(self.kinds))
        self.kind_picker = widgets.ToggleButtons(options=list(self.kinds), value=first, style={"button_width": "80px"},
                                                 layout=widgets.Layout(width="auto"))  # fmt: skip
        # The label beside (not above) the buttons, lined up with the other fields' descriptions.
        label_width = widgets.Layout(width=LABEL_STYLE["description_width"])
        kind_label = widgets.HTML('<div style="text-align:right">Kind</div>', layout=label_width)
        self.model_picker = widgets.Dropdown(options=self.kinds[first], value=self.kinds[first][0],
                                             description="Model", style=LABEL_STYLE)  # fmt: skip
        self.form = widgets.VBox()
        self.message = widgets.HTML()
        self.message.add_class("gk-playground-message")
        self.run_button = widgets.Button(description="Run", button_style="primary", icon="play")
        self.run_button.add_class("gk-playground-run")
        self.cancel_button = widgets.Button(description="Cancel", button_style="warning", icon="stop",
                                            layout=widgets.Layout(display="none"))  # fmt: skip
        self.cancel_button.add_class("gk-playground-cancel")
        self.job: Any = None  # the job of the run in flight, if any
        self.stopping: Optional[threading.Event] = None  # set by Stop while a chat answer streams
        self.result = widgets.HTML()
        self.result.add_class("gk-playground-result")
        self.result.add_class("jp-RenderedHTMLCommon")  # JupyterLab's (and Voilà's) styles for tables and code
        self.cost = widgets.HTML()
        self.cost.add_class("gk-playground-cost")
        self.quote = widgets.HTML()  # what Run would cost, beside the button, updated as the form changes
        self.quote.add_class("gk-playground-quote")
        self.values: dict[str, Any] = {}
        self.thread: Optional[CellThread] = None  # the run in flight's thread (kernel.start_thread)
        self.runs = 0
        self._lock = threading.Lock()
        self._running = False
        self.kind_picker.observe(self._kind_changed, names="value")
        self.model_picker.observe(lambda _change: self._rebuild(), names="value")
        self.run_button.on_click(self._clicked)
        self.cancel_button.on_click(self._cancel)
        buttons = widgets.HBox([self.run_button, self.cancel_button, self.quote])
        kinds = widgets.HBox([kind_label, self.kind_picker])
        self.widget = widgets.VBox([kinds, self.model_picker, self.form, self.message, buttons, self.cost, self.result])
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
            widget, row = field_widget(field, self._widgets)
            self.values[field.name] = widget
            widget.observe(self._changed, names="value")
            rows.append(row)
        skipped = skipped_parameters(entry)
        if skipped:
            note = f"Not in the playground: {', '.join(skipped)} (pass it to the client call in code)."
            rows.append(self._widgets.HTML(f'<span style="{style.MUTED};font-size:0.85em">{style.esc(note)}</span>'))
        old, self.form.children = self.form.children, rows
        for widget in old:
            _close(widget)
        for name in self.form._dom_classes:
            self.form.remove_class(name)
        self.form.add_class("gk-form-" + re.sub(r"[^A-Za-z0-9_-]", "-", entry.id))  # which model the form is for
        self.message.value = ""
        route_to_frontend_subshell(self.widget)  # the new fields too: Run and Cancel work while another cell runs
        self.check()  # the new form's quote (and any check message)

    def _changed(self, _change: Any) -> None:
        self.check()

    def request(self) -> dict[str, Any]:
        """The keyword arguments the Run button would send now."""
        return build_request(self.model, {name: widget.value for name, widget in self.values.items()})

    def check(self) -> Optional[GatewayError]:
        """Run the client's pre-send checks on the form; show and return the error (None when valid).

        An empty prompt (a fresh form, a switch of kind) is not a mistake: nothing was sent, so it shows a
        quiet hint, never an error card, though Run still sends nothing.
        """
        request = self.request()
        try:
            check_request(self.model, request)
        except GatewayError as error:
            if prompt_is_blank(self.model, request):
                self.message.value = f'<span class="gk-playground-hint" style="{style.MUTED}">{style.esc(PROMPT_HINT)}</span>'
            else:
                self.message.value = views.render_error_html(error)
            self.quote.value = ""
            return error
        self.message.value = ""
        self._show_quote(request)
        return None

    def _show_quote(self, request: dict[str, Any]) -> None:
        """The quote of what Run would send (videos, songs, images; a chat's cost is reported after it)."""
        from gatewaykit.notebook.widgets.playground_quote import quote_html

        self.quote.value = quote_html(self.client, self.model, request)

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
        self.thread = start_thread(lambda: self._run(entry, request), name="gatewaykit-playground")

    def _run(self, entry: Any, request: dict[str, Any]) -> None:
        sink = HTMLWidgetSink(self.result)
        following_job = False
        try:
            with self.client.ledger.tag(self.tag):
                sink.show({"text/html": f'<div style="{style.MUTED}">Sending to {style.esc(entry.id)}…</div>'})
                if entry.kind == "chat":
                    self._chat(entry, request, sink)
                elif entry.kind == "image":
                    from gatewaykit.notebook.html_views.rendering import mimebundle

                    sink.show(mimebundle(self.client.images.generate(**request)))
                else:
                    create = self.client.videos.create if entry.kind == "video" else self.client.music.create
                    self.job = create(**request)
                    following_job = True
                    self._follow(self.job, sink)
        except (JobFailedError, JobTimeoutError) as error:
            if not following_job:
                sink.show({"text/html": views.render_error_html(error)})
        except Exception as error:  # noqa: BLE001 - shown in the result area, never a traceback in a callback
            sink.show({"text/plain": str(error), "text/html": views.render_error_html(error)})
        finally:
            self.runs += 1
            self.job = None
            self._finish()

    def _chat(self, entry: Any, request: dict[str, Any], sink: HTMLWidgetSink) -> None:
        """Stream the answer live; the Stop button (the Cancel button, relabelled) keeps what arrived."""
        from gatewaykit.notebook.chat_views.live import render_stream

        stream = self.client.chat.completions.create(stream=True, **request)
        self.stopping = threading.Event()
        self.cancel_button.disabled, self.cancel_button.description = False, "Stop"
        self.cancel_button.layout.display = None
        try:
            render_stream(_until(stream, self.stopping), sink=sink, model=entry.id)
        except StoppedByUser:  # the answer so far stays, marked "interrupted: partial answer"
            stream.close()
        finally:
            self.stopping = None
            self.cancel_button.layout.display = "none"

    def _follow(self, job: Any, sink: HTMLWidgetSink) -> None:
        """``wait_with_progress`` with the playground's own Cancel button instead of the card's hint."""
        from gatewaykit.notebook.job_views.cancel import cancellable
        from gatewaykit.notebook.job_views.job_progress import REPAINT_EVERY, JobProgress
        progress = JobProgress(job, sink=sink, buttons=False)
        progress.cancel_hint = ""  # the Cancel button sits next to Run
        if cancellable(job):  # shown before the card, so the card never appears without its Cancel
            self.cancel_button.disabled, self.cancel_button.description = False, "Cancel"
            self.cancel_button.layout.display = None
        progress.show()
        ticking = threading.Event()

        def tick() -> None:  # the elapsed time moves between polls
            while not ticking.wait(REPAINT_EVERY):
                progress.paint()

        start_thread(tick, name="gatewaykit-playground-clock")
        try:
            job.wait(on_update=progress.observe)
        finally:
            ticking.set()
            self.cancel_button.layout.display = "none"
            progress.observe(job)

    def _cancel(self, _button: Any = None) -> None:
        if self.stopping is not None:  # a chat answer streaming: Stop
            self.cancel_button.disabled, self.cancel_button.description = True, "Stopping…"
            self.stopping.set()
            return
        job, self.cancel_button.disabled = self.job, True
        if job is None:
            return
        self.cancel_button.description = "Cancelling…"
        try:
            job.cancel()
        except Exception as error:  # noqa: BLE001 - shown under the form, never raised into the front end
            self.message.value = views.render_error_html(error)
            self.cancel_button.disabled, self.cancel_button.description = False, "Cancel"

    def _finish(self) -> None:
        self._show_cost()
        with self._lock:
            self._running = False
        self.run_button.disabled = False

    def _rows(self) -> list[dict[str, Any]]:
        return [row for row in self.client.ledger.rows_as_recorded(self.tag) if row["charged"]]

    def total(self) -> tuple[float, int]:
        """(USD of this playground's charged rows with an amount, charged rows without one)."""
        rows = self._rows()
        priced = sum(row["total_cost"] for row in rows if row["total_cost"] is not None)
        return priced, sum(1 for row in rows if row["total_cost"] is None)

    def _show_cost(self) -> None:
        usd, unpriced = self.total()
        estimated = sum(row["total_cost"] or 0.0 for row in self._rows() if row["cost_source"] == "estimated")
        text = f"Cost of this playground: {style.format_cost(usd)} ({self.runs} run{'s' if self.runs != 1 else ''})"
        if estimated:
            text += f", of which ≈ {style.format_cost(estimated)} est. (the gateway did not report it)"
        if unpriced:
            text += f" + {unpriced} job{'s' if unpriced != 1 else ''} charged at a price the gateway does not report"
        left = class_budget_text(self.client)  # a student in a class: what is left of their budget
        if left:
            text += f" · {left}"
        self.cost.value = f'<div style="{style.MUTED}">{style.esc(text)}</div>'

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the run in flight (if any) ends; True when none is left running."""
        # Never Thread.join() from the cell: an interrupted join marks the run's thread dead (notebook/cell_output/kernel.py).
        if self.thread is not None:
            deadline = None if timeout is None else time.monotonic() + timeout
            while not sleep_until(self.thread.ended, 0.05):
                if deadline is not None and time.monotonic() >= deadline:
                    break
        return not self._running

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # Built by hand (not widget._repr_mimebundle_, which ipywidgets 7 lacks); both versions render view 2.0.
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        return {"text/plain": WIDGET_FALLBACK, "application/vnd.jupyter.widget-view+json": view}


class StoppedByUser(KeyboardInterrupt):
    """Stop pressed while a chat answer streamed (render_stream keeps the partial answer for an interrupt)."""


def _until(stream: Any, stopping: threading.Event) -> Any:
    """The stream's chunks until Stop is pressed (checked as each chunk arrives)."""
    for chunk in stream:
        if stopping.is_set():
            raise StoppedByUser()
        yield chunk


def _close(widget: Any) -> None:
    """Close a widget and its children (their comms go away with the old form)."""
    for child in getattr(widget, "children", ()):
        _close(child)
    widget.close()


def playground(client: Any = None) -> Any:
    """The interactive playground (a :class:`Playground`), or a :class:`PlaygroundUnavailable` saying why not."""
    from gatewaykit.client import AsyncClient, Client  # not the root package, which imports this module

    if isinstance(client, AsyncClient):
        raise TypeError("gk.playground() runs a synchronous client: pass gk.Client(...), not gk.AsyncClient")
    reason = unavailable_reason()
    if reason is not None:
        return PlaygroundUnavailable(reason)
    import ipywidgets

    from gatewaykit.notebook.job_views.cancel import enable_colab_widgets

    enable_colab_widgets()
    return Playground(client if client is not None else Client(), ipywidgets)
