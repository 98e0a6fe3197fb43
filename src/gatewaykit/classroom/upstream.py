"""The gateway behind the classroom: one httpx connection pool that sends with the teacher's key.

Requests are rebuilt for the upstream: hop-by-hop headers, ``Host``, cookies
and the student's ``Authorization`` are dropped, the teacher's key is put in,
and answers are asked for uncompressed so bodies can be read and passed on as
they are. Answers come back with hop-by-hop and length headers dropped. The
teacher's key is scrubbed from anything the upstream sends back (it never
should say it, but the key must not reach a student even if it did).
"""

from __future__ import annotations

import logging
from typing import Any, Iterable, Optional

import httpx

__all__ = ["HOP_BY_HOP", "Upstream", "UpstreamFailure"]

HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "trailers", "transfer-encoding", "upgrade"})
_NOT_FORWARDED = HOP_BY_HOP | {"host", "authorization", "content-length", "accept-encoding", "cookie",
                               "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "forwarded"}
_NOT_RETURNED = HOP_BY_HOP | {"content-length", "content-encoding", "set-cookie", "date", "server"}
SCRUBBED = b"[redacted]"
#: The connections to the gateway are split over several small httpx pools, used in turn: httpcore checks
#: every connection of a pool for each request it places (an ``is_readable`` probe each), so one pool of
#: 320 connections spent most of its time there (forwarded chats fell from 150/s to 20/s under 320 requests
#: in flight). POOLS x CONNECTIONS_PER_POOL connections at most; more requests wait for one.
POOLS = 32
CONNECTIONS_PER_POOL = 8
log = logging.getLogger("gatewaykit.classroom")


class UpstreamFailure(Exception):
    """The gateway did not answer (connection refused, reset, time-out)."""

    def __init__(self, timed_out: bool, cause: str = "") -> None:
        super().__init__(("timeout" if timed_out else "unreachable") + (f" ({cause})" if cause else ""))
        self.timed_out = timed_out


class Upstream:
    def __init__(self, base_url: str, key: str, *, timeout: float = 300.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = key
        self._key_bytes = key.encode("utf-8", "surrogatepass")
        # A loopback connect is instant, but on a loaded machine the event loop may not see it for seconds.
        self.timeout = httpx.Timeout(timeout, connect=30.0, pool=timeout)
        self._clients: list[httpx.AsyncClient] = []
        self._turn = 0

    def __repr__(self) -> str:  # never the key
        return f"Upstream({self.base_url!r})"

    @property
    def client(self) -> httpx.AsyncClient:
        """The next pool in turn (the pools are made in the server's event loop, when first used)."""
        if not self._clients:
            limits = httpx.Limits(max_connections=CONNECTIONS_PER_POOL, max_keepalive_connections=CONNECTIONS_PER_POOL,
                                  keepalive_expiry=20)
            import ssl

            tls = ssl.create_default_context()  # one for all pools (each would make its own, 10 ms apiece)
            self._clients = [httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout, follow_redirects=False,
                                               trust_env=False, limits=limits, verify=tls) for _ in range(POOLS)]
        self._turn = (self._turn + 1) % len(self._clients)
        return self._clients[self._turn]

    async def aclose(self) -> None:
        clients, self._clients = self._clients, []
        for client in clients:
            await client.aclose()

    def request_headers(self, headers: Iterable[tuple[str, str]], content_type: Optional[str] = None) -> dict:
        out = {name: value for name, value in headers if name.lower() not in _NOT_FORWARDED}
        if content_type is not None:
            out = {k: v for k, v in out.items() if k.lower() != "content-type"}
            out["content-type"] = content_type
        out["authorization"] = f"Bearer {self._key}"
        out["accept-encoding"] = "identity"
        return out

    @staticmethod
    def response_headers(response: httpx.Response) -> dict[str, str]:
        return {name: value for name, value in response.headers.items() if name.lower() not in _NOT_RETURNED}

    def scrub(self, data: bytes) -> bytes:
        return data.replace(self._key_bytes, SCRUBBED) if self._key_bytes in data else data

    async def send(self, method: str, path: str, *, headers: Iterable[tuple[str, str]] = (),
                   content: Optional[bytes] = None, params: Any = None, content_type: Optional[str] = None,
                   stream: bool = False) -> httpx.Response:
        """The upstream's answer (``stream``: the body not read yet; the caller closes it)."""
        client = self.client
        request = client.build_request(method, path, content=content, params=params,
                                       headers=self.request_headers(headers, content_type))
        try:
            try:
                return await client.send(request, stream=stream)
            except (httpx.ConnectError, httpx.ConnectTimeout):  # nothing was sent: once more is safe
                return await client.send(request, stream=stream)
        except httpx.TimeoutException as exc:
            log.warning("the gateway did not answer %s %s in time (%s)", method, path, type(exc).__name__)
            raise UpstreamFailure(timed_out=True, cause=type(exc).__name__) from None
        except httpx.TransportError as exc:
            log.warning("the gateway could not be reached for %s %s (%s)", method, path, type(exc).__name__)
            raise UpstreamFailure(timed_out=False, cause=type(exc).__name__) from None

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
