"""The import cycles of a source tree's ``gatewaykit`` (``python tests/import_graph.py SRC`` prints them as JSON).

grimp (installed with import-linter) reads every import statement, those inside
functions and under ``if TYPE_CHECKING:`` included; a cycle is a strongly
connected component of more than one module (Tarjan's algorithm). A package's
``__init__`` is a module of its own, so ``pkg`` <-> ``pkg.sub`` shows up too.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def import_cycles(package: str = "gatewaykit") -> list[dict[str, list[str]]]:
    """Each cycle: its modules (sorted) and one shortest chain of imports round it."""
    import grimp

    graph = grimp.build_graph(package, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:  # recursive Tarjan: ~170 modules, far from the recursion limit
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return [{"modules": component, "chain": _round_trip(graph, component)} for component in found]


def _round_trip(graph: Any, component: list[str]) -> list[str]:
    first, second = component[0], component[1]
    there = graph.find_shortest_chain(importer=first, imported=second) or ()
    back = graph.find_shortest_chain(importer=second, imported=first) or ()
    return [*there, *back[1:]]


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.path.insert(0, sys.argv[1])
    print(json.dumps(import_cycles()))
