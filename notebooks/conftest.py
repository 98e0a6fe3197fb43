"""Run the demo notebooks (nbval) against the offline gateway, quickly.

Kernels started by nbval inherit this process's environment, so this module
(imported when pytest collects ``notebooks/``) removes any real gateway key
unless ``GATEWAYKIT_NOTEBOOKS_LIVE=1`` (then the notebooks run against the real
gateway and are billed), keeps the process-wide ledger in memory (never the
user's ledger database), and speeds the offline gateway's simulated durations
up unless ``GATEWAYKIT_OFFLINE_TIME_SCALE`` is already set.
"""

from __future__ import annotations

import os

import pytest

if os.environ.get("GATEWAYKIT_NOTEBOOKS_LIVE") != "1":
    for variable in ("SVC_API_KEY", "SVC_BASE_URL"):
        os.environ.pop(variable, None)
# The notebooks' gk.ledger starts empty on every run: never the user's own ledger database
# (whose history would change the ledger cells from machine to machine).
os.environ["GATEWAYKIT_LEDGER_PATH"] = "memory"
os.environ.setdefault("GATEWAYKIT_OFFLINE_TIME_SCALE", "0.05")

# build.py writes the notebooks from src/ (their text sources); neither is a test module.
collect_ignore = ["build.py", "src", "assignments"]  # assignments/: graded by otter/nbgrader in tests/grading, not
# compared by nbval (a master notebook stores no outputs; its released copies are built in a temporary folder)


# Cells tagged nbval-ignore-output are run but their outputs are not compared
# (they change from run to run). Their stored outputs must still be of the kinds
# a fresh run makes (the same streams, the same MIME types), so a cell whose
# display changed shape since the notebook was built fails until it is rebuilt.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _output_kinds(outputs: list) -> set[tuple[str, ...]]:
    kinds = set()
    for output in outputs:
        if output.get("output_type") == "stream":
            kinds.add(("stream", output.get("name", "")))
        elif output.get("output_type") == "display_data" and not output.get("data"):
            continue  # a streamed answer's part, emptied when the answer ended: shows nothing (how many: timing)
        elif output.get("output_type") in ("display_data", "execute_result"):
            kinds.add(("display", *sorted(set(output.get("data", {})) - {WIDGET_VIEW})))  # build.py drops widget views
        else:
            kinds.add((output.get("output_type", ""),))
    return kinds


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    outcome = yield
    options = getattr(item, "options", None)
    if outcome.excinfo is not None or options is None or options["check"] or item.cell.execution_count is None:
        return
    stored, fresh = _output_kinds(item.cell.outputs), _output_kinds(item.test_outputs or [])
    if stored != fresh:
        raise AssertionError(
            f"{item.name}: the stored outputs of this nbval-ignore-output cell are stale "
            f"(stored {sorted(stored)}, a fresh run gives {sorted(fresh)}); rebuild: python notebooks/build.py"
        )
