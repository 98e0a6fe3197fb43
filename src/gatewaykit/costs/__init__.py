"""The cost ledger: what every request cost, as plain rows and pandas DataFrames.

``gatewaykit.ledger`` is the process-wide :class:`Ledger` every client records into unless given
``Client(ledger=...)``; it is made on first use, and every public name here is imported when first
asked for (``lazy_names``), so the client core reads prices and quotes without loading the ledger,
and nothing imports pandas or matplotlib until a DataFrame or a chart is asked for. The modules and
their order: ``docs/internals.md``.
"""

import sys
import threading
import types
from typing import TYPE_CHECKING, Any

from gatewaykit.costs import session as _session  # noqa: F401 - the session starts when the costs package is first used
from gatewaykit.lazy_names import lazy_names

if TYPE_CHECKING:  # pragma: no cover
    from gatewaykit.costs.journal import LedgerWarning
    from gatewaykit.costs.ledger import BudgetWarning, Ledger
    from gatewaykit.costs.location import USER_LEDGER
    from gatewaykit.costs.pricing import PriceTable, PriceTableWarning
    from gatewaykit.costs.quotes import Quote
    from gatewaykit.costs.records import KINDS, CostRecord, LedgerSink
    from gatewaykit.costs.rows import COLUMNS
    from gatewaykit.costs.views import LedgerView

    ledger: Ledger
    """The process-wide ledger: rows from a real gateway persist in the per-user database
    (opened on first use, never at import; see :mod:`gatewaykit.costs.location`), offline
    rows stay in memory. Its views show this session's rows; ``gk.ledger.history()`` every
    stored row. ``gk.ledger.budget = 2.0`` sets a budget every kernel obeys."""

# Each public name and the module it comes from, imported when first asked for: the client core imports
# ``costs.pricing`` or ``costs.quotes`` without loading the ledger, its rows and their types.
_HOMES = {
    "LedgerWarning": "gatewaykit.costs.journal",
    "BudgetWarning": "gatewaykit.costs.ledger",
    "Ledger": "gatewaykit.costs.ledger",  # the module: the package's name "ledger" stays the instance (below)
    "USER_LEDGER": "gatewaykit.costs.location",
    "PriceTable": "gatewaykit.costs.pricing",
    "PriceTableWarning": "gatewaykit.costs.pricing",
    "Quote": "gatewaykit.costs.quotes",
    "KINDS": "gatewaykit.costs.records",
    "CostRecord": "gatewaykit.costs.records",
    "LedgerSink": "gatewaykit.costs.records",
    "COLUMNS": "gatewaykit.costs.rows",
    "LedgerView": "gatewaykit.costs.views",
}
_made = threading.RLock()
_imported, __dir__ = lazy_names(__name__, _HOMES)


def __getattr__(name: str) -> Any:
    if name == "ledger":
        return _process_ledger()
    return _imported(name)


def _process_ledger() -> Any:
    """``gatewaykit.costs.ledger``: the process-wide :class:`Ledger`, made on first use (it opens nothing)."""
    with _made:
        made = globals().get("ledger")
        if made is not None:
            return made
        from gatewaykit.costs.ledger import Ledger

        made = Ledger()
        made._history_call = "gk.ledger.history()"
        globals()["ledger"] = made
        return made


class _CostsPackage(types.ModuleType):
    """This package, whose ``ledger`` is the process-wide Ledger, never the submodule of that name.

    Importing ``gatewaykit.costs.ledger`` (the module) would set the package's
    ``ledger`` to it, as the import system does for every submodule; that one
    assignment is refused, so the name keeps meaning the process-wide Ledger.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "ledger" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _CostsPackage

__all__ = [
    "COLUMNS",
    "KINDS",
    "BudgetWarning",
    "CostRecord",
    "Ledger",
    "LedgerSink",
    "LedgerView",
    "LedgerWarning",
    "PriceTable",
    "PriceTableWarning",
    "Quote",
    "USER_LEDGER",
    "ledger",
]


