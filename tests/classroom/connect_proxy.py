"""A small CONNECT proxy on 127.0.0.1 for the classroom's proxy tests (imported by them).

It counts CONNECTs, keeps what it was asked in the clear (the CONNECT heads), checks ``Proxy-Authorization``
when it has a user and password, answers ``refuse_with`` instead of tunnelling when that is set, and tunnels
bytes both ways (to loopback only: the tests' gateways are there).
"""

from __future__ import annotations

import asyncio
import base64
import threading
from typing import Optional


class ConnectProxy:
    def __init__(self, user: Optional[str] = None, password: Optional[str] = None) -> None:
        self.expected_auth = (b"Basic " + base64.b64encode(f"{user}:{password}".encode())) if user else None
        self.refuse_with: Optional[int] = None
        self.connects = 0
        self.heads: list[bytes] = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="connect-proxy", daemon=True)
        self._thread.start()
        assert self._started.wait(30), "the test proxy did not start"

    def url(self, user: Optional[str] = None, password: Optional[str] = None) -> str:
        credentials = f"{user}:{password}@" if user else ""
        return f"http://{credentials}127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._started.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        self.heads.append(head)
        lines = head.split(b"\r\n")
        method, target, _ = lines[0].split(b" ", 2)
        fields = dict(line.split(b": ", 1) for line in lines[1:] if b": " in line)
        if method != b"CONNECT":
            writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        self.connects += 1
        if self.expected_auth is not None and fields.get(b"Proxy-Authorization") != self.expected_auth:
            writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"school\"\r\n"
                         b"Content-Length: 0\r\n\r\n")
            writer.close()
            return
        if self.refuse_with is not None:
            writer.write(f"HTTP/1.1 {self.refuse_with} Refused By The School\r\nContent-Length: 0\r\n\r\n".encode())
            writer.close()
            return
        host, _, port = target.decode().rpartition(":")
        try:
            if host not in ("127.0.0.1", "localhost"):
                raise OSError(f"the test proxy connects to loopback only, not {host}")
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        self._writers.add(up_writer)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            for writer in self._writers:
                writer.close()
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            if others:
                await asyncio.wait(others, timeout=10)
            for writer in self._writers:
                try:
                    await writer.wait_closed()
                except OSError:
                    pass
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()
