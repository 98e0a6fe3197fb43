"""The cost ledger: what every request cost, as plain rows and pandas DataFrames.

``gatewaykit.ledger`` is the process-wide :class:`Ledger` every client records
into unless given ``Client(ledger=...)``. Nothing here imports pandas or
matplotlib until a DataFrame or a chart is asked for.
"""

from gatewaykit.costs.journal import LedgerWarning
from gatewaykit.costs.ledger import BudgetWarning, Ledger
from gatewaykit.costs.location import USER_LEDGER
from gatewaykit.costs.pricing import PriceTable, PriceTableWarning
from gatewaykit.costs.quotes import Quote
from gatewaykit.costs.records import KINDS, CostRecord, LedgerSink
from gatewaykit.costs.rows import COLUMNS

ledger = Ledger()
"""The process-wide ledger: rows from a real gateway persist in the per-user database
(opened on first use, never at import; see :mod:`gatewaykit.costs.location`), offline
rows stay in memory. ``gk.ledger.budget = 2.0`` sets a budget every kernel obeys."""

__all__ = [
    "COLUMNS",
    "KINDS",
    "BudgetWarning",
    "CostRecord",
    "Ledger",
    "LedgerSink",
    "LedgerWarning",
    "PriceTable",
    "PriceTableWarning",
    "Quote",
    "USER_LEDGER",
    "ledger",
]
