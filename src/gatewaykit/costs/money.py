"""Amounts of USD written like money (``$2.00``, ``$0.0421``): :mod:`gatewaykit.types.money`, where the
ledger's code and its displays import them from.

The functions live in the types package so that the gateway types' own plain-text faces
(``print(answer)``) write amounts, and a replayed answer's note, the way the ledger does.
"""

from __future__ import annotations

from gatewaykit.types.money import format_usd, plural

__all__ = ["format_usd", "plural"]
