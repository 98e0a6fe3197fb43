"""An answer's body decoded piece by piece, never past the client's limit: :class:`BodyReader`.

httpx decodes a compressed body in one go (a 0.41 MB gzip of zeros grew memory by 802 MB before any
check); here gzip and deflate are decoded with ``zlib``'s output bound, every piece is counted, and an
answer past ``Client(max_response_bytes=)`` is a ``ResponseTooLargeError``. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import zlib
from typing import Callable, Iterable, Iterator, Optional, Union

from gatewaykit.errors import ResponseTooLargeError, UnexpectedResponseError

__all__ = ["ACCEPTED_CODINGS", "DEFAULT_MAX_RESPONSE_BYTES", "PIECE", "BodyReader", "check_limit"]

DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024
PIECE = 256 * 1024  # the most one decoding step produces, whatever the compression ratio
ACCEPTED_CODINGS = "gzip, deflate"  # what the client's Accept-Encoding asks for


def check_limit(limit: object) -> int:
    """``max_response_bytes`` as given, checked: a positive whole number of bytes."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        from gatewaykit.errors import ConfigurationError

        raise ConfigurationError(
            f"max_response_bytes must be a positive number of bytes, not {limit!r} "
            f"(the default is {DEFAULT_MAX_RESPONSE_BYTES:,}, 128 MiB)"
        )
    return limit


class _ZlibDecoder:
    """gzip or deflate, at most :data:`PIECE` bytes out per step."""

    def __init__(self, coding: str, status: Optional[int] = None) -> None:
        self.coding = coding
        self._status = status
        self._gzip = coding in ("gzip", "x-gzip")
        # deflate is meant zlib-wrapped, but servers send raw deflate too: the first error switches to it
        self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS)
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        pending = data
        while pending or self._draining:
            try:
                out = self._decoder.decompress(pending, PIECE)
            except zlib.error:
                if self._gzip or self._started:
                    raise _undecodable(self.coding, self._status) from None
                self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate
                self._started = True
                continue
            self._started = True
            pending = self._decoder.unconsumed_tail
            self._draining = len(out) == PIECE and not self._decoder.eof  # more may wait inside zlib
            if out:
                yield out

    _draining = False

    def finish(self) -> Iterator[bytes]:
        yield from self.feed(b"")
        if not self._decoder.eof and self._started:
            raise _undecodable(self.coding, self._status, "it ends before its compressed data does")


class _Identity:
    coding = "identity"

    def feed(self, data: bytes) -> Iterator[bytes]:
        if data:
            yield data

    def finish(self) -> Iterator[bytes]:
        return iter(())


def _undecodable(coding: str, status: Optional[int], why: str = "it does not decode") -> UnexpectedResponseError:
    return UnexpectedResponseError(
        f"The answer's body is marked {coding!r} but {why}; nothing of it was kept.", status=status
    )


def _decoders(content_encoding: Optional[str], status: Optional[int] = None) -> list[object]:
    """One decoder per coding named, in the order they must be undone (the last applied first)."""
    decoders: list[object] = []
    for coding in reversed([part.strip().lower() for part in (content_encoding or "").split(",")]):
        if coding in ("", "identity"):
            continue
        if coding in ("gzip", "x-gzip", "deflate"):
            decoders.append(_ZlibDecoder(coding, status))
            continue
        raise UnexpectedResponseError(
            f"The answer's body is coded {coding!r}, which the client did not ask for (it accepts "
            f"{ACCEPTED_CODINGS}) and cannot decode within its size limit; nothing of it was kept.",
            status=status,
        )
    return decoders or [_Identity()]


class BodyReader:
    """Feed one answer's raw bytes (:meth:`feed`, then :meth:`finish`); get its decoded pieces.

    ``limit`` None: no size limit (a file saved to disk). ``call`` names the call in the error (or is a function
    that names it, asked only when there is an error: naming it costs more than reading a small answer), ``status``
    is the answer's (a 2xx refused is recorded in the ledger as interrupted: it may have been charged).
    """

    def __init__(
        self, content_encoding: Optional[str], limit: Optional[int],
        call: Union[str, Callable[[], Optional[str]], None] = None, status: Optional[int] = None,
    ) -> None:
        self._decoders = _decoders(content_encoding, status)
        self._status = status
        self._coded = content_encoding if not isinstance(self._decoders[0], _Identity) else None
        self._limit = limit
        self._call = call
        self.raw_size = 0
        self.size = 0

    def feed(self, raw: bytes) -> Iterable[bytes]:
        self.raw_size += len(raw)
        if self._coded is None:  # the usual case, one check per network chunk (a stream's hot path)
            self.size += len(raw)
            if self._limit is not None and self.size > self._limit:
                raise self._too_large()
            return (raw,) if raw else ()
        return self._counted(self._through([raw], 0))

    def finish(self) -> Iterator[bytes]:
        """What the decoders still hold at the end of the body (an incomplete gzip body raises)."""
        for position, decoder in enumerate(self._decoders):
            yield from self._counted(self._through(decoder.finish(), position + 1))  # type: ignore[attr-defined]

    def count(self, decoded: bytes) -> bytes:
        """An already decoded piece (a test transport that read the body itself), counted against the limit."""
        for piece in self._counted([decoded]):
            return piece
        return decoded

    def _through(self, pieces: Iterable[bytes], first: int) -> Iterator[bytes]:
        if first >= len(self._decoders):
            yield from pieces
            return
        decoder = self._decoders[first]
        for piece in pieces:
            yield from self._through(decoder.feed(piece), first + 1)  # type: ignore[attr-defined]

    def _counted(self, pieces: Iterable[bytes]) -> Iterator[bytes]:
        for piece in pieces:
            self.size += len(piece)
            if self._limit is not None and self.size > self._limit:
                raise self._too_large()
            yield piece

    def _too_large(self) -> ResponseTooLargeError:
        limit = self._limit or 0
        who = (self._call() if callable(self._call) else self._call) or "The request"
        coded = f" (it came {self._coded}-coded: {self.raw_size:,} bytes on the wire so far)" if self._coded else ""
        return ResponseTooLargeError(
            f"{who} got an answer larger than the client reads: more than {limit:,} bytes "
            f"({limit / 2**20:g} MiB) once decoded{coded}. Reading stopped there and nothing of it was kept. "
            f"If such an answer is expected, raise the limit: Client(max_response_bytes=...).",
            limit=limit,
            status=self._status,
        )
