"""Recording and replaying httpx transports for ``Client(cassette=..., cassette_mode=...)``.

They sit under the client's ``httpx.Client``, so every request goes through one place: ``record``
writes every exchange, ``replay`` never uses the network (an unrecorded request raises
:class:`CassetteMissError`), ``auto`` replays what the file holds and appends the rest. A replayed
answer's ledger row is ``replayed`` (trusted from a response extension, never a header).
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import base64
from typing import Any, AsyncIterator, Callable, Iterator, Optional

import httpx

from gatewaykit.client.transports.cassette_store import ANSWERED_BY, REPLAYED_HEADER, Cassette, normalise_request
from gatewaykit.client.transports.environment_proxies import AsyncEnvironmentNetwork, EnvironmentNetwork

__all__ = ["AsyncCassetteTransport", "CassetteTransport", "cassette_transport"]


def _secrets(request: httpx.Request) -> list[str]:
    """The credentials a request carries (never written; scrubbed wherever they would be)."""
    found = []
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    found.append(token.strip() if token else scheme.strip())
    found.extend(part.split("=", 1)[-1].strip() for part in request.headers.get("cookie", "").split(";"))
    return [secret for secret in found if len(secret) >= 4]


class _Shared:
    def __init__(self, cassette: Cassette, base_url: str) -> None:
        self.cassette = cassette
        self.base_url = base_url

    def _prepare(self, request: httpx.Request) -> tuple[dict[str, Any], Optional[dict[str, Any]]]:
        request.read()  # a multipart body is generated lazily; matching needs its bytes
        normalised = normalise_request(
            request.method, str(request.url), self.base_url, request.headers.get("content-type", ""), request.content
        )
        answer = None if self.cassette.mode == "record" else self.cassette.next_answer(normalised)
        if answer is None and self.cassette.mode == "replay":
            raise self.cassette.miss(normalised)
        if answer is None:
            request.headers["accept-encoding"] = "identity"  # store bodies as the client reads them
        return normalised, answer

    def _replayed(self, answer: dict[str, Any]) -> httpx.Response:
        label = getattr(self.cassette, "replay_label", "replayed")
        headers = [(name, value) for name, value in answer.get("headers", []) if name.lower() != REPLAYED_HEADER]
        headers.append((REPLAYED_HEADER, label))
        if "chunks" in answer:
            chunks = [chunk.encode("utf-8") for chunk in answer["chunks"]]
        elif "chunks_b64" in answer:
            chunks = [base64.b64decode(chunk) for chunk in answer["chunks_b64"]]
        elif "media" in answer:
            chunks = [self.cassette.media(answer["media"])]
        else:
            chunks = [answer.get("text", "").encode("utf-8")]
        on_replay = getattr(self.cassette, "on_replay", None)  # a response cache marks what it saves
        if on_replay is not None:
            chunks = on_replay(answer, chunks)
        return httpx.Response(
            answer["status"], headers=headers, stream=_ReplayStream(chunks, bool(answer.get("broken"))),
            extensions={ANSWERED_BY: label},
        )

    def _recorder(self, request: httpx.Request, normalised: dict[str, Any], response: httpx.Response) -> Callable:
        secrets = _secrets(request)
        headers = list(response.headers.multi_items())
        location = response.headers.get("location")
        if location and location.startswith(self.base_url + "/"):
            # A redirect on the gateway's own origin is kept relative, so it replays on any base URL.
            headers = [(k, location[len(self.base_url):] if k.lower() == "location" else v) for k, v in headers]

        def done(chunks: list[bytes], broken: bool, complete: bool) -> None:
            self.cassette.write(normalised, response.status_code, headers, chunks, secrets, broken, complete=complete)

        return done


class _ReplayStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """The recorded chunks, one by one (then the recorded network failure, if there was one)."""

    def __init__(self, chunks: list[bytes], broken: bool) -> None:
        self._chunks = chunks
        self._broken = broken

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks
        if self._broken:
            raise httpx.ReadError("the recorded stream broke off here")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk
        if self._broken:
            raise httpx.ReadError("the recorded stream broke off here")


class _RecordingStream:
    """Passes the network's chunks through and writes the exchange once the body is done."""

    def __init__(self, inner: Any, done: Callable[[list[bytes], bool, bool], None]) -> None:
        self._inner = inner
        self._done: Optional[Callable[[list[bytes], bool, bool], None]] = done
        self._chunks: list[bytes] = []
        self._broken = False
        self._ended = False  # the body was read to its end (not closed early: a stream's Stop)

    def _finish(self) -> None:
        done, self._done = self._done, None
        if done is not None:
            done(self._chunks, self._broken, self._ended)


class _SyncRecordingStream(_RecordingStream, httpx.SyncByteStream):
    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
            self._ended = True
        except httpx.TransportError:
            self._broken = True
            raise

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._finish()


class _AsyncRecordingStream(_RecordingStream, httpx.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
            self._ended = True
        except httpx.TransportError:
            self._broken = True
            raise

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._finish()


class CassetteTransport(_Shared, httpx.BaseTransport):
    """A blocking httpx transport that records to, or replays from, a cassette."""

    def __init__(self, cassette: Cassette, base_url: str, network: Optional[httpx.BaseTransport] = None, *,
                 trust_env: bool = True) -> None:
        super().__init__(cassette, base_url)
        self._network = network
        self._trust_env = trust_env  # False: never the environment's proxies (the offline gateway)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        normalised, answer = self._prepare(request)
        if answer is not None:
            return self._replayed(answer)
        if self._network is None:
            self._network = EnvironmentNetwork() if self._trust_env else httpx.HTTPTransport()
        response = self._network.handle_request(request)
        stream = _SyncRecordingStream(response.stream, self._recorder(request, normalised, response))
        return httpx.Response(
            response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
        )

    def close(self) -> None:
        if self._network is not None:
            self._network.close()


class AsyncCassetteTransport(_Shared, httpx.AsyncBaseTransport):
    """The awaitable twin of :class:`CassetteTransport`."""

    def __init__(self, cassette: Cassette, base_url: str, network: Optional[httpx.AsyncBaseTransport] = None, *,
                 trust_env: bool = True) -> None:
        super().__init__(cassette, base_url)
        self._network = network
        self._trust_env = trust_env  # False: never the environment's proxies (the offline gateway)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        normalised, answer = self._prepare(request)
        if answer is not None:
            return self._replayed(answer)
        if self._network is None:
            self._network = AsyncEnvironmentNetwork() if self._trust_env else httpx.AsyncHTTPTransport()
        response = await self._network.handle_async_request(request)
        stream = _AsyncRecordingStream(response.stream, self._recorder(request, normalised, response))
        return httpx.Response(
            response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
        )

    async def aclose(self) -> None:
        if self._network is not None:
            await self._network.aclose()


def cassette_transport(cassette: Cassette, base_url: str, network: Any = None, *, is_async: bool,
                       trust_env: bool = True) -> Any:
    """The transport for a client: ``network`` (the user's ``http_transport=``, if any) under the cassette.

    Without one, the network is direct or through the environment's proxy for each URL (``trust_env``), as
    the client's own ``httpx.Client`` would go (``environment_proxies.py``)."""
    kind = AsyncCassetteTransport if is_async else CassetteTransport
    return kind(cassette, base_url, network, trust_env=trust_env)
