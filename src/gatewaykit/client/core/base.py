"""Everything the sync and async clients share, none of it doing I/O (like httpx's ``BaseClient``).

Configuration, request building, response -> model, status -> exception, the
catalog cache, the ledger, and the flows of single billable calls. The
:class:`~gatewaykit.client.Client` and :class:`~gatewaykit.client.AsyncClient`
add only a transport, a flow driver, stream wrappers and closing.
"""

from __future__ import annotations

import json
import logging
import warnings
from typing import Any, ClassVar, Mapping, Optional

from gatewaykit._version import __version__
from gatewaykit.client.api_request import NOT_GIVEN, ApiRequest
from gatewaykit.client.transports.body_reading import ACCEPTED_CODINGS, check_limit
from gatewaykit.client.transports.cassette_store import REPLAY_BASE_URL, Cassette
from gatewaykit.client.core.config import ConnectionSettings, normalise_base_url, resolve_settings, offline_gateway_settings
from gatewaykit.client.core.key_fingerprint import key_id
from gatewaykit.client.core.classroom_key import is_classroom_key
from gatewaykit.client.core.display import Display, choose_display
from gatewaykit.client.core.flows import Flow, send_with_retries
from gatewaykit.client.core.options import DEFAULT_TIMEOUT, ClientOptions
from gatewaykit.client.core.confirmation import confirm_threshold
from gatewaykit.client.core.recording import Recording, request_summary
from gatewaykit.client.core.grading_switches import current_switches, shared_cassette
from gatewaykit.costs.assumed_output import assumed_output, unbounded
from gatewaykit.costs.catalog_prices import CatalogPrices
from gatewaykit.costs.pricing import PriceTable, PriceTableWarning
from gatewaykit.costs.quotes import Quote
import gatewaykit.costs as costs_package  # its ``ledger``: the process-wide Ledger, made when first read
from gatewaykit.error_text import mask_url, remember_secret, remember_url_secret
from gatewaykit.errors import ConfigurationError, GatewayError, error_from_response
from gatewaykit.types import Model, ModelList
from gatewaykit.client.transports.response_decoding import call_of, read_model

__all__ = ["DEFAULT_TIMEOUT", "BaseClient", "raise_for_status"]

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
    raise error_from_response(
        status, body, headers=headers, request_id=headers.get("x-request-id"), call=call_of(response)
    )


