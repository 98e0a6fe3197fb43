"""The chat fields are written once (ChatFields); create, ask and session follow it (issue 24)."""

from __future__ import annotations

import inspect
import json
from typing import Any, Callable

import httpx
import pytest

import gatewaykit as gk
from gatewaykit.client.api_request import RequestOptions
from gatewaykit.client.resources.chat import AsyncChat, AsyncCompletions, Chat, ChatParams, Completions
from gatewaykit.client.resources.chat_fields import CHAT_FIELDS, ChatFields

FOLLOWERS: list[Callable[..., Any]] = [
    Completions.create, AsyncCompletions.create, Chat.ask, AsyncChat.ask, Chat.session, AsyncChat.session,
]  # fmt: skip


@pytest.mark.parametrize("method", FOLLOWERS, ids=lambda method: method.__qualname__)
def test_signature_offers_every_chat_field(method: Callable[..., Any]) -> None:
    """Each of create, ask and session (sync and async) shows every chat field as a keyword."""
    keywords = {
        name for name, parameter in inspect.signature(method).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }  # fmt: skip
    assert set(CHAT_FIELDS) <= keywords


def test_chat_params_is_the_fields_and_the_request_options() -> None:
    """ChatParams (what type checkers read) is exactly ChatFields plus RequestOptions."""
    assert set(ChatParams.__annotations__) == set(ChatFields.__annotations__) | set(RequestOptions.__annotations__)


def test_ask_is_typed_with_the_chat_params() -> None:
    """ask's ** parameter is typed as Unpack[ChatParams] (type checkers see the same fields)."""
    for method in (Chat.ask, AsyncChat.ask):
        assert method.__annotations__["fields"] == "Unpack[ChatParams]"


def test_every_chat_field_reaches_the_body() -> None:
    """A value for each field (stream_options aside: sent only with stream=True) is sent under its own name."""
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(500, json={"error": {"message": "enough", "type": "server_error"}})

    values = {name: f"value-{name}" for name in CHAT_FIELDS}
    values["tools"] = [{"type": "function", "function": {"name": "f"}}]  # type: ignore[assignment]
    with gk.Client(api_key="k", base_url="http://127.0.0.1:9", validate=False, max_retries=0, display=False,
                   http_transport=httpx.MockTransport(answer), ledger=_NoLedger()) as client:  # fmt: skip
        with pytest.raises(gk.ServerError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], **values)
    expected = set(CHAT_FIELDS) - {"stream_options"} | {"model", "messages"}
    assert set(sent[0]) == expected


class _NoLedger:
    def record(self, record: Any) -> None:
        pass
