"""A creating call's path, top to bottom, in one place; every creating endpoint runs it.

Each creating endpoint describes itself once as an :class:`Endpoint`; :func:`build_call` turns a
call's keywords into a :class:`Call` and :func:`run_call` runs :data:`STEPS` over it: check, encode,
price (the ledger's recording and budget check), confirm, send (with retries). A step is added by
writing one function and naming it in :data:`STEPS`. The steps in full: ``docs/internals.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional

from gatewaykit.client.api_request import ApiRequest, CallOptions, call_options, encode_json, merge_body
from gatewaykit.client.core import observation
from gatewaykit.client.core.base import raise_for_status
from gatewaykit.client.core.confirmation import confirm_flow
from gatewaykit.client.core.flows import Flow, send_with_retries
from gatewaykit.client.core.model_names import suggest_model
from gatewaykit.client.core.parameter_names import KeywordCheck, check_keywords, keyword_check
from gatewaykit.client.core.recording import Recording
from gatewaykit.errors import GatewayError, UnexpectedResponseError

if TYPE_CHECKING:
    from gatewaykit.client.core.base import BaseClient
    from gatewaykit.types import Model

__all__ = ["STEPS", "Call", "Endpoint", "build_call", "check", "confirm", "encode", "price", "run_call", "send"]


@dataclass(frozen=True)
class Endpoint:
    """One creating endpoint, as the pipeline needs it."""

    name: str  # the call as the user wrote it ("images.edit"), for messages
    path: str
    kind: str  # the ledger's kind of row
    limits: Callable[[Optional[Model], dict[str, Any], Call], None]  # the spec's and the catalog's checks
    uses_catalog: bool = True  # False: ``limits`` hold for any model (chat), the catalog is read only for keywords
    creates_job: bool = False  # a lost answer is never sent again
    default_model_kind: Optional[str] = None  # a missing ``model=`` becomes the catalog's first model of this kind


@dataclass
class Call:
    """One call as data, filled in as it goes down :data:`STEPS`."""

    endpoint: Endpoint
    body: dict[str, Any]
    options: CallOptions
    keywords: Optional[KeywordCheck]
    checked: bool  # whether to check against the catalog (``validate=``, else the client's)
    kind: str
    stream: bool = False
    uploads: Optional[list[tuple[str, bytes, str]]] = None  # multipart ``image[]`` parts (image edits)
    request: Optional[ApiRequest] = None
    recording: Optional[Recording] = None
    response: Any = None


Step = Callable[["BaseClient", Call], Optional[Flow[None]]]


def build_call(
    client: BaseClient,
    endpoint: Endpoint,
    fields: Mapping[str, Any],
    options: Mapping[str, Any],
    *,
    also_typed: Iterable[str] = (),
    uploads: Optional[list[tuple[str, bytes, str]]] = None,
    kind: Optional[str] = None,
    stream: bool = False,
) -> Call:
    """Normalise: typed fields (None = not given), then unknown keywords, then ``extra_body``; the request options."""
    split = call_options(options)
    body = merge_body(dict(fields), split.passthrough, split.extra_body)
    keywords = keyword_check(endpoint.name, (*fields, *also_typed), split.passthrough)
    checked = client._checks_on(split.validate)
    return Call(endpoint, body, split, keywords, checked, kind or endpoint.kind, stream, uploads)


def check(client: BaseClient, call: Call) -> Flow[None]:
    """The default model; then, when checked, unknown keywords and the spec's and the model's limits."""
    endpoint, body = call.endpoint, call.body
    if body.get("model") is None and endpoint.default_model_kind is not None:
        body["model"] = yield from _default_model(client, endpoint)
    if not call.checked:
        return
    entry = None
    if endpoint.uses_catalog or call.keywords is not None:
        entry = yield from client._catalog_entry(body.get("model"))
        if entry is not None:
            yield from check_keywords(client, entry.id, call.keywords, entry)
    if entry is not None or not endpoint.uses_catalog:
        endpoint.limits(entry, body, call)


def encode(client: BaseClient, call: Call) -> None:
    """The HTTP request: the body as JSON, or as form fields beside the uploads."""
    options, body = call.options, call.body
    common: dict[str, Any] = dict(
        headers=options.extra_headers, timeout=options.timeout, stream=call.stream,
        creates_job=call.endpoint.creates_job,
    )  # fmt: skip
    if call.uploads is None:
        call.request = ApiRequest("POST", call.endpoint.path, content=encode_json(body), **common)
        return
    encode_json(body)  # the same refusals as a JSON body (NaN, lone surrogates), naming the field
    form = {key: _form_value(value) for key, value in body.items()}
    files = [("image[]", upload) for upload in call.uploads]
    call.request = ApiRequest("POST", call.endpoint.path, data=form, files=files, **common)


def price(client: BaseClient, call: Call) -> Optional[Flow[None]]:
    """The ledger's row of this call, and its budget check (a ``BudgetExceededError`` stops it here).

    Under a budget, a chat reserves its worst case priced by the catalog: read first (once per client).
    """
    call.recording = client._recording(call.kind, call.body.get("model"), call.body, call.options.confirm)
    if call.recording.worst_case is not None and client._catalog is None and getattr(client.ledger, "has_budget", False):
        return _price_with_catalog(client, call)
    call.recording.check_budget()
    return None


def _price_with_catalog(client: BaseClient, call: Call) -> Flow[None]:
    assert call.recording is not None
    yield from client._catalog_entry(call.recording.model)  # never fails the call (no prices: largest seen)
    call.recording.check_budget()


def confirm(client: BaseClient, call: Call) -> Flow[None]:
    """``confirm_over``: the call's quote, asked about when it passes the threshold (``confirm=True`` skips it)."""
    assert call.recording is not None  # price ran
    yield from confirm_flow(client, call.recording, call.body)


def send(client: BaseClient, call: Call) -> Flow[None]:
    """Send with retries; an error answer is recorded, then raised as its typed exception."""
    assert call.request is not None and call.recording is not None  # encode and price ran
    if observation.current is not None:  # telemetry: a span from here to the recorded outcome
        call.request = observation.request_started(call.recording, call.request, call.body)
    try:
        response, attempts = yield from send_with_retries(call.request, client._policy)
        call.recording.sent(response, attempts)
        raise_for_status(response)
    except GatewayError as exc:
        if isinstance(exc, UnexpectedResponseError) and exc.status is not None and exc.status < 300:
            call.recording.interrupted(exc.message)  # a 2xx that could not be read (too large): may be charged
        else:
            call.recording.error(exc)
        catalog = client._catalog
        suggest_model(exc, call.recording.model, catalog.ids if catalog is not None else None)  # "did you mean ...?"
        raise
    call.response = response


STEPS: tuple[Step, ...] = (check, encode, price, confirm, send)
"""What every creating call goes through, in order."""


def run_call(client: BaseClient, call: Call) -> Flow[Any]:
    """:data:`STEPS` over ``call``; the successful HTTP response (``call.recording`` is its ledger row)."""
    for step in STEPS:
        flow = step(client, call)
        if flow is not None:  # a step that needs the transport (the catalog, the gateway) is a flow
            yield from flow
    return call.response


def _default_model(client: BaseClient, endpoint: Endpoint) -> Flow[str]:
    """The catalog's first model of the endpoint's kind (``chat.ask()`` without ``model=``)."""
    yield from client._catalog_entry(None)
    catalog = client._catalog
    if catalog is not None:
        for entry in catalog.data:
            if entry.kind == endpoint.default_model_kind:
                return entry.id
    raise TypeError("ask() needs model=: the catalog lists no chat model to default to")


def _form_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)
