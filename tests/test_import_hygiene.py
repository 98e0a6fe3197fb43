"""``import gatewaykit`` stays light: no notebook, data, imaging or server stack at import time."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ["IPython", "ipywidgets", "pandas", "PIL", "numpy", "starlette", "uvicorn", "av", "lameenc", "matplotlib"]

PROBE = """
import json, sys, time
started = time.perf_counter()
import gatewaykit
elapsed = time.perf_counter() - started
print(json.dumps({"loaded": [m for m in %r if m in sys.modules], "seconds": elapsed}))
""" % (HEAVY,)


def probe() -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def test_import_loads_no_heavy_module() -> None:
    """A fresh interpreter importing gatewaykit has none of the heavy modules loaded."""
    assert probe()["loaded"] == []


def test_import_time_is_reported() -> None:
    """Importing takes well under two seconds even on a loaded CI machine (target: < 200 ms)."""
    assert probe()["seconds"] < 2.0
