"""Optional packages imported when asked for: pandas for ``to_pandas()`` and summaries, Pillow for ``.images``.

The client, the notebook displays and the ledger work without them (a browser page's Python, as in a
JupyterLite site built offline, has neither). What needs one imports it through :func:`needs`, so its
absence is a :class:`MissingPackageError` that names the package, how to install it and what works
without it, not a bare ``No module named 'pandas'`` from deep inside. It imports nothing of gatewaykit's,
so every layer may use it.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["MissingPackageError", "needs"]


class MissingPackageError(ModuleNotFoundError):
    """What was asked needs an optional package that is not installed here; the message says which."""


def needs(package: str, asked: str, without: str, module: str | None = None) -> Any:
    """``module`` (default: ``package``) imported; else a :class:`MissingPackageError` saying that ``asked``
    needs ``package``, how to install it, and what works ``without`` it."""
    name = module or package
    try:
        return importlib.import_module(name)
    except ImportError:
        pass
    raise MissingPackageError(
        f"{asked} needs {package}, which is not installed here: pip install {package} (a JupyterLite site "
        f"built offline has none). Without it: {without}", name=name) from None
