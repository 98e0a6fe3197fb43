"""What a chat that leaves ``max_tokens`` out is quoted at: the most its answer may run to, as the catalog says.

A quote of such a chat at its prompt alone is no bound at all (a long answer
costs many times its prompt), so it is priced at a stated output instead,
read from the model's catalog entry in this order:

1. ``default_max_tokens``: what the server sets on a chat that leaves it out
   (a classroom states its default; it is what is billed at most);
2. ``max_output_tokens``, ``max_completion_tokens`` or
   ``top_provider.max_completion_tokens``: the model's catalog maximum;
3. ``context_length``: no answer is longer than the model's whole context.

The quote says which it used (``max_tokens unset, assumed 4096 (the model's
max_output_tokens)``). None when the entry states none of them.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from gatewaykit.request_numbers import as_integer

__all__ = ["assumed_output", "unbounded"]

_FIELDS = (
    ("default_max_tokens", "the server's default max_tokens"),
    ("max_output_tokens", "the model's max_output_tokens"),
    ("max_completion_tokens", "the model's max_completion_tokens"),
    ("top_provider.max_completion_tokens", "the model's max_completion_tokens"),
    ("context_length", "the model's context_length"),
)


def unbounded(body: Mapping[str, Any]) -> bool:
    """True when a chat request sets no output bound (neither ``max_tokens`` nor ``max_completion_tokens``)."""
    return body.get("max_tokens") is None and body.get("max_completion_tokens") is None


def assumed_output(entry: Optional[Mapping[str, Any]]) -> Optional[tuple[int, str]]:
    """``(tokens, where the figure comes from)`` for an unbounded chat to the model of ``entry``, or None."""
    if not entry:
        return None
    for name, said in _FIELDS:
        value: Any = entry
        for part in name.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        tokens = as_integer(value)
        if tokens is not None and tokens > 0:
            return tokens, said
    return None
