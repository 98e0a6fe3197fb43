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
#: Connections to the gateway at once; more requests wait for one (a few hundred students' requests in flight
#: need not open a few hundred connections).
MAX_CONNECTIONS = 100
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
        self._client: Optional[httpx.AsyncClient] = None

    def __repr__(self) -> str:  # never the key
        return f"Upstream({self.base_url!r})"

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:  # made in the server's event loop
            self._client = httpx.AsyncClient(
                base_url=self.base_url, timeout=self.timeout, follow_redirects=False, trust_env=False,
                limits=httpx.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS,
                                    keepalive_expiry=20))
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

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
        request = self.client.build_request(method, path, content=content, params=params,
                                            headers=self.request_headers(headers, content_type))
        try:
            try:
                return await self.client.send(request, stream=stream)
            except (httpx.ConnectError, httpx.ConnectTimeout):  # nothing was sent: once more is safe
                return await self.client.send(request, stream=stream)
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
