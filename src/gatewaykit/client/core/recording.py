"""The client's side of the ledger hand-over (see ``gatewaykit/costs/records.py``).

One :class:`Recording` per billable request: ``check_budget`` before it is sent,
then exactly one ``record`` when its outcome is known (``ok``, ``error``,
``interrupted``, or a job's create status). A failing ledger never loses a
result the gateway already charged for: its errors (other than the budget
check, which must stop the request) are logged, not raised.
"""

from __future__ import annotations

import inspect
import logging
import time
from typing import TYPE_CHECKING, Any, Optional

from gatewaykit.client.core import observation
from gatewaykit.errors import APIStatusError, CassetteMissError, GatewayError

if TYPE_CHECKING:
    from gatewaykit.costs.records import CostRecord

__all__ = ["Recording", "job_seconds", "request_summary"]

logger = logging.getLogger("gatewaykit")

# Request fields too bulky (or too private) to keep in a ledger row.
_BULKY = frozenset({"messages", "tools", "prompt", "lyrics_prompt", "input_reference", "logit_bias", "image"})


_CostRecord: Any = None  # gatewaykit.costs.records.CostRecord, once the first row is written


def _cost_record_type() -> Any:
    """The record type, imported with the first row (the costs package is not loaded on import), then kept."""
    global _CostRecord
    from gatewaykit.costs.records import CostRecord

    _CostRecord = CostRecord
    return CostRecord


def request_summary(body: dict[str, Any]) -> dict[str, Any]:
    """The request's parameters as the ledger keeps them: no messages, prompts or media."""
    return {key: value for key, value in body.items() if key not in _BULKY}


