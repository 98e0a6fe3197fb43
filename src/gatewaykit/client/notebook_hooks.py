"""Where the client core meets the notebook layer, without importing it (or IPython) unless a kernel runs."""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Any, Callable, Optional

__all__ = ["kernel_running", "notebook_function"]

logger = logging.getLogger("gatewaykit")


def kernel_running() -> bool:
    """True inside a running IPython kernel (Jupyter, Colab, VS Code); never imports IPython."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return False
    try:
        shell = ipython_module.get_ipython()
    except Exception:  # noqa: BLE001
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


def notebook_function(module: str, name: str) -> Optional[Callable[..., Any]]:
    """``gatewaykit.notebook.<module>.<name>`` when a kernel runs and the notebook layer has it, else None."""
    if not kernel_running():
        return None
    try:
        found = importlib.import_module(f"gatewaykit.notebook.{module}")
    except ImportError:
        return None
    function = getattr(found, name, None)
    return function if callable(function) else None
