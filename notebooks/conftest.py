"""Run the demo notebooks (nbval) against the offline gateway, quickly.

Kernels started by nbval inherit this process's environment, so this module
(imported when pytest collects ``notebooks/``) removes any real gateway key
unless ``GATEWAYKIT_NOTEBOOKS_LIVE=1`` (then the notebooks run against the real
gateway and are billed), and speeds the offline gateway's simulated durations
up unless ``GATEWAYKIT_OFFLINE_TIME_SCALE`` is already set.
"""

from __future__ import annotations

import os

if os.environ.get("GATEWAYKIT_NOTEBOOKS_LIVE") != "1":
    for variable in ("SVC_API_KEY", "SVC_BASE_URL"):
        os.environ.pop(variable, None)
os.environ.setdefault("GATEWAYKIT_OFFLINE_TIME_SCALE", "0.05")

# build.py writes the notebooks from src/ (their text sources); neither is a test module.
collect_ignore = ["build.py", "src"]
