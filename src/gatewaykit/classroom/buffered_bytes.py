"""The bytes the classroom holds in memory for requests and answers it buffers, bounded per answer and in total.

A buffered answer (a chat, an image) is read whole before it is passed on, and
a student's body is read whole before it is forwarded: without a bound, one
answer or a few large bodies at once grow the server without limit. Each
buffer takes its bytes from one :class:`BufferedBytes` and gives them back when
it is done; an answer over ``per_answer`` is :class:`AnswerTooLarge` (a 502:
the gateway sent what the classroom will not pass on), and bytes past
``total`` are :class:`BuffersFull` (a 503: the classroom is busy, try again).
"""

from __future__ import annotations

__all__ = ["AnswerTooLarge", "BufferedBytes", "BuffersFull", "MAX_ANSWER_BYTES", "MAX_BUFFERED_BYTES"]

#: One buffered answer at most (the largest legitimate one, four large images in base64, is well under it).
MAX_ANSWER_BYTES = 64 * 1024 * 1024
#: All buffered requests and answers together at most.
MAX_BUFFERED_BYTES = 256 * 1024 * 1024


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**20:g} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:g} KiB"


class AnswerTooLarge(Exception):
    """An answer is larger than one buffered answer may be."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"an answer over {_size(limit)}")
        self.limit = limit


class BuffersFull(Exception):
    """The classroom holds as many buffered bytes as it may; this buffer would pass the total."""

    def __init__(self, total: int) -> None:
        super().__init__(f"over {_size(total)} buffered")
        self.total = total


class BufferedBytes:
    """``per_answer`` bytes for one answer, ``total`` for everything buffered at once (one event loop's count)."""

    __slots__ = ("per_answer", "total", "in_use")

    def __init__(self, per_answer: int = MAX_ANSWER_BYTES, total: int = MAX_BUFFERED_BYTES) -> None:
        if not 0 < per_answer <= total:
            raise ValueError(f"the buffered bytes per answer ({per_answer}) must be > 0 and at most the total "
                             f"({total})")
        self.per_answer, self.total, self.in_use = per_answer, total, 0

    def take(self, nbytes: int) -> None:
        """Count ``nbytes`` more as held; :class:`BuffersFull` (nothing taken) when that would pass the total."""
        if self.in_use + nbytes > self.total:
            raise BuffersFull(self.total)
        self.in_use += nbytes

    def give(self, nbytes: int) -> None:
        """``nbytes`` taken earlier are no longer held."""
        self.in_use -= nbytes
