"""A student's client quotes a chat without max_tokens at what the class sets on it (its default_max_tokens)."""

from __future__ import annotations

from typing import Any

import pytest

import gatewaykit as gk


def test_a_chat_without_max_tokens_is_quoted_at_the_class_default(upstream: Any, rooms: Any) -> None:
    """The classroom's model list states default_max_tokens; the quote assumes it, says so, and asks."""
    room = rooms(roster=["ana"], cap=1.0, default_max_tokens=500)
    with gk.Client(api_key=room.keys.key[0], base_url=room.base_url, ledger=gk.Ledger(path=None), display=False,
                   confirm_over=0.001) as client:
        with pytest.raises(gk.ConfirmationRequiredError) as raised:
            client.chat.completions.create(model="chat-reasoner", messages=[{"role": "user", "content": "hi"}])
    assert raised.value.quote.assumptions["max_tokens"] == "unset, assumed 500 (the server's default max_tokens)"
