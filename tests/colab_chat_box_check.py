"""The chat box's widgets under Colab's ipywidgets 7.7 without anywidget, run by tests/test_colab.py in its venv.

A script (not a pytest module: the Colab venv holds Colab's packages, not this
suite's), against the offline gateway: the box builds, the input is the
Textarea fallback, Send (the button's click) runs a turn in a worker thread,
the model picker switches the session's model, Stop keeps a partial answer.
Exits non-zero with a message naming what failed.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

import ipywidgets

import gatewaykit as gk
from gatewaykit import emulator as gateway

LONG = "\n\n".join(f"Paragraph {n}: " + "words that stream in slowly " * 12 for n in range(14)) + "\n"


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.02)


def main() -> None:
    assert ipywidgets.__version__.startswith("7."), ipywidgets.__version__
    script = {"answers": [{"match": "long answer", "content": LONG}]}
    with gateway.start(time_scale=0.5, script=script) as running:
        client = gk.Client(base_url=running.base_url, api_key=running.api_key, ledger=gk.Ledger(path=None))
        ui = gk.chat_ui(client, model="chat-mini")
        box = ui._build()
        assert isinstance(box, ipywidgets.VBox) and box._dom_classes == ("gk-chat-box",), box._dom_classes
        w = ui._widgets
        assert w is not None and type(w["input"]).__name__ == "Textarea", type(w["input"])
        assert w["input"].continuous_update is False

        w["input"].value = "Name three rivers"
        w["send"].click()
        wait_for(lambda: len(ui.session.turns) == 1 and not w["send"].disabled, "the first turn to end")
        assert "Name three rivers" in w["transcript"].value and "conversation $" in w["totals"].value
        assert w["input"].value == ""

        w["picker"].value = "chat-reasoner"
        assert ui.session.model == "chat-reasoner"
        w["picker"].value = "chat-mini"

        w["input"].value = "A long answer please"
        w["send"].click()
        wait_for(lambda: "Paragraph 1:" in w["live"].value, "the long answer to stream")
        w["stop"].click()
        wait_for(lambda: len(ui.session.turns) == 2 and not w["send"].disabled, "the stopped turn to end")
        assert "stopped" in w["transcript"].value and "Paragraph 13:" not in w["transcript"].value
    print("chat box ok under ipywidgets", ipywidgets.__version__)


if __name__ == "__main__":
    main()
