"""The teacher's paid balance at the gateway, as the classroom last saw it.

A gateway 402 on a forwarded request means the teacher's key cannot pay: it is
the class's problem, not the student's. The student reads that the class's paid
balance is used up and to tell the teacher (nothing is charged to them); the
classroom logs one line when the balance runs out (not one per request) and one
when a request is paid again; ``status()`` names it under :data:`STATUS_KEY`.
The moment it ran out is kept in the store, so a restart still says so.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Optional

from gatewaykit.classroom import refusals
from gatewaykit.classroom.store import Store
from gatewaykit.serving.errors import ApiError

__all__ = ["STATUS_KEY", "UpstreamBalance"]

#: The ``status()`` key: ``{"exhausted": bool, "since": epoch seconds or None}``.
STATUS_KEY = "upstream_balance"
_META = "upstream_balance_exhausted_since"
log = logging.getLogger("gatewaykit.classroom")


class UpstreamBalance:
    def __init__(self, store: Store) -> None:
        self.store = store
        kept = store.get_meta(_META)
        self.exhausted_since: Optional[float] = float(kept) if kept else None

    def used_up(self) -> ApiError:
        """The gateway refused a forwarded request for want of paid balance: noted (logged once), and the refusal
        the student reads."""
        if self.exhausted_since is None:
            self.exhausted_since = time.time()
            self.store.set_meta(_META, repr(self.exhausted_since))
            log.warning("the gateway refuses the class's requests (402): the teacher's paid balance is used up; "
                        "students are told to tell their teacher. Add credit at the gateway.")
        return refusals.class_balance_used_up()

    def paid(self) -> None:
        """The gateway answered a forwarded request: the balance is no longer used up (if it was)."""
        if self.exhausted_since is not None:
            self.exhausted_since = None
            self.store.set_meta(_META, None)
            log.warning("the gateway answers the class's requests again: the teacher's paid balance was topped up")

    def status(self) -> dict[str, Any]:
        return {"exhausted": self.exhausted_since is not None, "since": self.exhausted_since}
