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


MODELS_PROBE = """
import json, sys
import gatewaykit
print(json.dumps({"loaded": sorted(m for m in sys.modules if m == "pydantic" or m.startswith(("pydantic.", "httpx",
      "gatewaykit.types", "gatewaykit.costs.ledger", "gatewaykit.costs.rows", "gatewaykit.costs.journal",
      "gatewaykit.costs.book", "gatewaykit.costs.stores", "gatewaykit.costs.views", "gatewaykit.costs.pricing",
      "gatewaykit.client.clients", "gatewaykit.client.core.base", "gatewaykit.client.conversation")))}))
"""


def test_import_builds_no_model_and_no_ledger() -> None:
    """``import gatewaykit`` loads neither pydantic nor httpx, no type module, no ledger module and no client core."""
    done = subprocess.run([sys.executable, "-c", MODELS_PROBE], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout)["loaded"] == []


LEDGER_NAME_PROBE = """
import json
import gatewaykit.costs.ledger
from gatewaykit.costs import Ledger, ledger
import gatewaykit as gk
print(json.dumps({"instance": isinstance(ledger, Ledger), "same": ledger is gk.ledger is gatewaykit.costs.ledger,
                  "call": ledger._history_call}))
"""


def test_the_ledger_module_loaded_first_leaves_costs_ledger_the_process_wide_ledger() -> None:
    """Importing the submodule ``gatewaykit.costs.ledger`` first still leaves ``gatewaykit.costs.ledger`` the Ledger."""
    done = subprocess.run([sys.executable, "-c", LEDGER_NAME_PROBE], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == {"instance": True, "same": True, "call": "gk.ledger.history()"}
