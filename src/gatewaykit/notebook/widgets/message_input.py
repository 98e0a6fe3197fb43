"""The chat box's input: a multi-line text area where Enter sends and Shift+Enter starts a new line.

Enter clears the box in the browser and sends the text in the message
itself: ipywidgets throttles value updates, so the kernel may see them late.

ipywidgets' ``Textarea`` cannot tell Enter from Shift+Enter, so the input is a
tiny anywidget (a ``<textarea>`` and one key handler; the text is synced as
``value`` and Enter sends a ``submit`` message). Without anywidget it falls
back to ipywidgets' ``Textarea``, where Enter is a new line and the Send button
sends. Key presses stop at the text area, so Enter never runs a notebook cell:
JupyterLab's shortcuts see them after the area (bubbling), Notebook 7's before
it (capture), so the area also carries Lumino's ``data-lm-suppress-shortcuts``.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["message_input"]

_ESM = """
function render({ model, el }) {
  const area = document.createElement("textarea");
  area.rows = 3;
  area.className = "gk-chat-input";
  // Notebook 7 matches its shortcuts on the way down (capture), before this area's handler can stop the
  // event: Lumino skips every element at or under one marked so (Shift+Enter would run the cell).
  area.setAttribute("data-lm-suppress-shortcuts", "true");
  area.placeholder = model.get("placeholder");
  area.value = model.get("value");
  area.disabled = model.get("disabled");
  area.style.cssText = "width:100%;box-sizing:border-box;font:inherit;resize:vertical;padding:6px";
  const sync = () => { model.set("value", area.value); model.save_changes(); };
  area.addEventListener("input", sync);
  // The box's output is redrawn after each turn (so a saved notebook keeps the transcript): a new view
  // takes the focus back when the old one had it.
  area.addEventListener("focus", () => { model.set("focused", true); model.save_changes(); });
  area.addEventListener("blur", () => {
    // Leaving the area (a click on Send blurs it first) hands the kernel the whole text at once: value
    // updates are throttled, and the click's message could overtake the last of them.
    model.send({ type: "draft", text: area.value });
    setTimeout(() => { if (area.isConnected) { model.set("focused", false); model.save_changes(); } }, 0);
  });
  if (model.get("focused")) setTimeout(() => area.focus(), 0);
  area.addEventListener("keydown", (event) => {
    event.stopPropagation();  // never a notebook shortcut
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      // The text goes in the message itself (value updates are throttled and could arrive after it);
      // the box clears here, so a late value update can only say "".
      const text = area.value;
      model.send({ type: "submit", text });
      area.value = "";
      sync();
    }
  });
  model.on("change:value", () => { if (area.value !== model.get("value")) area.value = model.get("value"); });
  model.on("change:disabled", () => { area.disabled = model.get("disabled"); });
  el.appendChild(area);
}
export default { render };
"""


def _anywidget_input(placeholder: str, on_submit: Callable[[str], None]) -> Any:
    import anywidget
    import traitlets

    class MessageInput(anywidget.AnyWidget):  # type: ignore[misc]
        _esm = _ESM
        value = traitlets.Unicode("").tag(sync=True)
        placeholder = traitlets.Unicode("").tag(sync=True)
        disabled = traitlets.Bool(False).tag(sync=True)
        focused = traitlets.Bool(False).tag(sync=True)

    box = MessageInput(placeholder=placeholder)

    def handle(_widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("type") == "submit":
            on_submit(str(content.get("text") or ""))
        elif content.get("type") == "draft":  # the text as it stood when the area lost focus
            box.value = str(content.get("text") or "")

    box.on_msg(handle)
    return box


def message_input(placeholder: str, on_submit: Callable[[str], None]) -> tuple[Any, bool]:
    """The input widget and whether Enter sends (False: the Textarea fallback, Send button only)."""
    try:
        return _anywidget_input(placeholder, on_submit), True
    except ImportError:
        import ipywidgets as widgets

        # Synced when it loses focus (a click on Send blurs it first), not per key: per-key updates are
        # throttled, and the click's message overtook the last of them (ipywidgets 7: "Hello wor" sent).
        area = widgets.Textarea(placeholder=placeholder, rows=3, continuous_update=False,
                                layout=widgets.Layout(width="100%"))
        return area, False
