"""A small deterministic tokenizer: pieces whose concatenation is the text.

It is not any real model's tokenizer, but its counts are plausible (roughly
four characters of English per token) and consistent everywhere: the same
pieces are counted, billed, truncated by ``max_tokens`` and streamed.
"""

from __future__ import annotations

import re

_PIECE = re.compile(r" ?[A-Za-z]{1,6}| ?\d{1,3}| ?[^\w\s]|\n+|[ \t]+|(?s:.)")


def tokenize(text: str) -> list[str]:
    return _PIECE.findall(text)


def count_tokens(text: str) -> int:
    return len(_PIECE.findall(text)) if text else 0
