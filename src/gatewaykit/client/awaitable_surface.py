"""Typing for the async resources: the sync method's parameters, an awaitable of its result.

``AsyncClient`` reuses the sync resource classes (their flows run on the async
driver, so every call returns an awaitable). For type checkers, the async
subclasses declare their methods with :func:`awaitable_method`: the same
parameters, ``Awaitable[R]`` instead of ``R``. At run time it returns the
method unchanged.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, TypeVar

from typing_extensions import Concatenate, ParamSpec

__all__ = ["awaitable_method"]

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


def awaitable_method(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """``method``, typed as returning an awaitable of its result."""
    result: Any = method
    return result  # type: ignore[no-any-return]
