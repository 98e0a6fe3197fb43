"""The state a :class:`gatewaykit.costs.ledger.Ledger` keeps, declared for its mixins.

``Ledger`` is assembled from :class:`~gatewaykit.costs.storage.LedgerStorage`
(files and database) and :class:`~gatewaykit.costs.sharing.LedgerSharing`
(merging, pickling, export). Both read and write the attributes ``Ledger``
sets in ``__init__`` and ``_reset`` and call a few of its methods; this base
class names them with their types so each mixin is type-checked on its own.
Nothing here runs: the annotations create no attributes and the method
declarations exist only for the type checker.
"""

from __future__ import annotations

import contextvars
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:
    from gatewaykit.costs.database import LedgerDatabase
    from gatewaykit.costs.journal import Journal
    from gatewaykit.costs.pricing import PriceTable
    from gatewaykit.costs.rows import LedgerRow

__all__ = ["LedgerState"]


class LedgerState:
    """Attributes and methods of ``Ledger`` that its storage and sharing mixins use."""

    # set once in Ledger.__init__
    _lock: threading.Lock
    _tags: contextvars.ContextVar[tuple[str, ...]]
    _prices: PriceTable
    _budget: Optional[float]
    _budget_given: bool
    _fsync: Optional[bool]
    _warned: bool
    _batch_depth: int
    _batched: list[tuple[str, Any]]
    _lazy: bool
    _offline_in_memory: bool
    _closed: Optional[Path]
    _journal: Optional[Journal]
    _db: Optional[LedgerDatabase]

    # set by Ledger._reset (forgotten by clear() and reload())
    _rows: list[LedgerRow]
    _uids: list[str]
    _by_uid: dict[str, LedgerRow]
    _memory_uids: set[str]
    _local_jobs: set[str]
    _base_urls: dict[str, str]
    _key_ids: dict[str, str]
    _jobs: dict[str, LedgerRow]
    _early_updates: dict[str, dict[str, Any]]
    _committed: dict[str, float]
    _spent: float

    if TYPE_CHECKING:  # defined by Ledger

        def __init__(
            self,
            *,
            budget: Optional[float] = None,
            path: Any = ...,
            prices: Optional[Mapping[str, Mapping[str, Any]]] = None,
            fsync: Optional[bool] = None,
        ) -> None: ...

        def _reset(self) -> None: ...

        def _add_row(self, row: LedgerRow, uid: str) -> None: ...

        def _apply_update(
            self,
            job_id: str,
            status: str,
            seconds: Any,
            error_message: Optional[str],
            when: Optional[float],
        ) -> bool: ...

        def _maybe_warn(self) -> None: ...
