"""Settings of one offline gateway instance (what the CLI flags and ``start()`` set)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The documented demo key of the default account (balance $100).
DEMO_KEY = "sk-bf-offline-demo-0000000000000000"
DEMO_BALANCE_USD = 100.0
#: Fault kinds ``--faults`` may draw from (the ``X-Emulator-Fault`` header also takes ``job-fail``).
RANDOM_FAULT_KINDS = ("429", "500", "503", "disconnect", "stream-drop", "slow")
HEADER_FAULT_KINDS = ("429", "500", "503", "disconnect", "stream-drop", "slow", "job-fail")


def demo_accounts() -> dict[str, Any]:
    """The accounts used when none are given: one demo account with :data:`DEMO_KEY`."""
    return {
        "accounts": [
            {
                "id": "demo",
                "balance_usd": DEMO_BALANCE_USD,
                "rate_limit": {"requests": 100_000, "per_seconds": 60},
                "keys": [{"key": DEMO_KEY, "status": "active", "models": "*"}],
            }
        ]
    }


def load_accounts(accounts: dict[str, Any] | str | Path | None) -> dict[str, Any]:
    """The accounts dict from a dict, a JSON file path, or None (the demo account)."""
    if accounts is None:
        return demo_accounts()
    if isinstance(accounts, (str, Path)):
        with open(accounts, encoding="utf-8") as handle:
            return json.load(handle)
    return accounts


@dataclass
class Settings:
    """Everything that shapes one gateway instance; passed to ``create_app``."""

    #: Holds every account's API keys, so it stays out of repr (tracebacks, logs), like admin_token.
    accounts: dict[str, Any] = field(default_factory=demo_accounts, repr=False)
    #: Multiplies every simulated duration (stream pacing, job run time); 0 = as fast as possible.
    time_scale: float = 1.0
    #: Seeds random image/video seeds and random fault injection (reproducible runs).
    seed: int = 0
    #: Ids, media tokens, default seeds and timestamps derived from ``seed`` and the request instead of the
    #: clock and the system RNG (``request_ids.py``): what a grader's GATEWAYKIT_SEED / GATEWAYKIT_OFFLINE get.
    reproducible: bool = False
    admin_token: str | None = field(default=None, repr=False)
    #: Browser origins whose pages may call this gateway (CORS, ``gatewaykit/serving/cors.py``); none by default.
    cors_origins: tuple[str, ...] = ()
    #: Seconds finished jobs and their media links live before they expire.
    retention_seconds: float = 3600.0
    #: Probability that a /v1 request gets a random fault from ``fault_kinds``.
    fault_rate: float = 0.0
    fault_kinds: tuple[str, ...] = RANDOM_FAULT_KINDS
    #: Real (unscaled) delay of the ``slow`` fault, so client time-outs can be tested at time-scale 0.
    slow_seconds: float = 8.0
    #: Largest accepted request body; bigger gives 413.
    max_body_bytes: int = 64 * 1024 * 1024
    #: Streamed chat pacing at time-scale 1.0.
    tokens_per_second: float = 50.0
    #: Prompt cache: blocks remembered per account (least recently used dropped first), and the real
    #: (unscaled) seconds an ``in-memory`` entry lives after its last use (``24h`` entries: a day).
    prompt_cache_blocks: int = 4096
    prompt_cache_memory_seconds: float = 300.0
    #: Scripted chat answers (a dict or a JSON file path; see ``chat/script.py``); None: synthetic only.
    script: Any = None
    #: Seconds of CPU time all of a script's ``re:`` patterns may take on one message (the clock the ``regex``
    #: engine checks; wall time is longer on a busy machine); past it the request gets a 400
    #: ``script_match_timeout`` naming the entry. Matching runs off the event loop with the GIL released.
    script_match_seconds: float = 1.0
    #: Seconds a connection may stay idle, when it opens and between requests, before the server closes it.
    keep_alive_seconds: float = 30.0
    #: Seconds a request's head (request line and headers) may take from its first byte.
    request_head_seconds: float = 10.0
    #: Seconds a request's body may take from the end of its head, plus one second per 64 KiB received
    #: (see :mod:`gatewaykit.serving.connection_guard`); past it the answer is a 408 and the connection is closed.
    request_body_seconds: float = 10.0

    def __post_init__(self) -> None:
        if self.time_scale < 0:
            raise ValueError("time_scale must be >= 0")
        if not 0.0 <= self.fault_rate <= 1.0:
            raise ValueError("fault_rate must be between 0 and 1")
        unknown = [kind for kind in self.fault_kinds if kind not in RANDOM_FAULT_KINDS]
        if unknown:
            raise ValueError(f"unknown fault kinds {unknown}; choose from {', '.join(RANDOM_FAULT_KINDS)}")
        self.fault_kinds = tuple(self.fault_kinds)
        if self.script is not None:
            from gatewaykit.emulator.chat.script import load_script

            self.script = load_script(self.script)
