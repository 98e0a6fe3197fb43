"""A pickled Client reconnects to the same gateway with the same settings (issue 14, scale-out)."""

from __future__ import annotations

import asyncio
import pickle
from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk

from .conftest import user


def test_pickled_client_talks_to_the_same_gateway(emulator: Any, keys: Any) -> None:
    """Unpickled, the client has the same base URL, key, retries and validation, and its calls work."""
    original = gk.Client(api_key=keys.acme, base_url=emulator.base_url, max_retries=5, validate=False)
    copy = pickle.loads(pickle.dumps(original))
    try:
        assert (copy.base_url, copy.max_retries, copy.options.validate) == (emulator.base_url, 5, False)
        assert copy.chat.completions.create(model="chat-mini", messages=user("hi")).choices
    finally:
        original.close()
        copy.close()


def test_pickled_client_keeps_its_ledger(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """A client with a SQLite ledger unpickles recording into the same database."""
    path = tmp_path / "shared.sqlite"
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=path)) as original:
        copy = pickle.loads(pickle.dumps(original))
    with copy:
        copy.chat.completions.create(model="chat-mini", messages=user("hi"))
    assert copy.ledger.path == path and len(gk.Ledger(path=path)) == 1


def test_pickled_offline_client_reaches_the_same_offline_gateway(emulator: Any, keys: Any) -> None:
    """An offline client unpickles as offline, on the same gateway (it does not start another one)."""
    with gk.Client(offline=True, display=False) as original:
        copy = pickle.loads(pickle.dumps(original))
    with copy:
        assert (copy.offline, copy.base_url) == (True, original.base_url)
        assert copy.models.list().data


def test_async_client_pickles(emulator: Any, keys: Any) -> None:
    """An AsyncClient unpickles as an AsyncClient whose calls are awaitable."""
    copy = pickle.loads(pickle.dumps(gk.AsyncClient(api_key=keys.acme, base_url=emulator.base_url)))

    async def ask() -> str:
        async with copy:
            answer = await copy.chat.completions.create(model="chat-mini", messages=user("hi"))
            return answer.object

    assert isinstance(copy, gk.AsyncClient) and asyncio.run(ask()) == "chat.completion"


def test_client_with_a_custom_transport_says_it_cannot_pickle(emulator: Any, keys: Any) -> None:
    """http_transport= cannot travel: pickling says so instead of silently dropping it."""
    import httpx

    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, http_transport=httpx.HTTPTransport()) as client:
        with pytest.raises(TypeError, match="http_transport"):
            pickle.dumps(client)
