"""``import gatewaykit`` stays light: no notebook, data, imaging or server stack at import time."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ["IPython", "ipywidgets", "pandas", "PIL", "numpy", "starlette", "uvicorn", "av", "lameenc", "matplotlib", "marimo"]

PROBE = """
import json, sys
import gatewaykit
print(json.dumps({"loaded": [m for m in %r if m in sys.modules]}))
""" % (HEAVY,)


def probe() -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def test_import_loads_no_heavy_module() -> None:
    """A fresh interpreter importing gatewaykit has none of the heavy modules loaded."""
    assert probe()["loaded"] == []


LAYERS_PROBE = """
import json, sys
import gatewaykit as gk
client = gk.Client(api_key="sk-bf-probe-000000", base_url="https://gateway.example")
client.close()
print(json.dumps({"loaded": sorted(m for m in sys.modules if m.startswith(("gatewaykit.notebook", "gatewaykit.emulator")))}))
"""


def test_a_client_loads_neither_the_notebook_layer_nor_the_offline_gateway() -> None:
    """``import gatewaykit`` and a keyed ``gk.Client(...)`` leave gatewaykit.notebook and gatewaykit.emulator unloaded."""
    done = subprocess.run([sys.executable, "-c", LAYERS_PROBE], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout)["loaded"] == []
