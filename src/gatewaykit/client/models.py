"""``client.models``: the catalog (``GET /v1/models``), cached per client for the pre-send checks."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

from gatewaykit.client.base import BaseClient
from gatewaykit.client.flows import Flow
from gatewaykit.client.model_choice import choose_model
from gatewaykit.client.requests import NOT_GIVEN
from gatewaykit.errors import ModelNotFoundError
from gatewaykit.types import Model, ModelList

__all__ = ["Models"]


class Models:
    """The models this key may call."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    def list(self, *, extra_headers: Optional[Mapping[str, str]] = None, timeout: Any = NOT_GIVEN) -> Any:
        """Fetch the catalog (always fresh); it also replaces the cache the pre-send checks use."""
        return self._client._run(self._client._fetch_models(extra_headers=extra_headers, timeout=timeout))

    def get(self, model_id: str, *, timeout: Any = NOT_GIVEN) -> Any:
        """One catalog entry. Uses the cached catalog; refetches once before raising ModelNotFoundError."""
        return self._client._run(self._get(model_id, timeout))

    def _get(self, model_id: str, timeout: Any) -> Flow[Model]:
        catalog = self._client._catalog
        if catalog is not None and model_id in catalog:
            return catalog[model_id]
        catalog = yield from self._client._fetch_models(timeout=timeout)
        if model_id in catalog:
            return catalog[model_id]
        raise ModelNotFoundError(
            f"The model {model_id!r} is not in the catalog for this key; available: {', '.join(catalog.ids)}",
            param="model",
        )

    def pick(self, kind: str, needs: Iterable[str] = (), *, timeout: Any = NOT_GIVEN) -> Any:
        """The id of a ``kind`` model ("chat", "image", "video", "music") accepting every name in ``needs``.

        A need is a catalog parameter (``"width"``, ``"resolution"``) or a capability
        (``"vision"``, ``"reasoning"``, ``"tools"``, ``"json_schema"``, ``"edit"``,
        ``"image_to_video"``), so one notebook runs offline and on the real gateway.
        Uses the cached catalog (fetched once); raises ModelNotFoundError listing what
        the key's models accept when none fits. Async clients: ``await``.
        """
        return self._client._run(self._pick(kind, needs, timeout))

    def _pick(self, kind: str, needs: Iterable[str], timeout: Any) -> Flow[str]:
        catalog = self._client._catalog
        if catalog is None:
            catalog = yield from self._client._fetch_models(timeout=timeout)
        return choose_model(catalog, kind, needs)

    @property
    def cached(self) -> Optional[ModelList]:
        """The catalog as last fetched by this client (None before the first fetch)."""
        return self._client._catalog
