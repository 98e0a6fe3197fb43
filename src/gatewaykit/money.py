"""Money: amounts of USD written like money (``$2.00``, ``$0.0421``, never ``1.3e-03``), and exact
nano-dollars (1e-9 USD), the integers both servers keep balances in.

Dollars and above get cents; smaller amounts get up to three significant digits
(per-request costs are often fractions of a cent), so no amount reads as
``$0.00`` unless it is zero. Words for what is not an amount (a cost not
reported, a job still pending) are the callers' business. A leaf module below every
layer: ``import gatewaykit`` loads it, so it imports nothing heavy.
"""

from __future__ import annotations

import math
from typing import Optional

__all__ = ["NANOS_PER_USD", "format_usd", "nanos_to_usd", "plural", "usd_to_nanos"]

NANOS_PER_USD = 1_000_000_000


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


def usd_to_nanos(usd: float | int | str) -> int:
    """Exact nano-dollars of ``usd`` (read through its decimal text, so ``0.1`` is 100,000,000)."""
    from decimal import Decimal

    return int((Decimal(str(usd)) * NANOS_PER_USD).to_integral_value())


def nanos_to_usd(nanos: int) -> float:
    """USD of ``nanos``, rounded to the nano-dollar."""
    return round(nanos / NANOS_PER_USD, 9)
