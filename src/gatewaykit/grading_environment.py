"""The grading switches' variables as they stood when ``gatewaykit`` was imported.

A grader sets ``GATEWAYKIT_OFFLINE`` and the others in the environment of the
process that runs a student's notebook. They are read from this snapshot (see
:mod:`gatewaykit.client.core.grading_switches`), so a notebook that removes or
changes one after ``import gatewaykit`` (``os.environ.pop(...)``) does not turn
it off; a variable set only after the import still counts. This stops a
one-line mistake, not a determined student: code can remove a variable before
the import, or call a model with plain httpx. No real key belongs in an
environment that runs student code (docs/grading.md).
"""

from __future__ import annotations

import os
from typing import Mapping

__all__ = ["SWITCH_VARIABLES", "switch_environment"]

SWITCH_VARIABLES = (
    "GATEWAYKIT_OFFLINE",
    "GATEWAYKIT_SEED",
    "GATEWAYKIT_OFFLINE_TIME_SCALE",
    "GATEWAYKIT_CASSETTE",
    "GATEWAYKIT_CASSETTE_MODE",
)

_AT_IMPORT = {name: os.environ[name] for name in SWITCH_VARIABLES if name in os.environ}


def switch_environment() -> Mapping[str, str]:
    """The switches' variables now, with each one that was set at import as it was then."""
    now = {name: os.environ[name] for name in SWITCH_VARIABLES if name in os.environ}
    return {**now, **_AT_IMPORT}
