"""The cost package's structure: no import cycles (lazy imports included), a Ledger with no mixins,
and a new store is one class."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional, Sequence

import gatewaykit.costs as costs
from gatewaykit.costs import CostRecord, Ledger
from gatewaykit.costs.rows import LedgerRow
from gatewaykit.costs.stores import Change, Changes, LedgerStore

PACKAGE = Path(costs.__file__).parent


def _imports(path: Path) -> set[str]:
    """Every gatewaykit.costs module ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gatewaykit.costs"):
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            found.update(name for name in names if (PACKAGE.parent.parent / (name.replace(".", "/") + ".py")).exists())
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("gatewaykit.costs."))
    return found


def test_costs_has_no_import_cycle():
    """No module of gatewaykit.costs reaches itself through imports, lazy ones inside functions included."""
    graph = {f"gatewaykit.costs.{p.stem}": _imports(p) for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    cycles = []

    def visit(module: str, trail: tuple) -> None:
        for target in graph.get(module, ()):
            if target in trail:
                cycles.append(trail[trail.index(target):] + (target,))
            elif target in graph:
                visit(target, trail + (target,))

    for module in graph:
        visit(module, (module,))
    assert cycles == []


def test_the_ledger_is_no_mixin_chain():
    """Ledger derives from object alone."""
    assert Ledger.__bases__ == (object,)


class _ListStore:
    """A new kind of store, in one class: rows go to a list."""

    path = None
    persistent = True
    scoped_to_session = False

    def __init__(self) -> None:
        self.written: list[Change] = []

    def keeps(self, row: LedgerRow) -> bool:
        return True

    def write(self, changes: Sequence[Change]) -> None:
        self.written.extend(changes)

    def flush(self) -> None:
        pass

    def read(self, *, rewind: bool = False, recent: float = 0.0) -> Optional[Changes]:
        return None

    def save_budget(self, budget: Optional[float]) -> bool:
        return False

    def clear(self) -> None:
        self.written.clear()

    def close(self) -> None:
        pass

    def pickled_path(self) -> None:
        return None


def test_a_new_store_is_one_class():
    """A class with the LedgerStore methods receives every row a ledger records."""
    store: LedgerStore = _ListStore()
    ledger = Ledger(path=None)
    ledger._store = store
    ledger.record(CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": 0.5}}))
    assert [what for what, _ in store.written] == ["row"] and ledger.total_cost == 0.5
