"""How a request's numeric fields are read: one rule for the offline gateway and the classroom.

Integers follow JSON Schema's ``"type": "integer"``: a number with a zero
fractional part (``8.0``) is the integer 8; booleans, strings, fractional and
non-finite numbers are not integers. The offline gateway reads every integer
field this way (:mod:`gatewaykit.emulator.fields`), and the classroom prices a
request by the same reading before it holds money for it, so ``"n": 8.0`` is
eight choices to both (the classroom refuses what this rule does not read).
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["as_integer", "integral"]


def integral(value: Any) -> Any:
    """``value`` as an int when it is a float with a zero fractional part; otherwise unchanged."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def as_integer(value: Any) -> Optional[int]:
    """``value`` read as an integer by the rule above, or None when it is not one."""
    value = integral(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None