class BaseClient:
    """Configuration and sans-I/O request logic shared by Client and AsyncClient."""

    _is_async: ClassVar[bool] = False  # AsyncClient: True (what kind of transport a cassette wraps)

    def _setup(self, options: ClientOptions, settings: Optional[ConnectionSettings] = None) -> None:
        """Build the client from its options; ``settings``: a pickled client's resolved connection (no lookup)."""
        self._options = options
        max_response_bytes = check_limit(options.max_response_bytes)
        self._confirm_over = confirm_threshold(options.confirm_over)
        switches = current_switches()  # the grader's switches: read by the first client, ConfigurationError if bad
        self._switches = switches
        self._cassette = shared_cassette(switches) or (
            Cassette(options.cassette, options.cassette_mode) if options.cassette is not None else None
        )
        if settings is not None and switches.offline and not settings.offline:
            settings = None  # a client pickled elsewhere, unpickled under GATEWAYKIT_OFFLINE=1: the offline gateway
        fresh = settings is None  # a pickled client's gateway was announced where it was built
        if settings is None:
            settings = self._resolve_settings(options)
        announce = fresh and settings.offline
        self._settings = settings
        self._key_fingerprint = key_id(settings.api_key)  # hashed once, not per request
        # Whatever their shape, this key and a password in the base URL are scrubbed from every error message
        # (and so from the ledger's rows); the URL is shown and stored with its password masked.
        remember_secret(settings.api_key)
        remember_url_secret(settings.base_url)
        self._shown_url = mask_url(settings.base_url) or settings.base_url
        self._display: Display = choose_display(options.display)
        if announce:
            try:
                self._display.offline_notice(self._settings.base_url, implicit=self._settings.offline_implicit)
            except Exception:  # noqa: BLE001 - a display problem must not stop the client
                logger.debug("the offline notice could not be shown", exc_info=True)
        elif fresh and self._cassette is None and is_classroom_key(settings.api_key):
            # A student's key: the display says where they are (the class, their name, what is left), once.
            class_notice = getattr(self._display, "class_notice", None)  # optional: a user's own Display may lack it
            if class_notice is not None:
                try:
                    class_notice(settings.base_url, settings.api_key)
                except Exception:  # noqa: BLE001 - a display problem must not stop the client
                    logger.debug("the class notice could not be shown", exc_info=True)
        self._policy = options.retries
        self._catalog: Optional[ModelList] = None
        self._catalog_prices: Optional[CatalogPrices] = None
        headers = {
            "Authorization": f"Bearer {self._settings.api_key}",
            "User-Agent": f"gatewaykit/{__version__}",
            "Accept": "application/json",
            "Accept-Encoding": ACCEPTED_CODINGS,  # the codings BodyReader decodes within max_response_bytes
            "Content-Type": "application/json",
        }
        for name, value in (options.default_headers or {}).items():
            # A user's header replaces ours whatever its spelling (HTTP names are case-insensitive).
            for ours in [key for key in headers if key.lower() == name.lower()]:
                del headers[ours]
            headers[name] = value
        # Under GATEWAYKIT_OFFLINE=1 a student's transport (a proxy, a mock) is not used: only the offline gateway.
        http_transport = None if switches.offline else options.http_transport
        # Requests go through the proxy the environment names: never to the offline gateway (in this process, on
        # loopback), and not through a transport of the user's own, which decides for itself.
        through_environment = not self._settings.offline and http_transport is None
        replaying = self._cassette is not None and self._cassette.mode == "replay"
        if through_environment and not replaying:
            from gatewaykit.client.transports.environment_proxies import check_environment_proxies

            check_environment_proxies()  # a proxy httpx cannot use: a ConfigurationError naming the variable
        # Under a grading switch every run computes afresh (a response cache on disk would make a run depend
        # on the runs before it); the switch's cassette answers instead.
        self._cache: Any = None if switches.offline or switches.cassette else self._response_cache(options.cache)
        if self._cassette is not None or self._cache is not None:
            from gatewaykit.client.transports.cassette import cassette_transport  # httpx loads with the first client

            store: Any = self._cassette or self._cache
            http_transport = cassette_transport(store, self._settings.base_url, http_transport, is_async=self._is_async,
                                                trust_env=through_environment)
        self._transport = self._make_transport(self._settings.base_url, headers, options.timeout, http_transport)
        self._transport.max_response_bytes = max_response_bytes
        self._transport.environment_proxies = through_environment  # a connection error then names the proxy

    def _resolve_settings(self, options: ClientOptions) -> ConnectionSettings:
        switches = self._switches
        if self._cassette is not None and self._cassette.mode == "replay":
            # Replay never sends anything: no key needed, no offline gateway started, no SVC_* read.
            url = None if switches.cassette is not None else options.base_url
            return ConnectionSettings(normalise_base_url(url or REPLAY_BASE_URL), "", False, "cassette")
        if switches.offline:  # whatever key, URL or offline= the code passed
            return offline_gateway_settings(switched=True)
        return resolve_settings(options.api_key, options.base_url, options.offline)

    def _response_cache(self, cache: Any) -> Any:
        """The ``cache=`` store for this gateway and key (one partition for the offline gateway), or None."""
        if cache is None or cache is False:
            return None
        if self._cassette is not None:
            raise ConfigurationError("cache= and cassette= cannot be used together: a cassette already answers "
                                     "what it recorded; use one of them")  # fmt: skip
        from gatewaykit.client.transports.response_cache import ResponseCache

        partition = "offline" if self._settings.offline else f"{self._settings.base_url}|{self._key_id}"
        return ResponseCache(cache, partition)

    # -- configuration -----------------------------------------------------------------
    def _make_transport(self, base_url: str, headers: dict[str, str], timeout: Any, http_transport: Any) -> Any:
        raise NotImplementedError

    def _run(self, flow: Flow[Any]) -> Any:  # a value (sync) or an awaitable (async)
        raise NotImplementedError

    def _open_chat_stream(self, response: Any, recording: Recording) -> Any:  # a ChatStream or an AsyncChatStream
        raise NotImplementedError

    @property
    def _key_id(self) -> Optional[str]:
        """The one-way fingerprint of this client's key (see ``client/core/key_fingerprint.py``), never the key."""
        return self._key_fingerprint

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
    def cache(self) -> Any:
        """The response cache this client answers identical paid requests from (``Client(cache=...)``), or None."""
        return self._cache

    @property
    def display(self) -> Display:
        """What shows this client's streams, job waits, batches and offline notice (chosen at construction)."""
        return self._display

    @property
    def max_retries(self) -> int:
        return self._policy.max_retries

    @property
    def options(self) -> ClientOptions:
        """What this client was built with (frozen; ``dataclasses.replace`` it to build another)."""
        return self._options

    @property
    def ledger(self) -> Any:
        """The ledger this client records into (by default the process-wide ``gatewaykit.ledger``)."""
        ledger = self._options.ledger
        if ledger is not None:
            return ledger
        return costs_package.ledger  # read on every call (twice per request): an attribute, not an import statement

    def __reduce__(self) -> Any:
        """Pickles as its settings, the API key included (see :mod:`gatewaykit.client.core.pickling`)."""
        from gatewaykit.client.core.pickling import client_state, restore_client

        return (restore_client, (type(self), *client_state(self)))

    def __repr__(self) -> str:
        shown = {"base_url": self._shown_url, **({"offline": True} if self.offline else {}), **self._options.changed()}
        return f"{type(self).__name__}({', '.join(f'{name}={value!r}' for name, value in shown.items())})"

    # -- reading ------------------------------------------------------------------------
    def _get(self, path: str, *, extra_headers: Any = None, timeout: Any = NOT_GIVEN) -> Flow[Any]:
        """GET with retries; the successful response (errors raised)."""
        request = ApiRequest("GET", path, headers=extra_headers, timeout=timeout, replay_safe=True)
        response, _ = yield from send_with_retries(request, self._policy)
        raise_for_status(response)
        return response

    # -- catalog --------------------------------------------------------------------------
    def _fetch_models(self, *, extra_headers: Any = None, timeout: Any = NOT_GIVEN) -> Flow[ModelList]:
        response = yield from self._get("/v1/models", extra_headers=extra_headers, timeout=timeout)
        return self._adopt_catalog(read_model(ModelList, response))

    def _adopt_catalog(self, catalog: ModelList) -> ModelList:
        """The catalog just read becomes the pre-send checks' cache and a price source of the ledger's table."""
        prices = getattr(self.ledger, "prices", None)
        if isinstance(prices, PriceTable):
            self._check_price_table(prices, catalog)
        self._catalog = catalog
        self._catalog_prices = CatalogPrices(catalog.data)
        if isinstance(prices, PriceTable) and self._catalog_prices:
            prices.add_source(self.base_url, self._catalog_prices)  # jobs' rows become estimated, not unreported
        return catalog

    def _check_price_table(self, prices: PriceTable, catalog: ModelList) -> None:
        """An entry naming no model of this catalog: PriceTableWarning, or with ``strict=True`` a ValueError."""
        for message in prices.unknown_models(self.base_url, catalog.ids):
            if self._options.strict:
                prices._checked.discard(self.base_url)  # refused again on the next call
                raise ValueError(message + "; fix the table (nothing was sent)")
            warnings.warn(message, PriceTableWarning, stacklevel=2)

    def _prices(self) -> PriceTable:
        """What prices a quote: the ledger's price table (then the catalogs it was given), else the catalog."""
        prices = getattr(self.ledger, "prices", None)
        if isinstance(prices, PriceTable):
            return prices
        table = PriceTable()
        if self._catalog_prices:
            table.add_source(self.base_url, self._catalog_prices)
        return table

    def _quote(self, kind: str, model: Optional[str], body: Mapping[str, Any], assume_output: bool = True) -> Quote:
        """What sending ``body`` would cost, from the price table, else this gateway's catalog. A chat without
        ``max_tokens`` is quoted at the output the catalog states for its model, and the quote says so
        (:mod:`gatewaykit.costs.assumed_output`; ``assume_output=False``: at its prompt alone)."""
        output = None
        if assume_output and kind.startswith("chat") and unbounded(body):
            output = assumed_output(self._catalog_fields(model))
        return self._prices().quote(kind, model, body, output)

    def _catalog_fields(self, model: Optional[str]) -> Optional[dict[str, Any]]:
        """The catalog entry of ``model`` as read (extra fields included), when the catalog was read and lists it."""
        catalog = self._catalog
        for entry in catalog.data if catalog is not None and model is not None else ():
            if entry.id == model:
                return {**(entry.__pydantic_extra__ or {}), "id": entry.id}
        return None

    def _checks_on(self, validate: Optional[bool]) -> bool:
        """Whether to check a call against the catalog: its own ``validate=``, else the client's."""
        return self._options.validate if validate is None else validate

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

    # -- one billable call (the rest of its path: client/core/request_pipeline.py) -----------------
    def _recording(self, kind: str, model: Optional[str], body: dict[str, Any], confirm: bool = False) -> Recording:
        recording = Recording(
            self.ledger, kind, model, request_summary(body), self.offline, self._shown_url, self._key_id
        )
        recording.replayed = self._cassette is not None and self._cassette.mode == "replay"
        recording.confirmed = bool(confirm)  # confirm=True: sent whatever its quote
        if self._confirm_over is not None or kind == "chat.stream":
            recording.body = body  # a chat's quote counts its messages; so does a stopped stream's estimate
        if kind.startswith("chat"):  # the budget reserves a chat's worst case while it is in flight
            recording.worst_case = lambda: self._quote(kind, model, body, assume_output=False).total_cost
        return recording
