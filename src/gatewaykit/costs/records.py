"""What the client hands to a ledger: one plain record per request or job.

The hand-over protocol between the client core and a ledger (any object with ``check_budget``,
``record`` and ``update_job`` can be passed as ``Client(ledger=...)``; ``update_job`` may take the
``cost`` a job's view reports) and :class:`CostRecord`, the plain data it carries. When each is called
and with what: ``docs/internals.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol

__all__ = ["KINDS", "CostRecord", "LedgerSink"]

KINDS = ("chat", "chat.stream", "image.generate", "image.edit", "video", "music")


@dataclass
class CostRecord:
    """One billable request or job, as the client saw it. Plain data, no API key."""

    kind: str
    model: Optional[str]
    status: str
    id: Optional[str] = None
    time: float = field(default_factory=time.time)
    usage: Optional[dict[str, Any]] = None
    images: Optional[int] = None
    seconds: Optional[float] = None
    latency: Optional[float] = None
    attempts: int = 1
    http_status: Optional[int] = None
    error_code: Optional[str] = None
    error_type: Optional[str] = None
    error_message: Optional[str] = None
    offline: bool = False
    request: Optional[dict[str, Any]] = None
    replayed: bool = False  # answered from a cassette: nothing sent, never charged
    cached: bool = False  # answered from the response cache (Client(cache=...)): nothing sent, never charged
    base_url: Optional[str] = None
    """The gateway the request went to (kept for jobs, so a restart can resume them)."""
    key_id: Optional[str] = None
    """A one-way fingerprint of the key that sent it (never the key): a restart resumes only that key's jobs."""


class LedgerSink(Protocol):
    def check_budget(self, kind: str, model: Optional[str], request: dict[str, Any]) -> None: ...

    def record(self, record: CostRecord) -> None: ...

    def update_job(
        self,
        job_id: str,
        *,
        status: str,
        seconds: Optional[float] = None,
        error_message: Optional[str] = None,
        cost: Optional[float] = None,
    ) -> None: ...
