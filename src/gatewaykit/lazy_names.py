"""A package's public names imported on first use (PEP 562), from one table of name -> module.

``import gatewaykit`` then builds no pydantic model and loads neither httpx nor pandas. A package
that uses it keeps the same imports under ``if TYPE_CHECKING:``, where type checkers, import-linter's
contracts and the cycle check (``tests/import_graph.py``) read them.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping

__all__ = ["lazy_names"]


def lazy_names(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each name in ``homes`` is read from its module (a full
    module name) when first asked for, then kept in the package."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        module = sys.modules[package]
        return sorted({*vars(module), *getattr(module, "__all__", ())})

    return __getattr__, __dir__
