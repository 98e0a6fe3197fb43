"""Process-wide switches a grader flips from outside a student's notebook, read when the first client is made.

``GATEWAYKIT_OFFLINE=1`` (every client on the offline gateway), ``GATEWAYKIT_SEED=N`` (the same notebook
gives the same answers), ``GATEWAYKIT_OFFLINE_TIME_SCALE``, ``GATEWAYKIT_CASSETTE`` and
``GATEWAYKIT_CASSETTE_MODE``. :func:`read_switches` is a pure function of an environment (a bad value is a
``ConfigurationError`` naming the variable); :func:`current_switches` reads them once, each as it was when
``gatewaykit`` was imported, so ``os.environ.pop`` in a notebook does not turn one off. They are not a
sandbox: no real key belongs where student code runs. The table: ``docs/internals.md``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

from gatewaykit.errors import ConfigurationError
from gatewaykit.grading_environment import switch_environment

if TYPE_CHECKING:
    from gatewaykit.client.transports.cassette_store import Cassette

__all__ = [
    "CASSETTE_MODE_VARIABLE",
    "CASSETTE_VARIABLE",
    "OFFLINE_VARIABLE",
    "SEED_VARIABLE",
    "TIME_SCALE_VARIABLE",
    "GradingSwitches",
    "current_switches",
    "read_switches",
]

OFFLINE_VARIABLE = "GATEWAYKIT_OFFLINE"
SEED_VARIABLE = "GATEWAYKIT_SEED"
TIME_SCALE_VARIABLE = "GATEWAYKIT_OFFLINE_TIME_SCALE"
CASSETTE_VARIABLE = "GATEWAYKIT_CASSETTE"
CASSETTE_MODE_VARIABLE = "GATEWAYKIT_CASSETTE_MODE"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})
_MODES = ("replay", "record", "auto")


@dataclass(frozen=True)
class GradingSwitches:
    """The switches as read from the environment (all off: ``GradingSwitches()``)."""

    offline: bool = False
    seed: Optional[int] = None
    time_scale: Optional[float] = None  # None: not set (see offline_time_scale)
    cassette: Optional[Path] = None
    cassette_mode: str = "auto"

    @property
    def grading(self) -> bool:
        """True when the offline gateway must be reproducible (ids and timestamps too): a switch is on."""
        return self.offline or self.seed is not None

    @property
    def offline_seed(self) -> int:
        """The seed the offline gateway starts with."""
        return self.seed if self.seed is not None else 0

    @property
    def offline_time_scale(self) -> Optional[float]:
        """The offline gateway's time scale: as set, else 0 under a grading switch, else None (the gateway's own
        default, read when it starts)."""
        if self.time_scale is not None:
            return self.time_scale
        return 0.0 if self.grading else None

    def describe(self) -> str:
        """The switches that are on, as a grader set them (for the offline notice): ``GATEWAYKIT_OFFLINE=1, ...``."""
        shown = []
        if self.offline:
            shown.append(f"{OFFLINE_VARIABLE}=1")
        if self.seed is not None:
            shown.append(f"{SEED_VARIABLE}={self.seed}")
        if self.cassette is not None:
            shown.append(f"{CASSETTE_VARIABLE} ({self.cassette_mode})")
        return ", ".join(shown)


def read_switches(environ: Mapping[str, str]) -> GradingSwitches:
    """The switches in ``environ``; a value that cannot be used raises :class:`ConfigurationError`."""
    offline_text = environ.get(OFFLINE_VARIABLE, "").strip().lower()
    if offline_text not in _TRUE | _FALSE:
        raise ConfigurationError(
            f"{OFFLINE_VARIABLE}={environ[OFFLINE_VARIABLE]!r} is not a switch: set it to 1 (every client uses the "
            "offline gateway) or 0 (off), or unset it"
        )
    seed = _integer(environ, SEED_VARIABLE)
    time_scale = _time_scale(environ)
    mode = environ.get(CASSETTE_MODE_VARIABLE, "").strip().lower() or "auto"
    if mode not in _MODES:
        raise ConfigurationError(
            f"{CASSETTE_MODE_VARIABLE}={environ[CASSETTE_MODE_VARIABLE]!r} is not a cassette mode: it accepts "
            "replay (never the network), record (always the network, the file rewritten) or auto (replay what is "
            "recorded, record the rest)"
        )
    path_text = environ.get(CASSETTE_VARIABLE, "").strip()
    cassette = Path(path_text).expanduser().absolute() if path_text else None
    if cassette is None and environ.get(CASSETTE_MODE_VARIABLE, "").strip():
        raise ConfigurationError(
            f"{CASSETTE_MODE_VARIABLE} is set but {CASSETTE_VARIABLE} is not: set {CASSETTE_VARIABLE} to the "
            "cassette file (a .jsonl recorded with cassette_mode='record'), or unset both"
        )
    if cassette is not None and mode == "replay" and not cassette.is_file():
        raise ConfigurationError(
            f"{CASSETTE_VARIABLE}={path_text!r}: no cassette file there to replay ({CASSETTE_MODE_VARIABLE}=replay "
            f"needs an existing file). Record it first: run the notebook once with {CASSETTE_MODE_VARIABLE}=record "
            "and a key, or point the variable at the recorded .jsonl file"
        )
    return GradingSwitches(offline_text in _TRUE, seed, time_scale, cassette, mode)


def _integer(environ: Mapping[str, str], name: str) -> Optional[int]:
    text = environ.get(name, "").strip()
    if not text:
        return None
    try:
        return int(text, 10)
    except ValueError:
        raise ConfigurationError(
            f"{name}={environ[name]!r} is not an integer: it accepts a whole number such as 0 or 1234 "
            "(the same number gives the same results on every run), or unset it"
        ) from None


def _time_scale(environ: Mapping[str, str]) -> Optional[float]:
    text = environ.get(TIME_SCALE_VARIABLE, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise ConfigurationError(
            f"{TIME_SCALE_VARIABLE}={environ[TIME_SCALE_VARIABLE]!r} is not a time scale: it accepts a number "
            ">= 0 (0: jobs finish at once, 1: real time, 0.05: twenty times faster), or unset it"
        )
    return value


_switches: Optional[GradingSwitches] = None
_shared_cassette: "Optional[Cassette]" = None
_lock = threading.Lock()


def current_switches() -> GradingSwitches:
    """The process's switches: read by the first client, then kept; a variable set when gatewaykit was imported is
    read as it was then (:mod:`gatewaykit.grading_environment`)."""
    global _switches
    with _lock:
        if _switches is None:
            _switches = read_switches(switch_environment())
        return _switches


def shared_cassette(switches: GradingSwitches) -> "Optional[Cassette]":
    """The one :class:`Cassette` of ``GATEWAYKIT_CASSETTE``, shared by every client of the process (or None)."""
    global _shared_cassette
    if switches.cassette is None:
        return None
    with _lock:
        if _shared_cassette is None:
            from gatewaykit.client.transports.cassette_store import Cassette

            _shared_cassette = Cassette(switches.cassette, switches.cassette_mode)
            _shared_cassette.mode_setting = f"{CASSETTE_MODE_VARIABLE}={{}}"
        return _shared_cassette
