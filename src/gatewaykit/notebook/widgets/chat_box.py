"""``gk.chat_ui()``: a chat box in a cell, over a :class:`~gatewaykit.ChatSession`.

A transcript over an input with Send, Stop, Undo and Reset, a model picker, an image attachment, each
turn's cost and the budget's bar. A turn runs in a worker thread, so the kernel stays free to handle
Stop (:meth:`ChatUI.send` blocks, for scripts and tests); the output carries a static HTML transcript
beside the widget, so a saved notebook shows the conversation without widget state.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import math

import threading
from typing import Any, Optional

from gatewaykit.notebook.cell_output.kernel import route_to_frontend_subshell
from gatewaykit.notebook.html_views import style
from gatewaykit.client.conversation.turn_costs import all_not_charged, not_charged_turns_text, turn_not_charged_notes
from gatewaykit.notebook.widgets.class_budget import class_budget_text
from gatewaykit.notebook.chat_views.chat_view import BoxTurnView, ChatBoxDisplay, render_transcript_html, turn_cost

__all__ = ["ChatUI", "chat_ui"]

_IMAGE_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
# The conversation (transcript and the streaming answer) scrolls inside the box past this height, kept at
# its newest line (a column-reverse flex box stays scrolled to its end as it grows, with no script). While
# an answer streams the area is this high from the start, so the buttons under it stand still: a Stop
# pressed while lines arrive is not lost to a button that moved between mouse down and mouse up.
_CONVERSATION_HEIGHT = "460px"


class _ThroughBox:
    """The user's client as the box's session sees it: the same in every way but its display."""

    def __init__(self, client: Any, display: ChatBoxDisplay) -> None:
        self._inner = client
        self.display = display

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _check_image(data: bytes, name: str) -> bytes:
    """An attachment must be a picture in a format the API speaks; else a clear ValueError."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data), formats=list(_IMAGE_FORMATS)) as picture:
            picture.verify()
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise ValueError(f"{name!r} is not an image in a format the gateway takes (PNG, JPEG, WebP or GIF)") from None
    return data


