"""The confirmation card: a quote with Confirm / Cancel, shown before a request over ``confirm_over``.

``Client(confirm_over=0.50)`` in a kernel asks here (``KernelDisplay.confirm``)
before it sends a request quoted above the threshold. The call that asks
blocks the cell, so on the cell's own thread the card handles widget events
itself while it waits (:mod:`gatewaykit.notebook.cell_output.widget_events`, as a
blocking ``job.wait()`` does for its Cancel button); on another thread the
kernel handles them and the wait is a plain event. Once decided, the card
becomes one static line ("Confirmed: ... sent" / "Cancelled: nothing was
sent"), so a saved notebook keeps no widget state. The stop button (■) while
the card waits counts as Cancel.

Without ipywidgets there is no one to ask: ``confirm`` returns None and the
client raises :class:`~gatewaykit.ConfirmationRequiredError` naming ``confirm=True``.
"""

from __future__ import annotations

import html
import threading
import time
from typing import Any, Optional

from gatewaykit.money import format_usd
from gatewaykit.notebook.cell_output.kernel import in_kernel
from gatewaykit.notebook.html_views.style import aligned_in_exports
from gatewaykit.notebook.cell_output.widget_events import widget_events

__all__ = ["CONFIRM_TIMEOUT", "ConfirmCard", "ask_in_kernel"]

CONFIRM_TIMEOUT = 600.0  # seconds a card waits for a click before it counts as Cancel (a headless run)
PUMP_EVERY = 0.05

_STYLE = (  # its own line height: in a widget, a wrapped line would get the widgets' 28 px
    "border:1px solid #d0a000;border-left:4px solid #d0a000;border-radius:4px;padding:6px 10px;"
    "margin:2px 0;font-family:var(--jp-ui-font-family,sans-serif);font-size:13px;line-height:1.45"
)


def card_html(quote: Any, threshold: float) -> str:
    """The card's text: the quote, and the threshold it passes (escaped)."""
    amount = "of unknown cost" if quote.total_cost is None else f"quoted at {html.escape(quote.summary)}"
    return (
        f'<div class="gk-confirm" style="{_STYLE}"><b>Confirm before sending?</b> This request is {amount}, '
        f"over this client's <code>confirm_over</code> of {format_usd(threshold)}.</div>"
    )


def decided_html(quote: Any, confirmed: bool) -> str:
    text = (
        f"Confirmed: {html.escape(quote.summary)}; sent."
        if confirmed
        else f"Cancelled: {html.escape(quote.summary)}; nothing was sent."
    )
    return f'<div class="gk-confirm-done" style="{_STYLE};border-color:#999">{text}</div>'


class ConfirmCard:
    """The widgets: the quote, a Confirm and a Cancel button; ``decision`` is set by a click."""

    def __init__(self, quote: Any, threshold: float, widgets: Any) -> None:
        self.quote = quote
        self.decision: Optional[bool] = None
        self.clicked = threading.Event()
        self.confirm = widgets.Button(description="Confirm", button_style="warning", icon="check")
        self.cancel = widgets.Button(description="Cancel", icon="times")
        self.confirm.add_class("gk-confirm-yes")
        self.cancel.add_class("gk-confirm-no")
        self.confirm.on_click(lambda _: self._decide(True))
        self.cancel.on_click(lambda _: self._decide(False))
        self.box = widgets.VBox([widgets.HTML(card_html(quote, threshold)), widgets.HBox([self.confirm, self.cancel])])
        self.box.add_class("gk-confirm-card")

    def _decide(self, confirmed: bool) -> None:
        if self.decision is None:
            self.decision = confirmed
            self.confirm.disabled = self.cancel.disabled = True
        self.clicked.set()

    def wait(self, timeout: float = CONFIRM_TIMEOUT) -> bool:
        """Block until a click (handling widget events on the cell's thread); False on timeout or stop."""
        deadline = time.monotonic() + timeout
        try:
            if threading.current_thread() is threading.main_thread():
                with widget_events() as pump:
                    while not self.clicked.wait(PUMP_EVERY) and time.monotonic() < deadline:
                        pump()
            else:
                self.clicked.wait(timeout)
        except KeyboardInterrupt:
            self._decide(False)
        return bool(self.decision)


def ask_in_kernel(quote: Any, threshold: float) -> Optional[bool]:
    """Show the card and wait for a click: True (send), False (cancel), None (cannot ask here)."""
    if not in_kernel():
        return None
    try:
        import ipywidgets
        from IPython.display import display
    except ImportError:
        return None
    from gatewaykit.notebook.job_views.cancel import enable_colab_widgets

    enable_colab_widgets()
    card = ConfirmCard(quote, threshold, ipywidgets)
    view = {"version_major": 2, "version_minor": 0, "model_id": card.box.model_id}
    fallback = (
        f"Confirm before sending? {quote.summary}, over confirm_over {format_usd(threshold)}. "
        "(The Confirm / Cancel buttons need ipywidgets in the front end: press stop to cancel, "
        "or run the call again with confirm=True.)"
    )
    bundle = {"text/plain": fallback, "application/vnd.jupyter.widget-view+json": view}
    handle = display(bundle, raw=True, display_id=True)
    confirmed = card.wait()
    card.box.close()
    if handle is not None:
        plain = f"Confirmed: {quote.summary}; sent." if confirmed else f"Cancelled: {quote.summary}; nothing was sent."
        handle.update(aligned_in_exports({"text/plain": plain, "text/html": decided_html(quote, confirmed)}), raw=True)
    return confirmed
