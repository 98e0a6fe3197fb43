"""Running the gateway: uvicorn in a background thread (``start``) or in the foreground (CLI)."""

from __future__ import annotations

import atexit
import math
import os
import threading
import time
import warnings
from typing import Any

from gatewaykit.emulator.accounts_file import read_accounts_file
from gatewaykit.emulator.settings import Settings, load_accounts
from gatewaykit.serving.cors import browser_origins
from gatewaykit.serving.uvicorn_server import check_port, is_loopback, uvicorn_config

KEEP_ALIVE_SECONDS = Settings.keep_alive_seconds


def make_settings(accounts: Any = None, time_scale: float = 1.0, seed: int = 0, admin_token: str | None = None,
                  **more: Any) -> Settings:
    """Settings for ``start()`` and the CLI; a value out of range is a ValueError naming it."""
    if isinstance(accounts, (str, os.PathLike)):  # read here: a bad file is an AccountsFileError naming it
        accounts = read_accounts_file(os.fspath(accounts))
    if "cors_origins" in more:
        more["cors_origins"] = browser_origins(more["cors_origins"])
    settings = Settings(accounts=load_accounts(accounts), time_scale=time_scale, seed=seed,
                        admin_token=admin_token, **more)
    for name in ("time_scale", "retention_seconds", "slow_seconds", "prompt_cache_memory_seconds"):
        value = getattr(settings, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number of seconds >= 0; got {value!r}")
    for name in ("keep_alive_seconds", "request_head_seconds", "request_body_seconds", "script_match_seconds"):
        value = getattr(settings, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a finite number of seconds > 0; got {value!r}")
    speed = settings.tokens_per_second
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not math.isfinite(speed) or speed <= 0:
        raise ValueError(f"tokens_per_second must be a finite number > 0; got {speed!r}")
    if not isinstance(settings.fault_rate, (int, float)) or not 0.0 <= settings.fault_rate <= 1.0:
        raise ValueError(f"fault_rate must be a probability from 0 to 1; got {settings.fault_rate!r}")
    for name in ("max_body_bytes", "prompt_cache_blocks"):
        value = getattr(settings, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1; got {value!r}")
    return settings


class Emulator:
    """A running offline gateway. ``base_url`` has no ``/v1``; ``.stop()`` or use as a context manager."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, settings: Settings) -> None:
        import uvicorn

        from gatewaykit.emulator.app import create_app

        check_port(port)
        if not is_loopback(host):
            warnings.warn(f"The offline gateway is binding to {host}, which is not loopback: other machines "
                          "can reach it.", RuntimeWarning, stacklevel=3)
        self.settings = settings
        self.app = create_app(settings)
        gateway = self.app.state.gateway
        self.api_key: str | None = gateway.book.first_active_key
        self.admin_token = settings.admin_token

        class _Server(uvicorn.Server):
            def install_signal_handlers(self) -> None:  # the thread is not the main thread
                pass

        self._server = _Server(uvicorn_config(self.app, host, port))
        self._thread = threading.Thread(target=self._server.run, name="gatewaykit-offline-gateway", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the offline gateway could not start on {host}:{port}")
            time.sleep(0.01)
        sock = self._server.servers[0].sockets[0].getsockname()
        shown = f"[{sock[0]}]" if ":" in sock[0] else sock[0]
        self.host, self.port = sock[0], sock[1]
        self.base_url = f"http://{shown}:{self.port}"

    @property
    def gateway(self) -> Any:
        return self.app.state.gateway

    def stop(self) -> None:
        """Stop the server and join its thread (idempotent)."""
        if self._thread.is_alive():
            self._server.should_exit = True
            self._thread.join(timeout=10)

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"Emulator(base_url={self.base_url!r})"


def start(host: str = "127.0.0.1", port: int = 0, accounts: Any = None, time_scale: float = 1.0, seed: int = 0,
          admin_token: str | None = None, **more: Any) -> Emulator:
    """Start an offline gateway in a background thread (``port=0``: a free port)."""
    settings = make_settings(accounts, time_scale, seed, admin_token, **more)
    return Emulator(host, port, settings=settings)


_shared: Emulator | None = None
_shared_lock = threading.Lock()


def shared(*, seed: int = 0, time_scale: float | None = None, reproducible: bool = False) -> Emulator:
    """The process-wide gateway, started on first use (with these settings); stopped at interpreter exit.

    ``time_scale`` None: ``GATEWAYKIT_OFFLINE_TIME_SCALE``, else 1. ``reproducible``: see ``request_ids.py``
    (the client's grading switches ask for it).
    """
    global _shared
    with _shared_lock:
        if _shared is None or not _shared._thread.is_alive():
            scale = time_scale if time_scale is not None else float(os.environ.get("GATEWAYKIT_OFFLINE_TIME_SCALE", "1.0"))
            _shared = start(time_scale=scale, seed=seed, reproducible=reproducible)
            atexit.register(_shared.stop)
        return _shared
