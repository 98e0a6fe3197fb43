"""One ledger row per request or job, built from a :class:`CostRecord`.

Rows are slotted dataclasses built without pandas (:mod:`gatewaykit.costs.frames` makes DataFrames);
``COLUMNS`` is the DataFrame's column order. ``cost_source`` says where ``total_cost`` came from
(``reported``, ``not reported``, ``estimated``, ``replayed``, ``cached``, ``none``, ``unknown``); an amount
that is not a finite number >= 0 is kept out of every total. The meaning of each: ``docs/internals.md``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from sys import intern as _intern
from dataclasses import dataclass, fields
from urllib.parse import urlsplit
from typing import Any, Literal, Optional

from gatewaykit.costs.records import CostRecord
from gatewaykit.money import format_usd
from gatewaykit.types.common import Cost
from gatewaykit.types.jobs import FINISHED_STATES, JobStatus
from gatewaykit.types.replayed import REPLAYED_NOTE, cached_note, replayed_note

__all__ = [
    "CHARGED_SOURCES",
    "COLUMNS",
    "COST_FIELDS",
    "JOB_KINDS",
    "REPLAYED_NOTE",
    "STATUS_ALIASES",
    "TERMINAL_STATES",
    "JobTransition",
    "LedgerRow",
    "job_transition",
    "row_from_record",
    "valid_amount",
    "replayed_note",
]

REPORTED = "reported"
NOT_REPORTED = "not reported"
ESTIMATED = "estimated"
NONE = "none"
UNKNOWN = "unknown"
REPLAYED = "replayed"
# REPLAYED_NOTE and replayed_note(usage): the replayed row's note, in gatewaykit.types.replayed (the types' own
# text faces say it too) and imported here, where the ledger's code and the displays have always found them.
CACHED = "cached"
NOT_SENT_SOURCES = frozenset({REPLAYED, CACHED})  # answered locally: never charged, whatever the status
CHARGED_SOURCES = frozenset({REPORTED, NOT_REPORTED, ESTIMATED})

JOB_KINDS = frozenset({"video", "music"})
# DELETE of an unfinished video answers "cancelled or deleted" (spec); both mean never charged.
STATUS_ALIASES = {"canceled": "cancelled", "deleted": "cancelled"}
TERMINAL_STATES = FINISHED_STATES  # the one finished set (types/jobs.py)
# The breakdown fields of ``usage.cost`` (every field of the Cost type but the total).
COST_FIELDS = tuple(name for name in Cost.model_fields if name != "total_cost")
# Request fields kept (privately, never as columns) so a job can be priced when it completes.
PRICING_FIELDS = ("n", "duration", "seconds", "generate_audio", "resolution", "quality", "size")


@dataclass(slots=True)
class LedgerRow:
    """One request or job. ``pricing`` is private: the request fields a price table needs."""

    time: float
    kind: str
    model: Optional[str]
    status: str
    id: Optional[str] = None
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None
    reasoning_tokens: Optional[int] = None
    cached_tokens: Optional[int] = None
    total_tokens: Optional[int] = None
    images: Optional[int] = None
    seconds: Optional[float] = None
    total_cost: Optional[float] = None
    input_tokens_cost: Optional[float] = None
    output_tokens_cost: Optional[float] = None
    reasoning_tokens_cost: Optional[float] = None
    citation_tokens_cost: Optional[float] = None
    search_queries_cost: Optional[float] = None
    request_cost: Optional[float] = None
    cost_source: str = NONE
    charged: Optional[bool] = False  # None: the client cannot know (cost_source "unknown")
    latency: Optional[float] = None
    attempts: int = 1
    http_status: Optional[int] = None
    error_code: Optional[str] = None
    error_type: Optional[str] = None
    error_message: Optional[str] = None
    tags: tuple = ()
    offline: bool = False
    finished_time: Optional[float] = None
    note: Optional[str] = None
    session: Optional[str] = None
    host: Optional[str] = None
    pricing: Optional[dict] = None
    saved_cost: Optional[float] = None  # cached rows: what the kept answer cost when it was made

    def as_dict(self) -> dict[str, Any]:
        """The public columns as a fresh dict (``tags`` as a tuple)."""
        return {name: getattr(self, name) for name in COLUMNS}

    def to_json(self) -> dict[str, Any]:
        """Everything, JSON-ready (for the persisted file)."""
        out = {name: getattr(self, name) for name in _ALL_FIELDS}
        out["tags"] = list(self.tags)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "LedgerRow":
        known = {k: v for k, v in data.items() if k in _ALL_FIELD_SET}
        known["tags"] = tuple(known.get("tags") or ())
        return cls(**known)


_ALL_FIELDS = tuple(f.name for f in fields(LedgerRow))
_ALL_FIELD_SET = frozenset(_ALL_FIELDS)
COLUMNS = tuple(name for name in _ALL_FIELDS if name != "pricing")
_NO_AMOUNTS: dict[str, Any] = {}  # a usage without a cost breakdown


def _number(value: Any) -> Optional[float]:
    kind = type(value)
    if kind is float:
        return value
    if value is None or kind is bool:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def valid_amount(value: Any) -> Optional[float]:
    """``value`` as USD when it is a finite number >= 0, else None (NaN, infinity, negative: no amount)."""
    if value.__class__ is float:  # the usual amount: one comparison (NaN and infinity fail it)
        return value if 0.0 <= value < math.inf else None
    number = _number(value)
    if number is None or not math.isfinite(number) or number < 0:
        return None
    return number


@lru_cache(maxsize=64)  # every row of a client names the same gateway: split its URL once
def host_of(base_url: Optional[str]) -> Optional[str]:
    """The gateway's host (``gateway.example``, ``127.0.0.1:8765``) from its base URL."""
    if not base_url:
        return None
    try:
        return urlsplit(base_url).netloc or None
    except ValueError:
        return None


