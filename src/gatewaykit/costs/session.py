"""This session: the process that imported gatewaykit, and the rows it made.

:data:`SESSION_ID` is made once per process, when :mod:`gatewaykit.costs` is
imported (a forked child keeps its parent's: it runs the parent's work). Every
row a ledger records carries it, so the per-user database, which keeps every
kernel's rows, can show this session's by default and the others on request
(``ledger.history()``).
"""

from __future__ import annotations

import os
import time

__all__ = ["SESSION_ID"]

SESSION_ID = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(4).hex()
"""``20261124-144413-9f1c2a7b``: when this process imported gatewaykit (UTC), and 32 random bits."""
