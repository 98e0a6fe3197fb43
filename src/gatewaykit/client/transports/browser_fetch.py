"""httpx transports over the browser's own network, for Python running in a page (Pyodide, JupyterLite).

Pyodide has no sockets, so :mod:`gatewaykit.client.transports.http` puts these under its httpx clients
there and the rest of the client is the same as anywhere: :class:`FetchTransport` (``gk.AsyncClient``:
the browser's ``fetch``, a body read piece by piece) and :class:`XhrTransport` (``gk.Client``: a
synchronous ``XMLHttpRequest`` in a worker, the answer whole). Modelled on urllib3's
``contrib/emscripten``; nothing here is imported outside a browser. Details: ``docs/jupyterlite.md``.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

import httpx

__all__ = ["FetchTransport", "XhrTransport", "not_allowed_by_the_browser"]

#: Request headers a browser sets itself and refuses from a page (the fetch spec's forbidden names).
_BROWSER_SETS = frozenset({
    "accept-charset", "accept-encoding", "access-control-request-headers", "access-control-request-method",
    "connection", "content-length", "cookie", "date", "dnt", "expect", "host", "keep-alive", "origin", "referer",
    "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "via",
})  # fmt: skip
#: Response headers that described the bytes on the wire, which the browser has decoded already.
_DECODED_ALREADY = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def not_allowed_by_the_browser(url: Any, detail: str) -> str:
    """Why a browser request failed, and what to change (a CORS refusal looks like any network error)."""
    return (f"The browser could not reach {url} ({detail}). From a web page the server must allow the page's "
            f"origin (CORS): start the offline gateway or the classroom with --cors-origin <this page's origin> "
            f"(cors_origins=[...] in Python), and check that it is running at that address")


def _request_headers(request: httpx.Request) -> dict[str, str]:
    return {name: value for name, value in request.headers.items() if name.lower() not in _BROWSER_SETS}


def _seconds(request: httpx.Request, phase: str) -> float | None:
    value = (request.extensions.get("timeout") or {}).get(phase)
    return None if value is None else float(value)


class _FetchBody(httpx.AsyncByteStream):
    """A fetch response's body, one ``ReadableStream`` read at a time."""

    def __init__(self, reader: Any, read_timeout: float | None, url: Any) -> None:
        self._reader, self._timeout, self._url = reader, read_timeout, url

    async def __aiter__(self) -> AsyncIterator[bytes]:
        from pyodide.ffi import JsException

        while True:
            try:
                result = await asyncio.wait_for(self._reader.read(), self._timeout)
            except asyncio.TimeoutError:
                raise httpx.ReadTimeout(f"no answer from {self._url} for {self._timeout} s") from None
            except JsException as exc:
                raise httpx.ReadError(f"the answer from {self._url} broke off: {exc}") from None
            if result.done:
                return
            yield result.value.to_bytes()

    async def aclose(self) -> None:
        try:
            await self._reader.cancel()
        except Exception:  # noqa: BLE001 - a body that is finished or broken has nothing to cancel
            pass


class FetchTransport(httpx.AsyncBaseTransport):
    """``gk.AsyncClient``'s network in a browser: ``fetch``, the body streamed as it arrives."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        from pyodide.ffi import JsException, to_js
        from pyodide.http import pyfetch

        body = await request.aread()
        options: dict[str, Any] = {"method": request.method, "headers": _request_headers(request),
                                   "credentials": "omit", "redirect": "follow"}
        if body:
            options["body"] = to_js(body)
        try:
            answer = await asyncio.wait_for(pyfetch(str(request.url), **options), _seconds(request, "connect"))
        except asyncio.TimeoutError:
            raise httpx.ConnectTimeout(f"no answer from {request.url}", request=request) from None
        except (JsException, OSError) as exc:  # pyodide.http.AbortError is an OSError
            raise httpx.ConnectError(not_allowed_by_the_browser(request.url, str(exc)), request=request) from None
        js = answer.js_response
        headers = [(name, value) for name, value in answer.headers.items() if name.lower() not in _DECODED_ALREADY]
        if js.body is None:
            return httpx.Response(js.status, headers=headers, content=b"", request=request)
        stream = _FetchBody(js.body.getReader(), _seconds(request, "read"), request.url)
        return httpx.Response(js.status, headers=headers, stream=stream, request=request)


class XhrTransport(httpx.BaseTransport):
    """``gk.Client``'s network in a browser: a synchronous ``XMLHttpRequest`` (in a worker)."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        import js
        from pyodide.ffi import JsException, to_js

        if not hasattr(js, "XMLHttpRequest"):
            raise httpx.ConnectError(
                "gk.Client waits for each answer, which needs a synchronous XMLHttpRequest, and this JavaScript "
                "runtime has none: use gk.AsyncClient and `await` its calls", request=request)
        in_worker = not hasattr(js, "document")
        xhr = js.XMLHttpRequest.new()
        xhr.open(request.method, str(request.url), False)
        if in_worker:  # a page's main thread allows neither for a synchronous request
            xhr.responseType = "arraybuffer"
            timeout = _seconds(request, "read")
            if timeout:
                xhr.timeout = int(timeout * 1000)
        else:  # bytes through a text answer: each byte one character (the x-user-defined charset)
            xhr.overrideMimeType("text/plain; charset=x-user-defined")
        for name, value in _request_headers(request).items():
            xhr.setRequestHeader(name, value)
        body = request.read()
        try:
            xhr.send(to_js(body) if body else None)
        except JsException as exc:
            if exc.name == "TimeoutError":
                raise httpx.ReadTimeout(f"no answer from {request.url}", request=request) from None
            raise httpx.ConnectError(not_allowed_by_the_browser(request.url, str(exc)), request=request) from None
        if xhr.status == 0:  # refused (CORS) or unreachable: the browser tells a page no more than that
            raise httpx.ConnectError(not_allowed_by_the_browser(request.url, "no answer"), request=request)
        if in_worker:
            content = js.Uint8Array.new(xhr.response).to_bytes() if xhr.response else b""
        else:
            content = bytes(ord(char) & 0xFF for char in xhr.responseText)
        headers = []
        for line in (xhr.getAllResponseHeaders() or "").strip().split("\r\n"):
            name, _, value = line.partition(":")
            if name and name.strip().lower() not in _DECODED_ALREADY:
                headers.append((name.strip(), value.strip()))
        return httpx.Response(xhr.status, headers=headers, content=content, request=request)