def _integer(value: Any) -> Optional[int]:
    kind = type(value)
    if kind is int or value is None:
        return value
    if kind is bool:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _pricing_fields(request: Optional[dict[str, Any]]) -> Optional[dict]:
    if not request:
        return None
    kept = {k: request[k] for k in PRICING_FIELDS if request.get(k) is not None}
    return kept or None


def row_from_record(record: CostRecord, tags: tuple = (), session: Optional[str] = None) -> LedgerRow:
    """Flatten a record into a row; the ledger settles ``cost_source`` from its status."""
    # One constructor call (this runs once per request, in the caller's thread): the usage's columns
    # are read first. Model, kind and status repeat on every row: intern them so rows share one string each.
    prompt_tokens = completion_tokens = reasoning_tokens = cached_tokens = total_tokens = None
    total_cost = note = None
    cost_source = NONE
    amounts: dict[str, Any] = _NO_AMOUNTS
    usage = record.usage
    if usage:
        get = usage.get
        prompt_tokens = _integer(get("prompt_tokens"))
        completion_tokens = _integer(get("completion_tokens"))
        total_tokens = _integer(get("total_tokens"))
        completion_details = get("completion_tokens_details")
        if completion_details:
            reasoning_tokens = _integer(completion_details.get("reasoning_tokens"))
        prompt_details = get("prompt_tokens_details")
        if prompt_details:
            cached = prompt_details.get("cached_tokens")
            if cached is None:
                cached = prompt_details.get("cached_read_tokens")
            cached_tokens = _integer(cached)
        cost = get("cost")
        if cost:
            reported = cost.get("total_cost")
            total_cost = valid_amount(reported)
            if total_cost is not None:
                cost_source = REPORTED
            elif reported is not None:
                note = invalid_amount_note(reported)
            amounts = {name: valid_amount(value) for name in COST_FIELDS if (value := cost.get(name)) is not None}
    model = record.model
    row = LedgerRow(
        time=float(record.time),
        kind=_intern(str(record.kind)),
        model=_intern(model) if model.__class__ is str else model,
        status=_intern(str(record.status)),
        id=record.id,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=reasoning_tokens,
        cached_tokens=cached_tokens,
        total_tokens=total_tokens,
        images=record.images,
        seconds=_number(record.seconds),
        total_cost=total_cost,
        cost_source=cost_source,
        latency=record.latency,
        attempts=record.attempts,
        http_status=record.http_status,
        error_code=record.error_code,
        error_type=record.error_type,
        error_message=record.error_message,
        tags=tags,
        offline=bool(record.offline),
        note=note,
        session=session,
        host=host_of(getattr(record, "base_url", None)),
        **amounts,  # the cost breakdown the gateway reported (COST_FIELDS)
    )
    if getattr(record, "cached", False):
        saved = row.total_cost
        for name in COST_FIELDS:
            setattr(row, name, None)
        row.total_cost, row.cost_source, row.saved_cost = 0.0, CACHED, saved
        row.note = cached_note(saved)
        return row
    if getattr(record, "replayed", False):
        recorded = row.total_cost
        for name in COST_FIELDS:
            setattr(row, name, None)
        row.total_cost, row.cost_source = 0.0, REPLAYED
        row.note = replayed_note(recorded)
        return row
    if record.kind in JOB_KINDS or (record.kind.startswith("image") and row.images is None):
        row.pricing = _pricing_fields(record.request)
    return row


def invalid_amount_note(value: Any) -> str:
    """What a row says about a reported cost that is not an amount (kept out of every total)."""
    return f"reported cost {value!r} is not a finite amount >= $0: not counted"


JobTransition = Literal["ignore", "advance", "finish", "conflict"]


def job_transition(current: str, reported: str, *, missing_seconds: bool = False) -> JobTransition:
    """The ledger's job state machine: what a job row in state ``current`` does with a ``reported`` status.

    - ``advance``: both unfinished and different (queued -> in_progress); the row takes the new status;
    - ``finish``: an unfinished row reaches a finished state (settle its cost), or a completed row
      hears ``completed`` again with the run time it lacked (``missing_seconds``);
    - ``conflict``: a finished row is reported in another finished state (the first one is kept);
    - ``ignore``: nothing changes (a repeat, or an unfinished report about a finished row).

    Pure: the ledger applies the outcome under its lock.
    """
    if reported not in FINISHED_STATES:
        return "advance" if current not in FINISHED_STATES and current != reported else "ignore"
    if current in FINISHED_STATES:
        if current != reported:
            return "conflict"
        return "finish" if reported == JobStatus.COMPLETED and missing_seconds else "ignore"
    return "finish"
