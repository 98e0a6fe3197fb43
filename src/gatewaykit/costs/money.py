"""Amounts of USD written like money (``$2.00``, ``$0.0421``): :mod:`gatewaykit.money`, where the ledger's
code and its displays import them from.

The functions live in a leaf module below every layer, so the gateway types' own plain-text
faces (``print(answer)``) write amounts, and a replayed answer's note, the way the ledger does;
not in the types package, whose import builds the pydantic models (``import gatewaykit`` loads
this module, and stays light).
"""

from __future__ import annotations

from gatewaykit.money import format_usd, plural

__all__ = ["format_usd", "plural"]
