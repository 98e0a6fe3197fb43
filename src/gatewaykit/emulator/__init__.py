"""The offline gateway: the whole gateway API served locally with synthetic models.

    from gatewaykit import emulator
    with emulator.start(time_scale=0) as gw:       # uvicorn in a background thread
        print(gw.base_url, gw.api_key)

or ``python -m gatewaykit.emulator --port 8000``. Importing this module is cheap:
starlette, uvicorn and the media stack load only when a gateway starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gatewaykit.emulator.settings import DEMO_KEY

if TYPE_CHECKING:  # pragma: no cover
    from gatewaykit.emulator.app import create_app
    from gatewaykit.emulator.server import Emulator, shared, start
    from gatewaykit.emulator.settings import Settings

__all__ = ["DEMO_KEY", "Emulator", "Settings", "create_app", "shared", "start"]

_LAZY = {"Emulator": "server", "start": "server", "shared": "server", "create_app": "app", "Settings": "settings"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"gatewaykit.emulator.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'gatewaykit.emulator' has no attribute {name!r}")
