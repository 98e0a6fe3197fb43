"""Fault injection: the ``X-Emulator-Fault`` header, and random faults at ``fault_rate``.

The header always wins. Random faults come from an RNG seeded with the
gateway's ``seed``, so a run with the same settings and request order injects
the same faults. ``job-fail`` is only ever requested by header.
"""

from __future__ import annotations

import random
import threading

from gatewaykit.emulator.settings import HEADER_FAULT_KINDS, Settings
from gatewaykit.serving.errors import bad_request

FAULT_HEADER = "x-emulator-fault"


class DropConnection(Exception):
    """Raised by a route to end the connection without (completing) an answer."""


class FaultPlan:
    def __init__(self, settings: Settings) -> None:
        self.rate = settings.fault_rate
        self.kinds = settings.fault_kinds
        self._rng = random.Random(f"faults-{settings.seed}")
        self._lock = threading.Lock()
        self.injected: dict[str, int] = {}

    def pick(self, header: str | None) -> str | None:
        """The fault for one request: the header's, a random one, or None."""
        kind: str | None
        if header:
            kind = header.strip().lower()
            if kind not in HEADER_FAULT_KINDS:
                raise bad_request(f"X-Emulator-Fault must be one of: {', '.join(HEADER_FAULT_KINDS)}.",
                                  param="X-Emulator-Fault")
        elif self.rate > 0 and self.kinds:
            with self._lock:
                kind = self._rng.choice(self.kinds) if self._rng.random() < self.rate else None
        else:
            kind = None
        if kind is not None:
            with self._lock:
                self.injected[kind] = self.injected.get(kind, 0) + 1
        return kind
