"""Checks of the command line's options: a bad value is one ``error:`` line and exit status 2, never a traceback.

The option types are for ``argparse`` (it prints the usage and ``error: argument --port: ...``);
:func:`start_error` words what went wrong while reading the accounts file or the settings.
"""

from __future__ import annotations

import argparse
import math
import socket

from gatewaykit.emulator.accounts_file import AccountsError, AccountsFileError


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (0: a free one)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a whole number from 0 to 65535 (0 picks a free one); got {text!r}")
    return port


def seconds(text: str) -> float:
    """A finite number of seconds >= 0 (``--time-scale``, ``--retention``, ``--slow-seconds``)."""
    value = _float(text)
    if value is None or not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"give a finite number >= 0; got {text!r}")
    return value


def probability(text: str) -> float:
    """A probability from 0 to 1 (``--fault-rate``)."""
    value = _float(text)
    if value is None or not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"give a probability from 0 to 1, like 0.1; got {text!r}")
    return value


def host_error(host: str) -> str | None:
    """Why the server cannot bind to ``host`` (not an address, no such name), or None."""
    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
        return f"--host {host}: not an IP address or a known host name ({reason}); try 127.0.0.1"
    return None


def start_error(exc: Exception, accounts_path: str | None) -> str:
    """One line saying what to change, for an error raised while building the settings and the app."""
    if isinstance(exc, AccountsFileError):
        return f"--accounts {exc.path} {exc.reason}"
    if isinstance(exc, AccountsError) and accounts_path is not None:
        return f"--accounts {accounts_path}: {exc}"
    return str(exc)


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
