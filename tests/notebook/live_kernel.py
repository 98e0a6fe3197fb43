"""A real IPython kernel driven message by message (jupyter_client), as a front end drives it.

nbclient keeps only the messages of the cell it runs; a live view keeps
updating its output after its cell ended, so these tests read every IOPub
message and apply ``update_display_data`` by display id, as JupyterLab does.
They can also interrupt the kernel and click a widget (a ``comm_msg``).
"""

from __future__ import annotations

import os
import queue
import time
from typing import Any, Callable, Optional


class LiveKernel:
    def __init__(self, env: Optional[dict[str, str]] = None) -> None:
        from jupyter_client.manager import start_new_kernel

        kernel_env = dict(os.environ)
        kernel_env.setdefault("GATEWAYKIT_OFFLINE_TIME_SCALE", "0")
        kernel_env.update(env or {})
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=kernel_env)
        self.messages: list[dict[str, Any]] = []  # every IOPub message, in order
        self.displays: dict[str, dict[str, Any]] = {}  # display_id -> latest data

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)

    def execute(self, code: str) -> str:
        """Send a cell; its msg_id (read its outputs with ``pump`` / ``run``)."""
        return self.client.execute(code, allow_stdin=False)

    def pump(self, seconds: float = 0.2, until: Optional[Callable[[], bool]] = None) -> None:
        """Read IOPub messages for ``seconds`` (or until ``until()``)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                msg = self.client.get_iopub_msg(timeout=0.05)
            except queue.Empty:
                msg = None
            if msg is not None:
                self.messages.append(msg)
                if msg["msg_type"] in ("display_data", "update_display_data"):
                    display_id = msg["content"].get("transient", {}).get("display_id")
                    if display_id:
                        self.displays[display_id] = msg["content"]["data"]
            if until is not None and until():
                return

    def wait_for(self, condition: Callable[[], bool], what: str, seconds: float = 180) -> None:
        """Read IOPub messages until ``condition()``; AssertionError saying ``what`` was awaited after ``seconds``."""
        self.pump(seconds, until=condition)
        assert condition(), f"waited {seconds:g} s for {what}"

    def updates_of(self, msg_id: str) -> int:
        """How many ``update_display_data`` messages the cell's displays have had."""
        return len(self.of(msg_id, "update_display_data"))

    def idle(self, msg_id: str) -> bool:
        return any(m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                   and m["parent_header"].get("msg_id") == msg_id for m in self.messages)

    def run(self, code: str, timeout: float = 180) -> str:
        """Run a cell to its end; its msg_id."""
        msg_id = self.execute(code)
        self.wait_for(lambda: self.idle(msg_id), f"the cell to finish: {code}", timeout)
        return msg_id

    def of(self, msg_id: str, *types: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] in types]

    def html_of(self, msg_id: str) -> list[str]:
        """The cell's outputs' current HTML (display updates applied)."""
        out = []
        for m in self.of(msg_id, "display_data", "execute_result"):
            display_id = m["content"].get("transient", {}).get("display_id")
            data = self.displays.get(display_id, m["content"]["data"]) if display_id else m["content"]["data"]
            if "text/html" in data:
                out.append(data["text/html"])
        return out

    def text(self, msg_id: str) -> str:
        """What the cell printed to stdout (stderr can carry other threads' noise: see ``errors``)."""
        return "".join(m["content"]["text"] for m in self.of(msg_id, "stream") if m["content"]["name"] == "stdout")

    def errors(self, msg_id: str) -> str:
        """What was written to stderr while the cell ran."""
        return "".join(m["content"]["text"] for m in self.of(msg_id, "stream") if m["content"]["name"] == "stderr")

    def click(self, model_id: str, subshell_id: Optional[str] = None) -> None:
        """What a front end sends when a widget Button is clicked (through a kernel subshell when given)."""
        content = {"comm_id": model_id, "data": {"method": "custom", "content": {"event": "click"}}}
        msg = self.client.session.msg("comm_msg", content)
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self.client.shell_channel.send(msg)

    def create_subshell(self, timeout: float = 10) -> str:
        """What JupyterLab 4.4+ sends for its widget comms: ``create_subshell_request`` on control; the id."""
        request = self.client.session.msg("create_subshell_request", {})
        self.client.control_channel.send(request)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                reply = self.client.get_control_msg(timeout=0.1)
            except queue.Empty:
                continue
            if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                return str(reply["content"]["subshell_id"])
        raise TimeoutError("no create_subshell_reply")

    def button_ids(self) -> list[str]:
        return [m["content"]["comm_id"] for m in self.messages if m["msg_type"] == "comm_open"
                and m["content"]["data"].get("state", {}).get("_model_name") == "ButtonModel"]
