"""``client.models``: the catalog (``GET /v1/models``), cached per client for the pre-send checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, Optional, cast, overload

from gatewaykit.client.resources.awaitable_surface import awaitable_method
from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.core.flows import Flow
from gatewaykit.client.api_request import NOT_GIVEN
from gatewaykit.client.resources.model_choice import choose_model, missing_kind_note
from gatewaykit.client.core.classroom_key import is_classroom_key
from gatewaykit.client.core.model_names import closest_model
from gatewaykit.errors import ModelNotFoundError
from gatewaykit.types import Model, ModelList
from gatewaykit.error_text import public_call

__all__ = ["AsyncModels", "Models"]


class Models:
    """The models this key may call."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    @public_call
    def list(self, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN) -> ModelList:
        """Fetch the catalog (always fresh); it also replaces the cache the pre-send checks use."""
        return cast(ModelList, self._client._run(self._client._fetch_models(extra_headers=extra_headers, timeout=timeout)))

    @public_call
    def get(self, model_id: str, *, timeout: Any = NOT_GIVEN) -> Model:
        """One catalog entry. Uses the cached catalog; refetches once before raising ModelNotFoundError."""
        return cast(Model, self._client._run(self._get(model_id, timeout)))

    def _get(self, model_id: str, timeout: Any) -> Flow[Model]:
        catalog = self._client._catalog
        if catalog is not None and model_id in catalog:
            return catalog[model_id]
        catalog = yield from self._client._fetch_models(timeout=timeout)
        if model_id in catalog:
            return catalog[model_id]
        close = closest_model(model_id, catalog.ids)
        hint = f" Did you mean {close!r}?" if close else ""
        raise ModelNotFoundError(
            f"The model {model_id!r} is not in the catalog for this key.{hint} Available: {', '.join(catalog.ids)}",
            param="model",
        )

    @overload
    def pick(self, kind: str, needs: Iterable[str] = (), *, optional: Literal[False] = False,
             timeout: Any = NOT_GIVEN) -> str: ...

    @overload
    def pick(self, kind: str, needs: Iterable[str] = (), *, optional: bool, timeout: Any = NOT_GIVEN) -> Optional[str]: ...

    def pick(self, kind: str, needs: Iterable[str] = (), *, optional: bool = False,
             timeout: Any = NOT_GIVEN) -> Optional[str]:
        """The id of a ``kind`` model ("chat", "image", "video", "music") accepting every name in ``needs``.

        A need is a catalog parameter (``"width"``, ``"resolution"``) or a capability
        (``"vision"``, ``"reasoning"``, ``"tools"``, ``"json_schema"``, ``"edit"``,
        ``"image_to_video"``), so one notebook runs offline and on the real gateway.
        Uses the cached catalog (fetched once); raises ModelNotFoundError listing what
        the key's models accept when none fits. ``optional=True``: prints a note saying so
        instead (in a class: the class does not allow it) and returns None, so a notebook's
        ``if MODEL:`` skips that part and Run All goes on. Async clients: ``await``.
        """
        return cast(Optional[str], self._client._run(self._pick(kind, needs, optional, timeout)))

    def _pick(self, kind: str, needs: Iterable[str], optional: bool, timeout: Any) -> Flow[Optional[str]]:
        catalog = self._client._catalog
        if catalog is None:
            catalog = yield from self._client._fetch_models(timeout=timeout)
        try:
            return choose_model(catalog, kind, needs)
        except ModelNotFoundError:
            if not optional:
                raise
        print(missing_kind_note(catalog, kind, needs, in_class=is_classroom_key(self._client._settings.api_key)))
        return None

    @property
    def cached(self) -> Optional[ModelList]:
        """The catalog as last fetched by this client (None before the first fetch)."""
        return self._client._catalog


class AsyncModels(Models):
    """``aclient.models``: the same calls, awaitable."""

    if TYPE_CHECKING:
        list = awaitable_method(Models.list)  # type: ignore[assignment]
        get = awaitable_method(Models.get)  # type: ignore[assignment]

        @overload  # type: ignore[override]
        async def pick(self, kind: str, needs: Iterable[str] = (), *, optional: Literal[False] = False,
                       timeout: Any = NOT_GIVEN) -> str: ...

        @overload
        async def pick(self, kind: str, needs: Iterable[str] = (), *, optional: bool,
                       timeout: Any = NOT_GIVEN) -> Optional[str]: ...

        async def pick(self, kind: str, needs: Iterable[str] = (), *, optional: bool = False,
                       timeout: Any = NOT_GIVEN) -> Optional[str]: ...
