"""Run small notebooks in a real IPython kernel (nbclient) and read their outputs."""

from __future__ import annotations

import os
from typing import Any

import nbformat


def run_notebook(
    cells: list[str], *, env: dict[str, str] | None = None, timeout: int = 120, allow_errors: bool = False
) -> Any:
    """Execute ``cells`` (source strings) in a fresh python3 kernel; the executed notebook.

    ``allow_errors``: a cell that raises is kept (its ``error`` output) and the next cells still run.
    """
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    kernel_env = dict(os.environ)
    kernel_env.update(env or {})
    kernel_env.setdefault("GATEWAYKIT_OFFLINE_TIME_SCALE", "0")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors)
    client.execute(env=kernel_env)
    return nb


def html_outputs(cell: Any) -> list[str]:
    return [out["data"]["text/html"] for out in cell.outputs if "data" in out and "text/html" in out["data"]]


def output_types(cell: Any) -> list[str]:
    return [out["output_type"] for out in cell.outputs]
