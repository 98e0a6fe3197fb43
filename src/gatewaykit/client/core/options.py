"""``Client(...)``'s keywords, written once: one frozen :class:`ClientOptions` per client.

The constructor's signature *is* this dataclass's (:func:`takes_options`, also
for type checkers), a client keeps the object it was built from, a pickle
carries it as it is (:mod:`gatewaykit.client.core.pickling`) and ``repr`` reads it.
Adding a keyword is one line here (and the code that uses it).
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, TypeVar, Union

from typing_extensions import Concatenate, ParamSpec

from gatewaykit.client.core.flows import RetryPolicy
from gatewaykit.client.transports.body_reading import DEFAULT_MAX_RESPONSE_BYTES

if TYPE_CHECKING:
    from gatewaykit.client.core.display import Display

__all__ = ["DEFAULT_TIMEOUT", "ClientOptions", "takes_options"]

DEFAULT_TIMEOUT = 120.0

P = ParamSpec("P")
S = TypeVar("S")


@dataclass(frozen=True)
class ClientOptions:
    """Everything ``Client(...)`` and ``AsyncClient(...)`` accept (see :class:`~gatewaykit.Client`).

    ``repr=False`` marks what a client's ``repr`` never shows (the key, headers, objects).
    """

    api_key: Optional[str] = field(default=None, repr=False)
    _: KW_ONLY
    base_url: Optional[str] = field(default=None, repr=False)  # shown resolved, from the connection settings
    offline: bool = field(default=False, repr=False)  # likewise
    timeout: Any = DEFAULT_TIMEOUT
    max_retries: int = 2
    retry_policy: Optional[RetryPolicy] = None
    validate: bool = True
    strict: bool = False  # an unknown keyword raises instead of warning
    ledger: Any = field(default=None, repr=False)
    default_headers: Optional[Mapping[str, str]] = field(default=None, repr=False)
    http_transport: Any = field(default=None, repr=False)
    cassette: Union[str, Path, None] = None
    cassette_mode: str = "auto"
    display: Union[Display, bool, None] = field(default=None, repr=False)
    confirm_over: Optional[float] = None  # USD: a request quoted above it asks first (client/core/confirmation.py)
    cache: Union[bool, str, Path, None] = None  # identical paid requests answered locally (transports/response_cache.py)
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES  # the most an answer may decode to in memory (transports/body_reading.py)

    @property
    def retries(self) -> RetryPolicy:
        """``retry_policy``, else the default policy with ``max_retries``."""
        return self.retry_policy or RetryPolicy(max_retries=self.max_retries)

    def changed(self) -> dict[str, Any]:
        """The options given a value other than their default, among those ``repr`` shows."""
        return {
            item.name: getattr(self, item.name)
            for item in dataclasses.fields(self)
            if item.repr and getattr(self, item.name) != item.default
        }

    def to_pickle(self) -> ClientOptions:
        """These options as they travel to a worker: a custom display is left for the worker to choose."""
        if self.http_transport is not None:
            raise TypeError(
                "a client built with http_transport= cannot be pickled (the transport cannot travel); "
                "build the client in the worker, or leave http_transport out"
            )
        if isinstance(self.display, bool) or self.display is None:
            return self
        return dataclasses.replace(self, display=None)


def takes_options(
    options: Callable[P, ClientOptions],
) -> Callable[[Callable[[S, ClientOptions], None]], Callable[Concatenate[S, P], None]]:
    """Give ``__init__(self, options)`` the keywords of ``options`` (for callers, ``help()`` and type checkers)."""

    def decorate(setup: Callable[[S, ClientOptions], None]) -> Callable[Concatenate[S, P], None]:
        def __init__(self: S, *args: P.args, **kwargs: P.kwargs) -> None:
            setup(self, options(*args, **kwargs))

        own = inspect.signature(options)
        this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        __init__.__signature__ = own.replace(parameters=[this, *own.parameters.values()], return_annotation=None)  # type: ignore[attr-defined]
        __init__.__doc__ = setup.__doc__
        __init__.__qualname__ = setup.__qualname__.rsplit(".", 1)[0] + ".__init__"
        return __init__

    return decorate
