"""The cost ledger: what every request cost, as plain rows and pandas DataFrames.

``gatewaykit.ledger`` is the process-wide :class:`Ledger` every client records
into unless given ``Client(ledger=...)``. Nothing here imports pandas or
matplotlib until a DataFrame or a chart is asked for.

How it is built (each module imports only those above it; no cycles)::

    records.py     CostRecord, LedgerSink: what the client hands over
    money.py       "$2.00", "$0.0013"
    rows.py        LedgerRow (one request or job), row_from_record, the job state machine
    settlement.py  what a status and a price source make of a row's cost
    book.py        RowBook: rows, jobs, totals (no lock, no I/O)
    stores.py      the LedgerStore interface; MemoryStore
    journal.py     JournalStore: a JSON Lines file
    database.py    LedgerDatabase: the SQLite schema, reads and writes
    write_behind.py, database_store.py
                   DatabaseStore: a database written behind the caller's thread
    location.py, user_store.py
                   UserStore: the per-user database, opened on first use; open_store(path)
    budget.py      Budget: the limit, the requests in flight, the messages
    session.py     SESSION_ID: this process's rows
    views.py       LedgerView: totals, to_pandas(), summary(), plot(), the display
    sharing.py     merge, JSONL export, pickling (functions over a Ledger)
    ledger.py      Ledger: the facade (the lock, the budget, the tags, the views)
    pricing.py     PriceTable; frames.py, summaries.py, plotting.py: the pandas views
"""

from gatewaykit.costs.journal import LedgerWarning
from gatewaykit.costs.ledger import BudgetWarning, Ledger
from gatewaykit.costs.location import USER_LEDGER
from gatewaykit.costs.pricing import PriceTable, PriceTableWarning
from gatewaykit.costs.quotes import Quote
from gatewaykit.costs.records import KINDS, CostRecord, LedgerSink
from gatewaykit.costs.rows import COLUMNS
from gatewaykit.costs.views import LedgerView

ledger = Ledger()
"""The process-wide ledger: rows from a real gateway persist in the per-user database
(opened on first use, never at import; see :mod:`gatewaykit.costs.location`), offline
rows stay in memory. Its views show this session's rows; ``gk.ledger.history()`` every
stored row. ``gk.ledger.budget = 2.0`` sets a budget every kernel obeys."""
ledger._history_call = "gk.ledger.history()"

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
