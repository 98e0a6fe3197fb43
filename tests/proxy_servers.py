"""Shared by the proxy tests of the client and the classroom: an environment without any proxy variable,
and pproxy (PyPI, a proxy nobody here wrote) running on 127.0.0.1 with a login."""

from __future__ import annotations

import socket
import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator

import pytest

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD")


def without_proxy_variables(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """``monkeypatch`` after removing every proxy variable, in either case (the tests set their own)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


def free_port() -> int:
    """A port nothing listens on at the moment (for a server that does not report the one it picked, or for a
    proxy URL where any call fails)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running_pproxy(scheme: str, user: str, password: str) -> Iterator[int]:
    """pproxy listening as a ``scheme`` proxy (``http``, ``socks5``) that asks every connection for this login
    (``--auth 0``: by default it lets a client's IP in for 30 days once it logged in); its port."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "pproxy", "-l", f"{scheme}://127.0.0.1:{port}#{user}:{password}", "--auth", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert server.stdout is not None
        first = server.stdout.readline()  # "Serving on ... 127.0.0.1:<port> by <scheme>": it listens
        assert f"127.0.0.1:{port}".encode() in first, first
        yield port
    finally:
        server.terminate()
        server.wait(30)
        server.stdout.close()  # type: ignore[union-attr]