def job_seconds(value: Any) -> Optional[float]:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class Recording:
    """The ledger row of one billable request, written once."""

    __slots__ = (
        "ledger", "kind", "model", "request", "started", "attempts", "offline", "replayed", "cached", "done", "base_url",
        "key_id", "confirmed", "body", "reservation", "worst_case", "observed", "result", "prices_wanted",
    )

    def __init__(
        self,
        ledger: Any,
        kind: str,
        model: Optional[str],
        request: dict[str, Any],
        offline: bool,
        base_url: Optional[str] = None,
        key_id: Optional[str] = None,
    ) -> None:
        self.ledger = ledger
        self.base_url = base_url  # the gateway (never the key): a restart resumes its jobs there
        self.key_id = key_id  # the key's one-way fingerprint: a restart resumes only this key's jobs
        self.kind = kind
        self.model = model
        self.request = request
        self.offline = offline
        self.replayed = False
        self.confirmed = False
        self.body: Optional[dict[str, Any]] = None  # the whole request, kept only to quote it (confirm_over)
        self.cached = False
        self.started = 0.0
        self.attempts = 1
        self.done = False
        self.reservation: Any = None  # what the budget check set aside; dropped once recorded
        self.worst_case: Any = None  # () -> the most this request may cost (a chat: prompt + max_tokens)
        self.observed: Any = None  # the telemetry observer's handle (its span) while the request runs
        self.result: Any = None  # the parsed answer (ChatCompletion, ImageResult), for the observer
        self.prices_wanted: Any = None  # (model) -> None: a stream's client fetches a price it lacks (a Stop)

    def check_budget(self) -> None:
        """Ask the ledger before sending; its BudgetExceededError stops the request."""
        check = getattr(self.ledger, "check_budget", None)
        if check is not None and not self.replayed:  # a replay-only client spends nothing
            if self.worst_case is not None and getattr(self.ledger, "reserves_worst_case", False):
                self.reservation = check(self.kind, self.model, self.request, worst_case=self.worst_case)
            else:
                self.reservation = check(self.kind, self.model, self.request)  # released when dropped
        self.started = time.perf_counter()

    def sent(self, response: Any, attempts: int) -> None:
        self.attempts = attempts
        if response.headers.get("x-gateway-offline") == "1":
            self.offline = True
        # Only the client's own cassette or cache says so, in the response's extensions (never a header:
        # a gateway answering "x-gatewaykit-cassette: cached" is still charging for it).
        answered_by = (getattr(response, "extensions", None) or {}).get("gatewaykit_answered_by")  # ANSWERED_BY
        if answered_by == "replayed":
            self.replayed = True  # from a cassette: nothing was sent, nothing charged
        elif answered_by == "cached":
            self.cached = True  # from the response cache: nothing was sent, nothing charged

    def ok(
        self,
        *,
        id: Optional[str] = None,
        usage: Any = None,
        images: Optional[int] = None,
        status: str = "ok",
        seconds: Optional[float] = None,
        result: Any = None,
    ) -> None:
        self.result = result
        usage_dict = usage.model_dump(exclude_none=True) if usage is not None else None
        self._write(status, id=id, usage=usage_dict, images=images, seconds=seconds)

    def error(self, exc: GatewayError) -> None:
        if isinstance(exc, CassetteMissError):  # nothing was sent or answered: no row
            self.reservation = None
            self._observe("error", {"error_type": type(exc).__name__}, None)
            return
        self.attempts = getattr(exc, "attempts", self.attempts)
        self._write(
            "error",
            http_status=exc.status if isinstance(exc, APIStatusError) else None,
            error_code=exc.code,
            error_type=exc.type or type(exc).__name__,
            error_message=exc.message,
        )

    def interrupted(
        self, message: str, *, id: Optional[str] = None, usage: Any = None, received: Optional[str] = None
    ) -> None:
        """A stream that ended early. Closed by the caller (a Stop: ``received`` is what arrived) without the
        gateway's usage, the tokens are estimated (the prompt's and ``received``'s length / 4, as a quote
        counts them) so the ledger can estimate the cost, with the catalog's price if no price was known
        (``prices_wanted``: the client reads it). A stream the network broke off stays unknown."""
        usage_dict = usage.model_dump(exclude_none=True) if usage is not None else None
        if usage_dict is None and received is not None:
            usage_dict = self._estimated_tokens(received)
            if usage_dict is not None:
                message += "; tokens estimated from the prompt and the text received"
                self._want_prices()
        self._write("interrupted", id=id, usage=usage_dict, error_message=message)

    def _want_prices(self) -> None:
        """Before an estimated row is written: let the client fetch the model's price if nobody has it yet."""
        if self.prices_wanted is None or self.replayed or self.cached:  # a replayed or cached answer costs nothing
            return
        try:
            self.prices_wanted(self.model)
        except Exception:  # noqa: BLE001 - without a price the row stays unknown; the Stop still works
            logger.debug("gatewaykit: no price could be fetched for %s", self.model, exc_info=True)

    def _estimated_tokens(self, received: str) -> Optional[dict[str, int]]:
        from gatewaykit.costs.pricing import prompt_token_estimate  # what a quote counts: pictures as pictures

        if self.body is None:
            return None
        prompt = prompt_token_estimate(self.body.get("messages") or [])
        completion = -(-len(received) // 4)  # rounded up: a few characters are a token
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _write(self, status: str, **fields: Any) -> None:
        if self.done:
            return
        self.done = True
        record_method = getattr(self.ledger, "record", None)
        if record_method is None:
            self._observe(status, fields, None)
            return
        record: CostRecord = (_CostRecord or _cost_record_type())(
            kind=self.kind,
            model=self.model,
            status=status,
            latency=(time.perf_counter() - self.started) if self.started else None,
            attempts=self.attempts,
            offline=self.offline,
            replayed=self.replayed,
            cached=self.cached,
            request=self.request,
            base_url=self.base_url,
            key_id=self.key_id,
            **fields,
        )
        row = None
        try:
            row = record_method(record)
        except Exception:  # noqa: BLE001 - the answer was paid for; never lose it to a ledger bug
            logger.exception("gatewaykit: the ledger failed to record a %s request", self.kind)
        self.reservation = None  # the row counts now: release what the budget check set aside
        self._observe(status, fields, row)

    def _observe(self, status: str, fields: dict[str, Any], row: Any) -> None:
        """Tell the telemetry observer that saw this request start how it ended (its ledger row, if any)."""
        handle, self.observed = self.observed, None
        if handle is None:
            return
        # The observer that saw the request start (kept on its handle) ends it, even if telemetry was
        # switched off meanwhile: a span is never left open.
        observer = getattr(handle, "observer", None) or observation.current
        if observer is not None:
            try:
                observer.request_finished(self, handle, status, fields, row)
            except Exception:  # noqa: BLE001 - telemetry never breaks a call
                logger.exception("gatewaykit: telemetry failed on a %s request", self.kind)


def reported_job_cost(job: Any) -> Any:
    """The ``usage.cost.total_cost`` a job's view carries (a classroom's settled cost; the gateway's own job
    views carry none), or None."""
    extra = getattr(job, "__pydantic_extra__", None) or {}
    usage = extra.get("usage")
    cost = usage.get("cost") if isinstance(usage, dict) else None
    return cost.get("total_cost") if isinstance(cost, dict) else None


def _takes_cost(update: Any) -> bool:
    """Whether a ledger's ``update_job`` takes ``cost=`` (a ledger written before it existed does not)."""
    try:
        parameters = inspect.signature(update).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "cost" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def report_job(ledger: Any, job: Any, *, status: Optional[str] = None) -> None:
    """Tell the ledger about a job seen in a terminal state (the ledger makes it idempotent).

    ``status`` overrides ``job.status`` (a DELETE's ``deleted`` of a completed job reports ``completed``).
    """
    update = getattr(ledger, "update_job", None)
    error = getattr(job, "error", None)
    row = None
    if update is not None:
        try:
            more = {}
            cost = reported_job_cost(job)
            if cost is not None and _takes_cost(update):
                more["cost"] = cost
            row = update(
                job.id,
                status=status or job.status,
                seconds=job_seconds(getattr(job, "seconds", None)),
                error_message=getattr(error, "message", None),
                **more,
            )
        except Exception:  # noqa: BLE001
            logger.exception("gatewaykit: the ledger failed to update job %s", job.id)
    observer = observation.current
    if observer is not None:
        try:
            observer.job_finished(job, status or job.status, row)
        except Exception:  # noqa: BLE001 - telemetry never breaks a call
            logger.exception("gatewaykit: telemetry failed on job %s", job.id)
