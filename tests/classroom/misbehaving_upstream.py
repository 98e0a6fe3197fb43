"""A raw-socket relay on 127.0.0.1 in front of the real offline gateway that misbehaves on chat answers, the way a
broken gateway or middlebox can (imported by the classroom's upstream tests).

Every request is passed to the gateway and its answer written back by hand; ``mode`` changes chat answers:
``twice`` (the answer written twice in one write), ``twice later`` (the copy in a write of its own, after the
answer), ``short`` (a ``Content-Length`` 10 bytes short), ``huge head`` (a 300 kB header), ``together``
(``together`` answers held until that many were asked for, then each written in halves, the second halves once
every first half was); ``padding`` grows every chat answer's JSON by that many bytes. It keeps every request head
(``heads``) and the chat answer bodies it relayed (``answers``, in order); ``copies`` counts copies written.
"""

from __future__ import annotations

import asyncio
import threading
import httpx
import orjson


class MisbehavingUpstream:
    def __init__(self, gateway_url: str, mode: str = "") -> None:
        self.gateway_url = gateway_url
        self.mode = mode
        self.padding = 0
        self.together = 0
        self.heads: list[bytes] = []
        self.answers: list[bytes] = []
        self.copies = 0
        self._waiting: list[asyncio.Future[None]] = []
        self._halves: list[asyncio.Future[None]] = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="misbehaving-upstream", daemon=True)
        self._thread.start()
        assert self._started.wait(30), "the relay did not start"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._client = httpx.AsyncClient(base_url=self.gateway_url, trust_env=False, timeout=60)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._started.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.heads.append(head)
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                fields = [tuple(line.split(": ", 1)) for line in lines[1:] if ": " in line]
                length = int(next((v for k, v in fields if k.lower() == "content-length"), "0"))
                body = await reader.readexactly(length) if length else b""
                passed = {k: v for k, v in fields if k.lower() in ("authorization", "content-type")}
                answer = await self._client.request(method, target, headers=passed, content=body)
                await self._answer(writer, target, answer)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, target: str, answer: httpx.Response) -> None:
        data, extra = answer.content, b""
        chat = target.endswith("/chat/completions")
        if chat and self.padding:
            data = orjson.dumps({**answer.json(), "padding": "x" * self.padding})
        if chat:
            self.answers.append(data)
        if chat and self.mode == "huge head":
            extra = b"x-padding: " + b"p" * 300_000 + b"\r\n"
        length = len(data) - 10 if chat and self.mode == "short" else len(data)
        head = (f"HTTP/1.1 {answer.status_code} OK\r\ncontent-type: {answer.headers.get('content-type', '')}\r\n"
                f"content-length: {length}\r\n").encode() + extra + b"\r\n"
        if chat and self.mode == "twice":
            self.copies += 1
            writer.write(head + data + head + data)
        elif chat and self.mode == "twice later":
            writer.write(head + data)
            await writer.drain()
            writer.write(head + data)
            self.copies += 1
        elif chat and self.mode == "together":
            await self._write_together(writer, head + data)
        else:
            writer.write(head + data)
        await writer.drain()

    async def _write_together(self, writer: asyncio.StreamWriter, whole: bytes) -> None:
        arrived = self._loop.create_future()
        self._waiting.append(arrived)
        if len(self._waiting) == self.together:
            for waiting in self._waiting:
                waiting.set_result(None)
        await arrived
        half = len(whole) // 2
        writer.write(whole[:half])
        await writer.drain()
        written = self._loop.create_future()
        self._halves.append(written)
        if len(self._halves) == self.together:
            for first in self._halves:
                first.set_result(None)
        await written
        writer.write(whole[half:])

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            for writer in self._writers:
                writer.close()
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            if others:
                await asyncio.wait(others, timeout=10)
            await self._server.wait_closed()
            await self._client.aclose()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()


def head_names(head: bytes) -> set[str]:
    """The header names (lower case) of a request head."""
    return {line.split(b":", 1)[0].decode().lower() for line in head.split(b"\r\n")[1:] if b":" in line}
