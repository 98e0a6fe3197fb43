"""How ``.ci/run``'s pytest-xdist workers share the suite (``-n 3 --dist loadgroup``).

Each test file is one unit of work, so its module-scoped fixtures (a kernel, a
server) start once and a notebook's cells run in order in one kernel; the files
that use a heavy session fixture form one unit per fixture, so it starts once
(the Jupyter servers and Chromium of ``tests/notebook/conftest.py``; LiteLLM's
proxy). The units go out in collection order as ``tests/conftest.py`` sorts it:
the Jupyter/Chromium unit first (the longest), the files whose ``start_early``
work runs in the background last (their tests wait for it).

pytest-xdist's own ``xdist_group`` mark cannot say this: under pytest 9 it no
longer reaches the node ids the scheduler sees. So the workers, which collect
the tests, write each file's unit to a JSON file the controller named in
:data:`ENVIRONMENT` before it started them, and the controller's scheduler
(:class:`FileGroupScheduling`) reads it once every worker has collected.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

ENVIRONMENT = "GATEWAYKIT_XDIST_UNITS"

# Session fixtures that start something heavy: every file using one goes to the same worker.
SHARED_SESSION_FIXTURES = {"jupyter_testbed": "jupyter_testbed", "chromium": "jupyter_testbed",
                           "litellm_proxy": "litellm_proxy", "postgres_cluster": "postgres_cluster"}


def name_the_units_file(config: pytest.Config) -> None:
    """In the controller of a ``--dist loadgroup`` run: where the workers will write the units."""
    if getattr(config.option, "dist", "no") == "loadgroup" and not hasattr(config, "workerinput"):
        folder = Path(tempfile.mkdtemp(prefix="gatewaykit-xdist-"))
        os.environ[ENVIRONMENT] = str(folder / "units.json")


def remove_the_units_file(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") == "loadgroup" and not hasattr(config, "workerinput") and ENVIRONMENT in os.environ:
        shutil.rmtree(Path(os.environ.pop(ENVIRONMENT)).parent, ignore_errors=True)


def sort_and_write_units(items: list[pytest.Item]) -> None:
    """In a worker: ``items`` sorted as the module's docstring says, and each file's unit written down."""
    units: dict[str, str] = {}
    for item in items:
        file = item.nodeid.split("::")[0]
        used = [SHARED_SESSION_FIXTURES[name] for name in getattr(item, "fixturenames", ()) if name in SHARED_SESSION_FIXTURES]
        if used:
            units[file] = used[0]
        else:
            units.setdefault(file, file)
    early_files = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("start_early")}

    def rank(item: pytest.Item) -> int:
        file = item.nodeid.split("::")[0]
        return 0 if units[file] == "jupyter_testbed" else 2 if file in early_files else 1

    items.sort(key=rank)  # stable: collection order within each rank
    target = Path(os.environ[ENVIRONMENT])
    partial = target.with_name(f"{target.name}.{os.getpid()}")
    partial.write_text(json.dumps(units))
    partial.replace(target)  # every worker writes the same units


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The controller's scheduler: pytest-xdist's scope scheduling, by the units the workers wrote."""
    from xdist.scheduler import LoadScopeScheduling

    class FileGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        units: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.units is None:
                self.units = json.loads(Path(os.environ[ENVIRONMENT]).read_text())
            file = nodeid.split("::")[0]
            return self.units.get(file, file)

        def _assign_work_unit(self, node: Any) -> None:
            """As xdist's, but every test of the unit is sent: schemathesis gives all of a schema's operations
            one node id (tests/reliability/test_fuzz.py), and xdist's ``collection.index(nodeid)`` sent the first."""
            scope, work_unit = self.workqueue.popitem(last=False)
            self.assigned_work.setdefault(node, {})[scope] = work_unit
            wanted = {nodeid for nodeid, completed in work_unit.items() if not completed}
            node.send_runtest_some([index for index, nodeid in enumerate(self.registered_collections[node])
                                    if nodeid in wanted])

    return FileGroupScheduling(config, log)
