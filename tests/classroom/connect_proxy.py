"""A small CONNECT proxy on 127.0.0.1 for the classroom's proxy tests (imported by them), which speaks SOCKS5 too.

It counts CONNECTs, keeps what it was asked in the clear (the CONNECT heads), checks ``Proxy-Authorization``
when it has a user and password, answers ``refuse_with`` instead of tunnelling when that is set, and tunnels
bytes both ways (to loopback only: the tests' gateways are there; ``routes`` sends a ``host:port`` it is asked
for to another loopback port, as a real proxy resolves names). ``serve_tls`` adds a TLS front for the offline
gateway (which speaks plain http) with a certificate from :func:`make_certificate`'s own authority.

A connection whose first byte is 5 is SOCKS5 (RFC 1928): the user/password login (RFC 1929) is required when
the proxy has a user, each CONNECT's address is kept in ``socks_requests`` as (address type, address, port),
and ``socks_refuse_with`` is a reply code to refuse with. With ``tls`` (a certificate and its key) it is an
https proxy: the same, inside TLS.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import ssl
import threading
from pathlib import Path
from typing import Optional


class ConnectProxy:
    def __init__(self, user: Optional[str] = None, password: Optional[str] = None,
                 routes: Optional[dict[str, int]] = None, tls: Optional[tuple[Path, Path]] = None) -> None:
        self._tls: Optional[ssl.SSLContext] = None
        if tls is not None:  # an https proxy: its own listener speaks TLS (certificate and key)
            self._tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self._tls.load_cert_chain(*tls)
        self.routes = dict(routes or {})
        self.expected_auth = (b"Basic " + base64.b64encode(f"{user}:{password}".encode())) if user else None
        self.refuse_with: Optional[int] = None
        self.socks_refuse_with: Optional[int] = None
        self.socks_requests: list[tuple[int, str, int]] = []
        self.user, self.password = user, password
        self.silent = False  # read CONNECT, never answer
        self.connects = 0
        self.heads: list[bytes] = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._fronts: list[asyncio.AbstractServer] = []
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="connect-proxy", daemon=True)
        self._thread.start()
        assert self._started.wait(30), "the test proxy did not start"

    def url(self, user: Optional[str] = None, password: Optional[str] = None, scheme: str = "http",
            host: str = "127.0.0.1") -> str:
        credentials = f"{user}:{password}@" if user else ""
        return f"{scheme}://{credentials}{host}:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0,
                                                                          ssl=self._tls))
        self.port = self._server.sockets[0].getsockname()[1]
        self._started.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            first = await reader.readexactly(1)
            if first == b"\x05":
                await self._socks(reader, writer)
                return
            head = first + await reader.readuntil(b"\r\n\r\n")
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
        if self.silent:
            await reader.read()
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
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.routes.get(target.decode(),
                                                                                               int(port)))
        except OSError:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        self._writers.add(up_writer)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _socks(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connects += 1
        methods = await reader.readexactly((await reader.readexactly(1))[0])
        if self.user is not None:
            if 2 not in methods:
                writer.write(b"\x05\xff")
                writer.close()
                return
            writer.write(b"\x05\x02")
            version, length = await reader.readexactly(2)
            user = (await reader.readexactly(length)).decode()
            password = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
            if version != 1 or (user, password) != (self.user, self.password):
                writer.write(b"\x01\x01")
                writer.close()
                return
            writer.write(b"\x01\x00")
        elif 0 in methods:
            writer.write(b"\x05\x00")
        else:
            writer.write(b"\x05\xff")
            writer.close()
            return
        version, command, _, kind = await reader.readexactly(4)
        if kind == 1:
            host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
        elif kind == 4:
            host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
        else:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        port = int.from_bytes(await reader.readexactly(2), "big")
        self.socks_requests.append((kind, host, port))
        if self.silent:
            await reader.read()
            writer.close()
            return
        if version != 5 or command != 1 or self.socks_refuse_with is not None:
            writer.write(bytes([5, self.socks_refuse_with or 7, 0, 1, 0, 0, 0, 0, 0, 0]))
            writer.close()
            return
        try:
            if f"{host}:{port}" not in self.routes and host not in ("127.0.0.1", "::1", "localhost"):
                raise OSError(f"the test proxy connects to loopback only, not {host}")
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.routes.get(f"{host}:{port}", port))
        except OSError:
            writer.write(bytes([5, 4, 0, 1, 0, 0, 0, 0, 0, 0]))  # host unreachable
            writer.close()
            return
        self._writers.add(up_writer)
        writer.write(bytes([5, 0, 0, 3, 9]) + b"localhost" + port.to_bytes(2, "big"))  # bound: a name, as some say
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

    def serve_tls(self, certificate: tuple[Path, Path], to_port: int) -> int:
        """A TLS server on 127.0.0.1 (its port is returned) that passes the plain bytes on to ``to_port``."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*certificate)

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self._writers.add(writer)
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", to_port)
            except OSError:
                writer.close()
                return
            self._writers.add(up_writer)
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

        async def start() -> int:
            server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
            self._fronts.append(server)
            return server.sockets[0].getsockname()[1]  # type: ignore[no-any-return]

        return asyncio.run_coroutine_threadsafe(start(), self._loop).result(30)

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            for front in self._fronts:
                front.close()
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


def make_certificate(directory: Path, name: str = "localhost") -> tuple[Path, Path, Path]:
    """A certificate authority's PEM (for ``SSL_CERT_FILE``) and a certificate + key for ``name`` it signed."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gatewaykit test authority")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    authority, certificate, private = directory / "ca.pem", directory / "cert.pem", directory / "key.pem"
    authority.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    certificate.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return authority, certificate, private
