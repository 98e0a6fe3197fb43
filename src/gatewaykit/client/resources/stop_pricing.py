"""A stream closed early (a Stop) is priced from the catalog even when nobody listed the models.

A stopped answer has no usage from the gateway: its tokens are estimated from
the prompt and the text received, and the ledger prices them with what it
knows. The chat box reads the catalog, so its Stops were estimated; a script
that never called ``client.models.list()`` had no price, and its stopped
answers were "unknown (not counted)". Before such a row is written,
:func:`fetch_price_for` reads the catalog once for the client (one ``GET
/v1/models``, no retry, a short timeout: :mod:`~gatewaykit.client.resources.blocking_sends`),
which becomes a price source of the ledger's table as ``models.list()`` makes
it: the row is then ``estimated`` and counted in the totals and the budget
(a cost the gateway reports in the stream replaces it). When the read fails,
or the catalog has no price for the model, the row stays unknown and the
catalog is not asked again by this client.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Optional

from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.core.flows import Flow
from gatewaykit.client.resources.blocking_sends import blocking_runner, send_once
from gatewaykit.client.transports.response_decoding import read_model
from gatewaykit.costs.pricing import PriceTable
from gatewaykit.errors import GatewayError
from gatewaykit.types import ModelList

__all__ = ["fetch_price_for"]

logger = logging.getLogger("gatewaykit")


def fetch_price_for(client: BaseClient, model: Optional[str]) -> None:
    """Make ``model``'s chat price known to ``client``'s ledger, reading the catalog once if it has none."""
    prices = getattr(client.ledger, "prices", None)
    if not isinstance(prices, PriceTable) or _priced(prices, model):
        return  # a price source of the user's prices what it can; a known price needs nothing
    asking = client.__dict__.setdefault("_stop_catalog_lock", threading.Lock())  # two Stops at once: one request
    with asking:
        if client._catalog_prices is not None or client.__dict__.get("_stop_catalog_asked"):
            return  # the catalog was read (it has no price for this model) or asked for already
        client.__dict__["_stop_catalog_asked"] = True
        run = blocking_runner(client)
        if run is None:
            return
        try:
            run(_catalog_flow(client))
        except GatewayError:  # the gateway is down, the catalog refused: the row stays unknown
            logger.debug("gatewaykit: the catalog could not be read to price a stopped stream", exc_info=True)


def _priced(prices: PriceTable, model: Optional[str]) -> bool:
    try:
        return prices.estimate("chat", model, prompt_tokens=1, completion_tokens=1) is not None
    except (TypeError, ValueError, ArithmeticError):
        return False


def _catalog_flow(client: BaseClient) -> Flow[Any]:
    response = yield from send_once("/v1/models")
    return client._adopt_catalog(read_model(ModelList, response))
