"""A conversation's cost when the server reports none: unknown (None), never a certain 0.0."""

from __future__ import annotations

import gatewaykit as gk

from tests.client.foreign_shapes.foreign_server import Answer, foreign_client, recorded

CHAT = "POST /v1/chat/completions"


def test_session_without_reported_cost_has_unknown_cost() -> None:
    """Two turns on answers without ``usage.cost``: ``chat.cost is None``; the ledger rows are "not reported"."""
    ledger = gk.Ledger()
    with foreign_client({CHAT: Answer(recorded("litellm/chat.json"))}, ledger) as client:
        chat = client.chat.session(model="mock-chat")
        chat("hi")
        chat("again")
    assert chat.requests == 2 and chat.cost is None
    assert chat.usage.cost is None and chat.usage.total_tokens == 60
    assert "cost not reported" in repr(chat)
    assert [row["cost_source"] for row in ledger.rows] == ["not reported", "not reported"]


def test_session_with_reported_cost_sums_it() -> None:
    """Answers with ``usage.cost`` as a number: the session's cost is their sum."""
    body = recorded("litellm/chat.json").replace(b'"total_tokens":30}', b'"total_tokens":30,"cost":0.25}')
    with foreign_client({CHAT: Answer(body)}) as client:
        chat = client.chat.session(model="mock-chat")
        chat("hi")
        chat("again")
    assert chat.cost == 0.5


def test_session_with_no_request_costs_nothing() -> None:
    """A session that sent nothing has cost 0.0 (certain: nothing was sent)."""
    with foreign_client({}) as client:
        assert client.chat.session(model="mock-chat").cost == 0.0
