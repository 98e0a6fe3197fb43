"""The only module that imports httpx.

Everything else in the client works on ``ApiRequest`` and the response returned here. Transport
failures are translated here into :class:`APIConnectionError` / :class:`APITimeoutError`, marked with
``request_sent`` (False only when the request provably never reached the server). A request to
another origin carries none of the client's headers; every body is read raw and decoded through
``BodyReader`` within ``max_response_bytes``. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import Any, AsyncIterator, Iterator, Optional

import httpx

from gatewaykit.client.api_request import NOT_GIVEN, ApiRequest
from gatewaykit.client.transports.body_reading import DEFAULT_MAX_RESPONSE_BYTES, BodyReader
from gatewaykit.client.transports.environment_proxies import environment_proxy
from gatewaykit.error_text import mask_url, python_call
from gatewaykit.errors import APIConnectionError, APITimeoutError
from gatewaykit.proxy_environment import shown_proxy

__all__ = ["AsyncTransport", "SyncTransport", "translate_error"]

# Failures that happen before a single byte of the request left this process.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol)
_PARSED_PATHS = 256  # how many of the gateway's paths a transport keeps parsed


def translate_error(
    exc: Exception, request: ApiRequest | None = None, proxy: Optional[str] = None, base_url: Optional[str] = None
) -> APIConnectionError:
    """Map an httpx exception to the gatewaykit error tree (never mentions headers or keys).

    ``proxy``: the request went through this proxy (the environment named it): the message says so, and how to
    go direct, without the proxy's login. ``base_url``: the gateway the client talks to; when nothing answers
    there (a class's classroom that is down, say), the message names it and says to tell whoever runs it."""
    sent = not isinstance(exc, _NOT_SENT)
    call = python_call(request.method, request.path) if request is not None else None
    where = f" ({call or f'{request.method} {request.path}'})" if request is not None else ""
    if isinstance(exc, httpx.TimeoutException):
        what = "connecting" if not sent else "waiting for the answer"
        text = f"Timed out {what}{where}: {type(exc).__name__}"
        err: APIConnectionError = APITimeoutError(text + _through(proxy))
    else:
        detail = str(exc) or type(exc).__name__
        refused = base_url and proxy is None and isinstance(exc, httpx.ConnectError)
        down = _nothing_answers(base_url) if refused else ""  # type: ignore[arg-type]
        err = APIConnectionError(f"Connection to the gateway failed{where}: {detail}{down}{_through(proxy)}")
    err.request_sent = sent  # type: ignore[attr-defined]
    return err


def _nothing_answers(base_url: str) -> str:
    """What a student does when nothing answers at the gateway's address: it is someone else's to fix."""
    named = os.environ.get("SVC_BASE_URL", "").strip().rstrip("/").removesuffix("/v1").rstrip("/")
    source = " (SVC_BASE_URL)" if named and named == base_url.rstrip("/") else ""
    return (f". Nothing answers at {mask_url(base_url)}{source}: if it is your class's classroom, or a gateway "
            "someone runs for you, it is down or unreachable: tell whoever runs it (your teacher); else check "
            "the address")


def _through(proxy: Optional[str]) -> str:
    if proxy is None:
        return ""
    return (f". It went through the proxy at {shown_proxy(proxy)}, which HTTP_PROXY / HTTPS_PROXY / ALL_PROXY "
            "name in this environment: check that proxy, or list the gateway's host in NO_PROXY to go direct")


def make_timeout(timeout: Any) -> httpx.Timeout:
    """A float (seconds, total per phase), None (no limit) or an httpx-like Timeout."""
    if isinstance(timeout, httpx.Timeout):
        return timeout
    if timeout is None:
        return httpx.Timeout(None)
    return httpx.Timeout(float(timeout), connect=min(10.0, float(timeout)))


def _origin_of(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port (the default port filled in): what makes two URLs the same origin."""
    parsed = httpx.URL(url)
    port = parsed.port if parsed.port is not None else {"http": 80, "https": 443}.get(parsed.scheme)
    return parsed.scheme, parsed.host.lower(), port


def _call_of(response: Any) -> Any:
    try:
        return python_call(response.request.method, response.request.url.path)
    except Exception:  # noqa: BLE001 - a response without its request: no name
        return None


def _with_content(response: httpx.Response, content: bytes) -> httpx.Response:
    """``response`` holding its decoded body as httpx's own ``read()`` leaves it (``content``, ``text``, ``json()``
    and ``iter_bytes()`` give it); after a coding, its header and the length header go (they described the raw
    bytes). Not a new ``httpx.Response``: building one costs more than the rest of the client's work on a call,
    so httpx's private ``_content`` is set (``tests/client/test_httpx_private_names.py`` says why and checks it)."""
    headers = response.headers
    if "content-encoding" in headers:
        del headers["content-encoding"]
        if "content-length" in headers:
            del headers["content-length"]
    response._content = content
    return response


class _NoCookies(httpx.Cookies):
    """The cookie jar of the client's own httpx client, which files nothing.

    ``httpx.Client.send`` files every answer's ``Set-Cookie`` in its client's jar, wrapping each
    answer in a ``urllib`` request and response to do so (23 to 28 us a request, about a fifth of a
    buffered chat over ``httpx.MockTransport``; ``benchmarks/client_overhead.py``). Only
    ``Client.build_request`` would ever send that jar, and this module builds its requests itself
    (``_build``), so nothing filed there was ever sent: filing nothing changes nothing on the wire
    (``tests/client/test_http_cookies.py``).
    """

    def extract_cookies(self, response: httpx.Response) -> None:
        return None


class _FilingNoCookies:
    """Mixed in before ``httpx.Client`` / ``httpx.AsyncClient``: their ``cookies`` is a :class:`_NoCookies`."""

    _no_cookies = _NoCookies()

    @property
    def cookies(self) -> httpx.Cookies:
        return self._no_cookies

    @cookies.setter
    def cookies(self, cookies: Any) -> None:  # (httpx's own constructor does not set it; nothing else does)
        pass


class _Client(_FilingNoCookies, httpx.Client):
    """``httpx.Client`` whose cookie jar files nothing."""


class _AsyncClient(_FilingNoCookies, httpx.AsyncClient):
    """``httpx.AsyncClient`` whose cookie jar files nothing."""


class _TransportBase:
    def __init__(
        self, base_url: str, headers: dict[str, str], timeout: Any, max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    ) -> None:
        self.base_url = base_url
        self.max_response_bytes = max_response_bytes
        self._headers = headers
        # Header names are case-insensitive: default_headers={"authorization": ...} is a key too.
        self._headers_without_auth = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        self._timeout_ext = make_timeout(timeout).as_dict()
        self._origin = _origin_of(base_url)
        self._urls: dict[str, httpx.URL] = {}  # a path on the gateway -> its parsed URL (parsed once, not per request)
        #: Requests go through the proxy the environment names (set by the client; False for the offline gateway).
        self.environment_proxies = False

    def _failed(self, exc: Exception, request: ApiRequest) -> APIConnectionError:
        """``exc`` translated, naming the environment's proxy when the request went through one."""
        proxy = None
        if self.environment_proxies:
            path = request.path
            url = self._gateway_url(path) if path.startswith("/") else httpx.URL(
                path if path.startswith(("http://", "https://")) else self.base_url + path)
            proxy = environment_proxy(url)
        return translate_error(exc, request, proxy, self.base_url)

    def _reader(self, response: Any, capped: bool = True) -> BodyReader:
        limit = self.max_response_bytes if capped else None
        call = partial(_call_of, response)  # named only for an error
        return BodyReader(response.headers.get("content-encoding"), limit, call, response.status_code)

    def _read_already(self, response: httpx.Response) -> Optional[httpx.Response]:
        """``response`` when its decoded body is in memory already (a test transport such as
        ``httpx.MockTransport`` read it), counted against the size limit; None when it must be read."""
        if not response.is_stream_consumed:
            return None
        try:
            content = response.content
        except httpx.ResponseNotRead:  # consumed without being kept (iter_raw): it must be read again
            return None
        limit = self.max_response_bytes
        if limit is not None and len(content) > limit:
            self._reader(response).count(content)  # raises ResponseTooLargeError, naming the call
        return _with_content(response, content)

    def _same_origin(self, url: str) -> bool:
        return _origin_of(url) == self._origin

    def _gateway_url(self, path: str) -> httpx.URL:
        """``base_url + path`` parsed; the gateway's own paths repeat, so each is parsed once."""
        url = self._urls.get(path)
        if url is None:
            if len(self._urls) >= _PARSED_PATHS:  # job ids make paths unbounded: start again rather than grow
                self._urls.clear()
            url = self._urls[path] = httpx.URL(self.base_url + path)
        return url

    def _build(self, request: ApiRequest) -> httpx.Request:
        url: httpx.URL | str
        if request.path.startswith("/"):
            url, same_origin = self._gateway_url(request.path), True  # the gateway's origin by construction
        else:
            url = request.path if request.path.startswith(("http://", "https://")) else self.base_url + request.path
            same_origin = self._same_origin(url)
        if not same_origin:
            # Another origin (a content redirect to a media host): none of the client's headers go
            # there, not the key, not default_headers (an organisation token, a proxy key, a Cookie).
            headers: dict[str, str] = {}
        else:
            headers = self._headers if request.auth else self._headers_without_auth
            if request.headers or request.files is not None:
                headers = dict(headers)
                if request.files is not None:
                    headers.pop("Content-Type", None)  # httpx sets the multipart boundary
                if request.headers:
                    headers.update(request.headers)
        if request.timeout is not NOT_GIVEN:
            extensions = {"timeout": make_timeout(request.timeout).as_dict()}
        else:
            extensions = {"timeout": self._timeout_ext}
        if request.files is not None:
            return httpx.Request(
                request.method, url, headers=headers, data=request.data, files=request.files, extensions=extensions
            )
        return httpx.Request(request.method, url, headers=headers, content=request.content, extensions=extensions)


def _in_browser() -> bool:
    """Python in a web page (Pyodide): no sockets, the browser's network instead."""
    return sys.platform == "emscripten"


class SyncTransport(_TransportBase):
    """Blocking sends over one pooled ``httpx.Client``."""

    def __init__(
        self, base_url: str, headers: dict[str, str], timeout: Any, http_transport: Any = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES, *, trust_env: bool = True,
    ) -> None:
        super().__init__(base_url, headers, timeout, max_response_bytes)
        if http_transport is None and _in_browser():
            from gatewaykit.client.transports.browser_fetch import XhrTransport

            http_transport = XhrTransport()
        self._client = _Client(transport=http_transport, follow_redirects=False, timeout=make_timeout(timeout),
                               trust_env=trust_env)

    def send(self, request: ApiRequest) -> Any:
        try:
            response = self._client.send(self._build(request), stream=True)
            if not request.stream or response.status_code >= 300:  # the error mapping needs an error's body
                response = self._read_whole(response)
            return response
        except httpx.HTTPError as exc:
            raise self._failed(exc, request) from None

    def _read_whole(self, response: httpx.Response) -> httpx.Response:
        already = self._read_already(response)
        if already is not None:
            response.close()
            return already
        try:
            content = b"".join(self.iter_bytes(response))
        finally:
            response.close()
        return _with_content(response, content)

    def iter_bytes(self, response: Any, *, capped: bool = True) -> Iterator[bytes]:
        """The decoded body, piece by piece, transport errors translated; past the limit (``capped``),
        :class:`ResponseTooLargeError`."""
        reader = self._reader(response, capped)
        try:
            if response.is_stream_consumed:  # a test transport (httpx.MockTransport) read and decoded it already
                for piece in response.iter_bytes():
                    yield reader.count(piece)
                return
            for raw in response.iter_raw():
                yield from reader.feed(raw)
            yield from reader.finish()
        except httpx.HTTPError as exc:
            raise translate_error(exc) from None

    def close_response(self, response: Any) -> None:
        response.close()

    def close(self) -> None:
        self._client.close()


class AsyncTransport(_TransportBase):
    """Awaitable sends over one pooled ``httpx.AsyncClient``."""

    def __init__(
        self, base_url: str, headers: dict[str, str], timeout: Any, http_transport: Any = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES, *, trust_env: bool = True,
    ) -> None:
        super().__init__(base_url, headers, timeout, max_response_bytes)
        if http_transport is None and _in_browser():
            from gatewaykit.client.transports.browser_fetch import FetchTransport

            http_transport = FetchTransport()
        self._client = _AsyncClient(
            transport=http_transport, follow_redirects=False, timeout=make_timeout(timeout), trust_env=trust_env
        )

    async def send(self, request: ApiRequest) -> Any:
        try:
            response = await self._client.send(self._build(request), stream=True)
            if not request.stream or response.status_code >= 300:
                response = await self._read_whole(response)
            return response
        except httpx.HTTPError as exc:
            raise self._failed(exc, request) from None

    async def _read_whole(self, response: httpx.Response) -> httpx.Response:
        already = self._read_already(response)
        if already is not None:
            await response.aclose()
            return already
        try:
            content = b"".join([piece async for piece in self.iter_bytes(response)])
        finally:
            await response.aclose()
        return _with_content(response, content)

    async def iter_bytes(self, response: Any, *, capped: bool = True) -> AsyncIterator[bytes]:
        reader = self._reader(response, capped)
        try:
            if response.is_stream_consumed:  # a test transport read and decoded it already
                async for piece in response.aiter_bytes():
                    yield reader.count(piece)
                return
            async for raw in response.aiter_raw():
                for piece in reader.feed(raw):
                    yield piece
            for piece in reader.finish():
                yield piece
        except httpx.HTTPError as exc:
            raise translate_error(exc) from None

    async def close_response(self, response: Any) -> None:
        await response.aclose()

    async def close(self) -> None:
        await self._client.aclose()
