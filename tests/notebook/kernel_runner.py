"""Run small notebooks in a real IPython kernel (nbclient) and read their outputs."""

from __future__ import annotations

import os
from typing import Any

import nbformat


def run_notebook(
    cells: list[str], *, env: dict[str, str] | None = None, timeout: int = 120, messages: list[Any] | None = None,
    allow_errors: bool = False,
) -> Any:
    """Execute ``cells`` (source strings) in a fresh python3 kernel; the executed notebook.

    With ``messages`` (a list), every iopub message is appended to it as ``(cell index, message)``:
    the display updates a saved notebook does not keep. ``allow_errors``: a cell that raises is
    kept (its ``error`` output) and the next cells still run.
    """
    from nbclient import NotebookClient

    class RecordingClient(NotebookClient):
        def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
            if messages is not None:
                messages.append((cell_index, msg))
            return super().process_message(msg, cell, cell_index)

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    kernel_env = dict(os.environ)
    kernel_env.update(env or {})
    kernel_env.setdefault("GATEWAYKIT_OFFLINE_TIME_SCALE", "0")
    client = RecordingClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors)
    client.execute(env=kernel_env)
    return nb


def html_outputs(cell: Any) -> list[str]:
    return [out["data"]["text/html"] for out in cell.outputs if "data" in out and "text/html" in out["data"]]


def output_types(cell: Any) -> list[str]:
    return [out["output_type"] for out in cell.outputs]


def display_messages(messages: list[Any], cell_index: int) -> list[tuple[str, dict[str, Any]]]:
    """The cell's ``display_data`` / ``update_display_data`` messages in order: ``(type, content)``."""
    kinds = ("display_data", "update_display_data")
    return [(msg["msg_type"], msg["content"]) for index, msg in messages
            if index == cell_index and msg["msg_type"] in kinds]  # fmt: skip