class ChatUI:
    """A chat box: ``.session`` (the :class:`ChatSession`), ``.send(text)`` (what Send does), ``.stop()``."""

    def __init__(self, client: Any, model: Optional[str] = None, **session_options: Any) -> None:
        from gatewaykit.client.conversation import ChatSession

        self.client = client
        self._stop = threading.Event()
        self._stopped_turns: set[int] = set()
        self._busy = threading.Lock()
        self._worker: Optional[threading.Thread] = None
        self._attachments: list[bytes] = []
        self._undone_cost = 0.0  # USD of turns taken back (Undo, Reset): still in the ledger
        self.error: Optional[BaseException] = None
        self._widgets: Optional[dict[str, Any]] = None
        self._display_id: Optional[str] = None
        display = ChatBoxDisplay(self._open_turn)
        self.session = ChatSession(_ThroughBox(client, display), model=model, **session_options)

    # -- what the buttons do ------------------------------------------------------------
    def send(self, text: str, *, images: Any = None, wait: bool = True, _clear_input: bool = True) -> Any:
        """Send ``text`` (and ``images``) as the next turn, as the Send button does; with ``wait`` the
        turn's ``ChatCompletion`` (an error is shown in the box and raised)."""
        text = str(text or "").strip()
        if not text:
            self._status("Type a message first.")
            return None
        if not self._busy.acquire(blocking=False):
            self._status("An answer is still arriving: Stop it or wait.")
            return None
        pictures = list(images or []) + self._attachments
        self._attachments = []
        self._clear_upload()  # the button's "Image (1)" goes back to 0 with the message that took it
        self._stop.clear()
        self.error = None
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["reply"] = self.session(text, images=pictures or None)
            except BaseException as exc:  # noqa: BLE001 - shown in the box; re-raised to a waiting caller
                outcome["error"] = self.error = exc
            finally:
                self._busy.release()
                self._after_turn()

        self._before_turn(text, _clear_input)
        from gatewaykit.notebook.cell_output.kernel import start_thread, threads_available

        if not threads_available() and not wait:  # a browser page's Python: no thread, so Send answers in place
            run()
            return None
        if wait:
            run()
            if "error" in outcome:
                raise outcome["error"]
            return outcome.get("reply")
        self._worker = start_thread(run, name="gatewaykit-chat-box")
        return None

    def stop(self) -> None:
        """Stop the answer that is streaming; what arrived stays, marked as stopped."""
        self._stop.set()

    def undo(self) -> None:
        """Take back the last turn (its cost stays in the ledger)."""
        if self._busy.locked():
            return self._status("Wait for the answer (or Stop it) before Undo.")
        last = len(self.session.turns) - 1
        if last >= 0:
            self._undone_cost += turn_cost(self.session.turns[last]) or 0.0
        self.session.undo()
        self._stopped_turns.discard(last)
        self._refresh()

    def reset(self) -> None:
        """Start the conversation over (the ledger keeps every cost)."""
        if self._busy.locked():
            return self._status("Wait for the answer (or Stop it) before Reset.")
        self._undone_cost += math.fsum(turn_cost(turn) or 0.0 for turn in self.session.turns)
        self.session.reset()
        self._stopped_turns.clear()
        self._refresh()

    @property
    def cost(self) -> Optional[float]:
        """USD of the conversation so far (the session's cost)."""
        return self.session.cost

    # -- the turn's view ------------------------------------------------------------------
    def _open_turn(self) -> BoxTurnView:
        return BoxTurnView(self._show_live, self._stop, self._mark_stopped, self._show_steps)

    def _mark_stopped(self) -> None:
        self._stopped_turns.add(len(self.session.turns))

    def _before_turn(self, text: str, clear_input: bool) -> None:
        w = self._widgets
        if w is None:
            return
        from gatewaykit.notebook.chat_views.chat_view import _user_html

        # Send off and Stop on before the question shows: the browser applies widget changes in the
        # order they are sent, so no one sees (or clicks) the new turn with Send still enabled.
        w["send"].disabled, w["stop"].disabled = True, False
        w["conversation"].layout.height = _CONVERSATION_HEIGHT  # the buttons stay where they are until the end
        w["pending"] = _user_html(text)
        w["steps"] = ""
        w["live"].value = w["pending"] + '<div style="opacity:.6"><em>…</em></div>'
        if clear_input:  # (Enter already cleared it in the browser)
            w["input"].value = ""
        self._status("")

    def _show_live(self, text: str) -> None:
        w = self._widgets
        if w is not None:
            from gatewaykit.notebook.chat_views.chat_view import _answer_html

            w["live"].value = w["pending"] + w["steps"] + _answer_html(text, streaming=True)

    def _show_steps(self, steps_html: str) -> None:
        w = self._widgets
        if w is not None:
            w["steps"] = steps_html
            w["live"].value = w["pending"] + steps_html

    def _after_turn(self) -> None:
        if self.error is not None:
            from gatewaykit.notebook.html_views.html import render_error_html

            if self._widgets is not None:
                self._widgets["live"].value = self._widgets["pending"] + render_error_html(self.error)
        elif self._widgets is not None:
            self._widgets["live"].value = ""
        self._refresh(keep_live=self.error is not None)

    # -- widgets ----------------------------------------------------------------------------
    def _status(self, text: str) -> None:
        if self._widgets is not None:
            self._widgets["status"].value = f'<span style="{style.MUTED}">{style.esc(text)}</span>' if text else ""

    def _totals_html(self) -> str:
        turns = self.session.turns
        # The turns still in the conversation: an undone turn's cost is named apart below, not counted twice
        # (the session's own cost keeps it: its spend stays).
        costs = [turn_cost(turn) for turn in turns]
        parts = []
        if turns:
            last = costs[-1]
            if all_not_charged(turns[-1]):  # replayed or cached: what its ledger rows say, not a cost
                parts.append(f"this turn {', '.join(turn_not_charged_notes(turns[-1]))}")
            else:
                parts.append(f"this turn {style.format_cost(last) if last is not None else 'not reported'}")
        known = None if any(cost is None for cost in costs) else math.fsum(costs)  # type: ignore[arg-type]
        conversation = f"conversation {conversation_cost_text(known, costs)}"
        not_charged = not_charged_turns_text(turns)  # what the total leaves out, and what it cost when paid for
        if not_charged:
            conversation += f", {not_charged}"
        parts.append(conversation)
        if self._undone_cost:
            parts.append(f"undone turns {style.format_cost(self._undone_cost)} (still in the ledger)")
        left = class_budget_text(self.client)  # a student in a class: what is left of their budget
        if left:
            parts.append(left)
        return f'<span style="{style.esc(style.MUTED)}">{style.esc(" · ".join(parts))}</span>'

    def _refresh(self, keep_live: bool = False) -> None:
        w = self._widgets
        if w is None:
            return
        w["transcript"].value = render_transcript_html(self.session, self._stopped_turns)
        if not keep_live:
            w["live"].value = ""
        w["totals"].value = self._totals_html()
        w["conversation"].layout.height = None  # as high as the conversation again (up to the limit)
        w["send"].disabled, w["stop"].disabled = False, True
        self._show_budget()
        self._fit_picker()
        self._update_static()

    def _show_budget(self) -> None:
        w = self._widgets
        ledger = getattr(self.client, "ledger", None)
        budget = getattr(ledger, "budget", None)
        if w is None or not budget:
            return
        spent = float(getattr(ledger, "total_cost", 0.0) or 0.0)
        w["budget"].max = float(budget)
        w["budget"].value = min(spent, float(budget))
        w["budget"].layout.display = None
        # Not the bar's description: JupyterLab typesets "$0.00 of $0.05" in a widget label as LaTeX
        # (the amounts vanish into italic maths). An HTML widget's value is not typeset.
        label = w.get("budget_label")
        if label is not None:
            money = f"budget: {style.format_cost(spent)} of {style.format_cost(budget)}"
            label.value = f'<span class="{style.NO_MATH}" style="{style.MUTED}">{style.esc(money)}</span>'
            label.layout.display = None

    def _has_images(self) -> bool:
        """True when a message of the conversation carries an image (only vision models can read it)."""
        for message in self.session.history:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list) and any(isinstance(part, dict) and part.get("type") == "image_url" for part in content):
                return True
        return False

    def _fit_picker(self) -> None:
        """Offer only the models that accept the conversation's inputs (an image: vision models), and say so."""
        picker = (self._widgets or {}).get("picker")
        if picker is None:
            return
        models = self._chat_models()
        images = self._has_images()
        if images:
            models = [model for model in models if self._is_vision(model)] or models
        if not models or list(picker.options) == models:
            return
        current = picker.value
        picker.options = models
        if current in models:
            picker.value = current
        picker.tooltip = "Only models that read images: this conversation has one (Undo or Reset it to choose others)" if images else ""
        if images:
            self._status("The picker offers only models that read images: this conversation has one.")

    def _chat_models(self) -> list[str]:
        try:
            catalog = self.client.models.cached or self.client.models.list()
            return [model.id for model in catalog if model.kind == "chat"]
        except Exception:  # noqa: BLE001 - a box without a picker still chats
            return []

    def _is_vision(self, model_id: Optional[str]) -> bool:
        try:
            catalog = self.client.models.cached or self.client.models.list()
            return any(m.id == model_id and "image" in m.input_modalities for m in catalog)
        except Exception:  # noqa: BLE001
            return False

    def _build(self) -> Any:
        import ipywidgets as widgets

        from gatewaykit.notebook.widgets.message_input import message_input

        models = self._chat_models()
        if self.session.model is None and models:
            self.session.model = models[0]
        picker = widgets.Dropdown(options=models or [self.session.model or ""], value=self.session.model or None,
                                  description="model", layout=widgets.Layout(width="260px"))  # fmt: skip
        entry, enter_sends = message_input(
            "Message (Enter sends, Shift+Enter for a new line)", lambda text: self.send(text, wait=False, _clear_input=False)
        )
        send = widgets.Button(description="Send", button_style="primary", icon="paper-plane")
        stop = widgets.Button(description="Stop", icon="stop", disabled=True)
        undo = widgets.Button(description="Undo", icon="undo")
        reset = widgets.Button(description="Reset", icon="refresh")
        attach = widgets.FileUpload(accept="image/*", multiple=True, description="Image")
        budget = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, layout=widgets.Layout(display="none"))
        budget_label = widgets.HTML(layout=widgets.Layout(display="none"))
        self._widgets = w = {
            "transcript": widgets.HTML(), "live": widgets.HTML(), "status": widgets.HTML(), "totals": widgets.HTML(),
            "input": entry, "send": send, "stop": stop, "budget": budget,
            "budget_label": budget_label, "picker": picker, "attach": attach,
            "pending": "", "steps": "",
        }  # fmt: skip
        if not enter_sends:
            entry.placeholder = "Message (Send sends; Enter is a new line)"
        send.on_click(lambda _b: self.send(str(entry.value), wait=False))
        stop.on_click(lambda _b: self.stop())
        undo.on_click(lambda _b: self.undo())
        reset.on_click(lambda _b: self.reset())

        def pick(change: Any) -> None:
            self.session.model = change["new"]
            attach.layout.display = None if self._is_vision(change["new"]) else "none"

        picker.observe(pick, names="value")
        attach.layout.display = None if self._is_vision(self.session.model) else "none"
        attach.observe(self._attached, names="value")
        controls = widgets.HBox([send, stop, undo, reset, attach])
        w["conversation"] = conversation = widgets.Box(
            [widgets.VBox([w["transcript"], w["live"]], layout=widgets.Layout(flex="0 0 auto"))],
            layout=widgets.Layout(flex_flow="column-reverse", overflow="auto", max_height=_CONVERSATION_HEIGHT),
        )
        conversation.add_class("gk-chat-conversation")
        box = widgets.VBox([widgets.HBox([picker, w["totals"]]), widgets.HBox([budget, budget_label]), conversation, entry, controls,
                            w["status"]], layout=widgets.Layout(width="100%"))  # fmt: skip
        box.add_class("gk-chat-box")
        route_to_frontend_subshell(box)  # Send and Stop work while another cell runs
        self._refresh()
        return box

    def _attached(self, change: Any) -> None:
        files = change["new"]
        items = list(files.values()) if isinstance(files, dict) else list(files or ())  # ipywidgets 7: dict, 8: tuple
        if not items:  # the value cleared (after a send, or after a refusal)
            return
        refused = []
        for item in items:
            name = item.get("name") or item.get("metadata", {}).get("name", "file")
            try:
                self._attachments.append(_check_image(bytes(item["content"]), name))
            except Exception as exc:  # noqa: BLE001 - every file gets a word, never a silent drop
                refused.append(str(exc) if isinstance(exc, ValueError) else f"{name!r} could not be read ({exc})")
        count = len(self._attachments)
        text = f"{count} image{'s' if count != 1 else ''} attached to the next message." if count else "No image attached."
        if refused:
            self._clear_upload()  # the button counts only what is attached
            text += " Not attached: " + "; ".join(refused) + "."
        self._status(text)

    def _clear_upload(self) -> None:
        attach = (self._widgets or {}).get("attach")
        if attach is not None and attach.value:
            attach.value = {} if isinstance(attach.value, dict) else ()  # ipywidgets 7: dict, 8: tuple

    # -- display ------------------------------------------------------------------------------
    def static_html(self) -> str:
        """The conversation as static HTML (what a saved notebook shows without widget state)."""
        body = render_transcript_html(self.session, self._stopped_turns)
        empty = f'<div style="{style.MUTED}"><em>(no messages yet)</em></div>'
        return f'<div class="gk-chat-transcript" style="{style.BOX}">{body or empty}</div>'

    def _bundle(self) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": repr(self), "text/html": self.static_html()}
        if self._widgets is not None:
            box = self._widgets["box"]
            bundle["application/vnd.jupyter.widget-view+json"] = {"version_major": 2, "version_minor": 0,
                                                                  "model_id": box.model_id}  # fmt: skip
        return style.aligned_in_exports(bundle)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        try:
            if self._widgets is None:
                box = self._build()
                assert self._widgets is not None
                self._widgets["box"] = box
        except ImportError:  # no ipywidgets: the transcript alone
            display(style.aligned_in_exports({"text/plain": repr(self), "text/html": self.static_html()}), raw=True)
            return
        import os

        self._display_id = self._display_id or f"gk-chat-{os.urandom(4).hex()}"
        display(self._bundle(), raw=True, display_id=self._display_id)

    def _update_static(self) -> None:
        if self._display_id is None or self._widgets is None or "box" not in self._widgets:
            return
        try:
            from IPython.display import update_display

            update_display(self._bundle(), raw=True, display_id=self._display_id)
        except Exception:  # noqa: BLE001 - the live box stays right; only the saved copy would lag
            pass

    def __repr__(self) -> str:
        turns = len(self.session.turns)
        cost = self.session.cost
        money = style.format_cost(cost) if cost is not None else "cost not reported"
        return f"ChatUI(model={self.session.model!r}, {turns} turn{'s' if turns != 1 else ''}, {money})"


def conversation_cost_text(total: Optional[float], turn_costs: list[Optional[float]]) -> str:
    """The conversation's cost as read: what is known, plus how many turns (a stopped one) reported none."""
    if total is not None:
        return style.format_cost(total)
    if not turn_costs:  # no turns (yet, or all taken back): nothing in this conversation
        return style.format_cost(0.0)
    unknown = sum(1 for cost in turn_costs if cost is None)
    known = [cost for cost in turn_costs if cost is not None]
    if not known:
        return "not reported"
    return f"{style.format_cost(math.fsum(known))} + {unknown} turn{'s' if unknown != 1 else ''} of unknown cost"


def chat_ui(client: Any = None, model: Optional[str] = None, **session_options: Any) -> ChatUI:
    """A chat box over a new session (``client=None``: ``gk.Client()``)."""
    if client is None:
        from gatewaykit.client import Client

        client = Client()
    return ChatUI(client, model=model, **session_options)
