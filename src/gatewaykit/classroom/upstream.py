"""The gateway behind the classroom: keep-alive connections that send with the teacher's key.

Of the student's headers only an allow-list passes (``FORWARDED_HEADERS``), so nothing a student
sends reaches the gateway beside the teacher's key; answers come back without hop-by-hop headers
and with the key scrubbed. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable, Optional
from urllib.parse import urlencode

from gatewaykit.classroom.buffered_bytes import (
    MAX_ANSWER_BYTES, MAX_BUFFERED_BYTES, AnswerTooLarge, BufferedBytes, BuffersFull,
)
from gatewaykit.classroom.keepalive import ConnectionFailed, KeepAlivePool, UpstreamResponse

__all__ = ["FORWARDED_HEADERS", "HOP_BY_HOP", "Upstream", "UpstreamFailure", "UpstreamResponse"]

HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "trailers", "transfer-encoding", "upgrade"})
#: The student's headers the gateway is sent: the body's type, what the client accepts, who it is, the W3C
#: trace context that ties the gateway's spans to the student's, and the part of a media file asked for. Nothing
#: else reaches it with the teacher's key.
FORWARDED_HEADERS = frozenset({"content-type", "accept", "user-agent", "traceparent", "tracestate", "range"})
_LONGEST_FORWARDED = 512  # characters of a forwarded value (a multipart boundary is at most 70)
_NOT_RETURNED = HOP_BY_HOP | {"content-length", "content-encoding", "set-cookie", "date", "server"}
SCRUBBED = b"[redacted]"
#: Connections to the gateway at most; more requests in flight wait for one (up to the upstream time-out).
MAX_CONNECTIONS = 512
log = logging.getLogger("gatewaykit.classroom")


class UpstreamFailure(Exception):
    """The gateway did not answer (connection refused, reset, time-out), or its answer is more than the classroom
    buffers (``too_large``: over the answer limit; ``busy``: over the total held at once).

    ``sent``: the request had left for the gateway, so it may have been carried out (and billed)."""

    def __init__(self, timed_out: bool, cause: str = "", sent: bool = False, *, too_large: bool = False,
                 busy: bool = False) -> None:
        super().__init__(("timeout" if timed_out else "unreachable") + (f" ({cause})" if cause else ""))
        self.timed_out, self.cause = timed_out, cause
        self.sent = sent
        self.too_large, self.busy = too_large, busy


class Upstream:
    def __init__(self, base_url: str, key: str, *, timeout: float = 300.0, trust_env: bool = True,
                 max_answer_bytes: int = MAX_ANSWER_BYTES, max_buffered_bytes: int = MAX_BUFFERED_BYTES) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = key
        self._key_bytes = key.encode("utf-8", "surrogatepass")
        self._bearer = f"Bearer {key}"
        self.timeout = timeout
        # A loopback connect is instant, but on a loaded machine the event loop may not see it for seconds.
        self._pool = KeepAlivePool(self.base_url, timeout=timeout, connect_timeout=30.0,
                                   max_connections=MAX_CONNECTIONS, trust_env=trust_env)
        #: What buffered bodies (students' and the gateway's) may hold in memory, per answer and in total.
        self.buffers = BufferedBytes(max_answer_bytes, max_buffered_bytes)

    def __repr__(self) -> str:  # never the key
        return f"Upstream({self.base_url!r})"

    async def aclose(self) -> None:
        await self._pool.aclose()

    def request_headers(self, headers: Iterable[tuple[str, str]], content_type: Optional[str] = None
                        ) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        seen = set() if content_type is None else {"content-type"}
        for name, value in headers:
            lower = name.lower()
            if lower in FORWARDED_HEADERS and lower not in seen and len(value) <= _LONGEST_FORWARDED:
                seen.add(lower)
                out.append((lower, value))
        if content_type is not None:
            out.append(("content-type", content_type))
        out.append(("authorization", self._bearer))
        out.append(("accept-encoding", "identity"))
        return out

    @staticmethod
    def response_headers(response: UpstreamResponse) -> dict[str, str]:
        return {name: value for name, value in response.headers.items() if name.lower() not in _NOT_RETURNED}

    def scrub(self, data: bytes) -> bytes:
        return data.replace(self._key_bytes, SCRUBBED) if self._key_bytes in data else data

    async def send(self, method: str, path: str, *, headers: Iterable[tuple[str, str]] = (),
                   content: Optional[bytes] = None, params: Any = None, content_type: Optional[str] = None,
                   stream: bool = False) -> UpstreamResponse:
        """The upstream's answer (``stream``: the body not read yet; the caller reads or closes it).
        :class:`UpstreamFailure` when the gateway cannot be reached or does not answer in time."""
        target = path
        if params:
            query = str(params) if hasattr(params, "multi_items") else urlencode(params, doseq=True)
            target = f"{path}?{query}" if query else path
        try:
            response = await self._pool.request(method, target, self.request_headers(headers, content_type), content)
            if not stream:
                await response.aread(self.buffers)
                response.release()  # a job's view, the model list: passed on at once
            return response
        except ConnectionFailed as exc:
            if exc.timed_out:
                log.warning("the gateway did not answer %s %s in time (%s)", method, path, exc.cause)
            else:
                log.warning("the gateway could not be reached for %s %s (%s)", method, path, exc.cause)
            raise UpstreamFailure(timed_out=exc.timed_out, cause=exc.cause, sent=exc.sent) from None
        except AnswerTooLarge as exc:
            log.warning("the gateway's answer to %s %s is %s: not passed on", method, path, exc)
            raise UpstreamFailure(False, str(exc), sent=True, too_large=True) from None
        except BuffersFull as exc:
            raise UpstreamFailure(False, str(exc), sent=True, busy=True) from None

    async def get_json(self, path: str) -> Any:
        """GET with the teacher's key; the parsed JSON of a 200, else None (used to settle jobs)."""
        try:
            response = await self.send("GET", path)
        except UpstreamFailure:
            return None
        if response.status_code != 200:
            return {"_status": response.status_code}
        try:
            return response.json()
        except ValueError:
            return None
