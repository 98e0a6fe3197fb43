"""Amounts of USD written like money: ``$2.00``, ``$0.0421``, ``$0.0013``, never ``1.3e-03``.

Dollars and above get cents; smaller amounts get up to three significant digits
(per-request costs are often fractions of a cent), so no amount reads as
``$0.00`` unless it is zero. Words for what is not an amount (a cost not
reported, a job still pending) are the callers' business.
"""

from __future__ import annotations

import math
from typing import Optional

__all__ = ["format_usd", "plural"]


def format_usd(usd: Optional[float]) -> str:
    """``$1,234.50`` / ``$0.50`` / ``$0.0421`` / ``$0.0013`` / ``$0.00`` (empty for None or NaN)."""
    if usd is None or (isinstance(usd, float) and math.isnan(usd)):
        return ""
    value = float(usd)
    sign = "-" if value < 0 else ""
    value = abs(value)
    if value == 0 or value >= 0.995:
        return f"{sign}${value:,.2f}"
    decimals = max(2, 2 - math.floor(math.log10(value)))  # three significant digits
    rounded = float(f"{value:.{decimals}f}")  # 0.0099999 rounds to 0.01: three digits of that
    decimals = max(2, 2 - math.floor(math.log10(rounded)))
    text = f"{value:.{decimals}f}"
    if float(text) >= 1:  # 0.9999 rounds up to a dollar
        text = f"{value:.2f}"
    whole, _, cents = text.partition(".")
    text = f"{whole}.{cents[:2]}{cents[2:].rstrip('0')}"  # $0.0013, not $0.00130; $0.50 keeps its cents
    return f"{sign}${text}"


def plural(count: int, noun: str, many: Optional[str] = None) -> str:
    """``1 job`` / ``2 jobs`` / ``0 jobs`` (``many`` for irregular plurals)."""
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"
