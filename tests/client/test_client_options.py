"""One frozen ClientOptions per client: the constructor's keywords, what pickles, what repr shows (issue 24)."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from pathlib import Path
from typing import Any, Callable

import pytest

import gatewaykit as gk
from gatewaykit.client.core.options import ClientOptions

from .conftest import user

KEYWORDS = list(inspect.signature(gk.Client).parameters)


def samples(emulator: Any, keys: Any, tmp_path: Path) -> dict[str, Callable[[], dict[str, Any]]]:
    """For each keyword, constructor arguments that give it a value other than its default."""
    here = {"api_key": keys.acme, "base_url": emulator.base_url, "display": False}
    return {
        "api_key": lambda: here,
        "base_url": lambda: here,
        "offline": lambda: {"offline": True, "display": False},
        "timeout": lambda: {**here, "timeout": 7.5},
        "max_retries": lambda: {**here, "max_retries": 5},
        "retry_policy": lambda: {**here, "retry_policy": gk.RetryPolicy(max_retries=1, backoff_base=0.01)},
        "validate": lambda: {**here, "validate": False},
        "strict": lambda: {**here, "strict": True},
        "ledger": lambda: {**here, "ledger": gk.Ledger(path=tmp_path / "ledger.sqlite")},
        "default_headers": lambda: {**here, "default_headers": {"X-Team": "blue"}},
        "http_transport": lambda: {**here, "http_transport": __import__("httpx").HTTPTransport()},
        "cassette": lambda: {**here, "cassette": str(tmp_path / "demo.jsonl")},
        "cassette_mode": lambda: {**here, "cassette": str(tmp_path / "demo.jsonl"), "cassette_mode": "record"},
        "display": lambda: {**here, "display": False},
        "confirm_over": lambda: {**here, "confirm_over": 0.5},
        "cache": lambda: {**here, "cache": str(tmp_path / "response-cache")},
        "max_response_bytes": lambda: {**here, "max_response_bytes": 1_000_000},
    }


def test_the_constructor_takes_exactly_the_options() -> None:
    """Client and AsyncClient accept the fields of ClientOptions, in order, with their defaults."""
    fields = [(item.name, item.default) for item in dataclasses.fields(ClientOptions)]
    for cls in (gk.Client, gk.AsyncClient):
        parameters = inspect.signature(cls).parameters.values()
        assert [(each.name, each.default) for each in parameters] == fields


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_every_keyword_survives_a_pickle_round_trip(keyword: str, emulator: Any, keys: Any, tmp_path: Path) -> None:
    """Each constructor keyword (read from the signature: a new one must get a sample) comes back from a pickle."""
    table = samples(emulator, keys, tmp_path)
    assert keyword in table, f"add a sample value for the new keyword {keyword}= to this test"
    arguments = table[keyword]()
    with gk.Client(**arguments) as original:
        assert getattr(original.options, keyword) != ClientOptions.__dataclass_fields__[keyword].default
        if keyword == "http_transport":  # the one keyword that cannot travel: pickling refuses, saying so
            with pytest.raises(TypeError, match="http_transport"):
                pickle.dumps(original)
            return
        copy = pickle.loads(pickle.dumps(original))
    with copy:
        if keyword == "ledger":  # a Ledger pickles as its path (plus its in-memory rows)
            assert copy.options.ledger.path == original.options.ledger.path
        else:
            assert getattr(copy.options, keyword) == getattr(original.options, keyword)
        assert (copy.base_url, copy.offline, copy._settings.api_key) == (
            original.base_url, original.offline, original._settings.api_key
        )  # fmt: skip


def test_a_pickled_strict_client_still_refuses_unknown_keywords(emulator: Any, keys: Any) -> None:
    """strict=True travels: the worker's copy refuses a misspelled parameter as the original does."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, strict=True, display=False) as original:
        copy = pickle.loads(pickle.dumps(original))
    with copy, pytest.raises(gk.BadRequestError, match="temprature"):
        copy.chat.completions.create(model="chat-mini", messages=user("hi"), temprature=0.2)  # type: ignore[call-overload]


def test_a_custom_display_is_left_for_the_worker(emulator: Any, keys: Any) -> None:
    """A display object does not travel: the copy chooses its own (the options say None; outside a kernel,
    the terminal display)."""
    from gatewaykit.client.terminal_display import TerminalDisplay

    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=gk.NullDisplay()) as original:
        copy = pickle.loads(pickle.dumps(original))
    with copy:
        assert copy.options.display is None and isinstance(copy.display, TerminalDisplay)


def test_repr_shows_the_options_that_differ_and_never_the_key(emulator: Any, keys: Any) -> None:
    """repr reads the options: base_url, then what was changed; the key and headers never appear."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, strict=True, max_retries=4,
                   default_headers={"X-Secret": "s3"}, display=False) as client:  # fmt: skip
        text = repr(client)
    assert text == f"Client(base_url={emulator.base_url!r}, max_retries=4, strict=True)"
    assert keys.acme not in text and "s3" not in text


def test_options_are_frozen(emulator: Any, keys: Any) -> None:
    """A client's options cannot be changed after it is built."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False) as client:
        with pytest.raises(dataclasses.FrozenInstanceError):
            client.options.strict = True  # type: ignore[misc]


def test_the_offline_warning_points_at_the_line_that_built_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Client() with no key warns at the caller's line, not inside the options wrapper."""
    monkeypatch.delenv("SVC_API_KEY", raising=False)
    monkeypatch.delenv("SVC_BASE_URL", raising=False)
    with pytest.warns(gk.OfflineGatewayWarning) as caught:
        client = gk.Client(display=False)
    client.close()
    assert caught[0].filename == __file__
