"""Everything the sync and async clients share, none of it doing I/O (like httpx's ``BaseClient``).

Configuration, request building, response -> model, status -> exception, the
catalog cache, the ledger, and the flows of single billable calls. The
:class:`~gatewaykit.client.Client` and :class:`~gatewaykit.client.AsyncClient`
add only a transport, a flow driver, stream wrappers and closing.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Mapping, Optional, Union

from gatewaykit._version import __version__
from gatewaykit.client.api_request import NOT_GIVEN, ApiRequest, encode_json
from gatewaykit.client.cassette_store import REPLAY_BASE_URL, Cassette
from gatewaykit.client.config import ConnectionSettings, normalise_base_url, resolve_settings
from gatewaykit.client.key_fingerprint import key_id
from gatewaykit.client.model_names import suggest_model
from gatewaykit.client.display import Display, choose_display
from gatewaykit.client.flows import Flow, RetryPolicy, send_with_retries
from gatewaykit.client.recording import Recording, request_summary
from gatewaykit.errors import GatewayError, error_from_response
from gatewaykit.types import Model, ModelList

__all__ = ["BaseClient", "raise_for_status"]

DEFAULT_TIMEOUT = 120.0

logger = logging.getLogger("gatewaykit")


def raise_for_status(response: Any) -> None:
    """The one place where an HTTP error answer becomes a typed exception."""
    status = response.status_code
    if status < 400:
        return
    content = response.content
    try:
        body: Any = json.loads(content) if content else None
    except ValueError:
        body = content.decode("utf-8", "replace") if isinstance(content, bytes) else str(content)
    headers = response.headers
    raise error_from_response(status, body, headers=headers, request_id=headers.get("x-request-id"))


class BaseClient:
    """Configuration and sans-I/O request logic shared by Client and AsyncClient."""

    _is_async = False

    def __init__(
        self,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        offline: bool = False,
        timeout: Any = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        retry_policy: Optional[RetryPolicy] = None,
        validate: bool = True,
        strict: bool = False,
        ledger: Any = None,
        default_headers: Optional[Mapping[str, str]] = None,
        http_transport: Any = None,
        cassette: Any = None,
        cassette_mode: str = "auto",
        display: Union[Display, bool, None] = None,
    ) -> None:
        # What a pickled client takes to a worker (client/pickling.py); the key travels in settings.
        self._options: dict[str, Any] = {
            "timeout": timeout,
            "retry_policy": retry_policy or RetryPolicy(max_retries=max_retries),
            "validate": validate,
            "default_headers": dict(default_headers or {}),
            "display": display if isinstance(display, bool) else None,
        }
        self._custom_transport = http_transport is not None
        self._cassette = Cassette(cassette, cassette_mode) if cassette is not None else None
        self._settings: ConnectionSettings
        if self._cassette is not None and cassette_mode == "replay":
            # Replay never sends anything: no key needed, no offline gateway started, no SVC_* read.
            self._settings = ConnectionSettings(normalise_base_url(base_url or REPLAY_BASE_URL), "", False, "cassette")
        else:
            self._settings = resolve_settings(api_key, base_url, offline)
        self._display: Display = choose_display(display)
        if self._settings.offline:
            try:
                self._display.offline_notice(self._settings.base_url, implicit=self._settings.offline_implicit)
            except Exception:  # noqa: BLE001 - a display problem must not stop the client
                logger.debug("the offline notice could not be shown", exc_info=True)
        self._policy = retry_policy or RetryPolicy(max_retries=max_retries)
        self._validate = validate
        self._strict = strict  # an unknown keyword raises instead of warning
        self._ledger = ledger
        self._catalog: Optional[ModelList] = None
        headers = {
            "Authorization": f"Bearer {self._settings.api_key}",
            "User-Agent": f"gatewaykit/{__version__}",
            "Accept": "application/json",
            "Content-Type": "application/json",
        }
        for name, value in (default_headers or {}).items():
            # A user's header replaces ours whatever its spelling (HTTP names are case-insensitive).
            for ours in [key for key in headers if key.lower() == name.lower()]:
                del headers[ours]
            headers[name] = value
        if self._cassette is not None:
            from gatewaykit.client.cassette import cassette_transport  # httpx loads with the first client

            http_transport = cassette_transport(
                self._cassette, self._settings.base_url, http_transport, is_async=self._is_async
            )
        self._transport = self._make_transport(self._settings.base_url, headers, timeout, http_transport)

    # -- configuration -----------------------------------------------------------------
    def _make_transport(self, base_url: str, headers: dict[str, str], timeout: Any, http_transport: Any) -> Any:
        raise NotImplementedError

    def _run(self, flow: Flow[Any]) -> Any:  # a value (sync) or an awaitable (async)
        raise NotImplementedError

    def _open_chat_stream(self, response: Any, recording: Recording) -> Any:  # a ChatStream or an AsyncChatStream
        raise NotImplementedError

    @property
    def _key_id(self) -> Optional[str]:
        """The one-way fingerprint of this client's key (see ``client/key_fingerprint.py``), never the key."""
        return key_id(self._settings.api_key)

    @property
    def base_url(self) -> str:
        """The gateway host (no ``/v1``)."""
        return self._settings.base_url

    @property
    def offline(self) -> bool:
        """True when this client talks to the built-in offline gateway (synthetic results)."""
        return self._settings.offline

    @property
    def cassette(self) -> Any:
        """The cassette this client records to or replays from (``path``, ``mode``), or None."""
        return self._cassette

    @property
    def display(self) -> Display:
        """What shows this client's streams, job waits, batches and offline notice (chosen at construction)."""
        return self._display

    @property
    def max_retries(self) -> int:
        return self._policy.max_retries

    @property
    def ledger(self) -> Any:
        """The ledger this client records into (by default the process-wide ``gatewaykit.ledger``)."""
        if self._ledger is not None:
            return self._ledger
        from gatewaykit.costs import ledger

        return ledger

    def __reduce__(self) -> Any:
        """Pickles as its settings, the API key included (see :mod:`gatewaykit.client.pickling`)."""
        from gatewaykit.client.pickling import client_state, restore_client

        return (restore_client, (type(self), client_state(self)))

    def __repr__(self) -> str:
        mode = ", offline=True" if self.offline else ""
        return f"{type(self).__name__}(base_url={self.base_url!r}{mode})"

    # -- request building ----------------------------------------------------------------
    @staticmethod
    def _json_request(
        method: str,
        path: str,
        body: Any = None,
        *,
        extra_headers: Optional[Mapping[str, str]] = None,
        timeout: Any = NOT_GIVEN,
        stream: bool = False,
        replay_safe: bool = False,
        creates_job: bool = False,
    ) -> ApiRequest:
        return ApiRequest(
            method,
            path,
            content=encode_json(body) if body is not None else None,
            headers=extra_headers,
            timeout=timeout,
            stream=stream,
            replay_safe=replay_safe,
            creates_job=creates_job,
        )

    def _get(self, path: str, *, extra_headers: Any = None, timeout: Any = NOT_GIVEN) -> Flow[Any]:
        """GET with retries; the successful response (errors raised)."""
        request = ApiRequest("GET", path, headers=extra_headers, timeout=timeout, replay_safe=True)
        response, _ = yield from send_with_retries(request, self._policy)
        raise_for_status(response)
        return response

    # -- catalog --------------------------------------------------------------------------
    def _fetch_models(self, *, extra_headers: Any = None, timeout: Any = NOT_GIVEN) -> Flow[ModelList]:
        response = yield from self._get("/v1/models", extra_headers=extra_headers, timeout=timeout)
        catalog = ModelList.model_validate_json(response.content)
        self._catalog = catalog
        return catalog

    def _checks_on(self, validate: Optional[bool]) -> bool:
        """Whether to check a call against the catalog: its own ``validate=``, else the client's."""
        return self._validate if validate is None else validate

    def _catalog_entry(self, model: Optional[str]) -> Flow[Optional[Model]]:
        """The model's entry from the catalog, fetched once per client; None when unknown or unavailable.

        A failure to fetch the catalog never fails the call: the checks are skipped
        and the gateway answers.
        """
        if self._catalog is None:
            try:
                yield from self._fetch_models()
            except GatewayError:
                return None
        catalog = self._catalog
        if catalog is None or model is None:
            return None
        for entry in catalog.data:
            if entry.id == model:
                return entry
        return None

    # -- one billable call -------------------------------------------------------------------
    def _recording(self, kind: str, model: Optional[str], body: dict[str, Any]) -> Recording:
        recording = Recording(
            self.ledger, kind, model, request_summary(body), self.offline, self.base_url, self._key_id
        )
        recording.replayed = self._cassette is not None and self._cassette.mode == "replay"
        return recording

    def _billable_send(self, request: ApiRequest, recording: Recording) -> Flow[Any]:
        """Budget check, send with retries, record an error outcome; the successful response."""
        recording.check_budget()
        try:
            response, attempts = yield from send_with_retries(request, self._policy)
            recording.sent(response, attempts)
            raise_for_status(response)
        except GatewayError as exc:
            recording.error(exc)
            suggest_model(exc, recording.model, self._catalog.ids if self._catalog is not None else None)
            raise
        return response
