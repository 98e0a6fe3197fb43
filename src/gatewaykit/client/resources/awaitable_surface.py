"""Typing for the async resources: the sync method's parameters, an awaitable of its result.

``AsyncClient`` reuses the sync resource classes (their flows run on the async
driver, so every call returns an awaitable). For type checkers, the async
subclasses declare each such method with :func:`awaitable_method`: the same
parameters, ``Awaitable[R]`` instead of ``R`` (``returns=``: the async
variant of the result, e.g. ``AsyncVideoJob``). At run time it returns the
method unchanged. This is the one mechanism; the exceptions are methods
whose async behaviour really differs (``chat.ask``, ``map``, ``batch``,
``jobs.pending``: real ``async def`` overrides) and
``chat.completions.create``, whose result type follows ``stream=`` (overloads
on ``Literal``, which a ``ParamSpec`` cannot carry).
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Optional, TypeVar, overload

from typing_extensions import Concatenate, ParamSpec

__all__ = ["awaitable_method"]

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")
T = TypeVar("T")


@overload
def awaitable_method(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], Awaitable[R]]: ...


@overload
def awaitable_method(
    method: Callable[Concatenate[S, P], Any], returns: type[T]
) -> Callable[Concatenate[S, P], Awaitable[T]]: ...


def awaitable_method(method: Callable[..., Any], returns: Optional[type] = None) -> Any:
    """``method``, typed as returning an awaitable of its result (or of ``returns``)."""
    return method
