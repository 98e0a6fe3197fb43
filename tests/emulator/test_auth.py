"""Authentication, key scoping and the admin endpoint."""

from __future__ import annotations

import httpx
import pytest
from gateway_accounts import ACME_KEY, ADMIN_TOKEN, CHAT_ONLY_KEY, REVOKED_KEY, auth

CHAT = {"model": "chat-mini", "messages": [{"role": "user", "content": "hi"}]}


def _error(answer: httpx.Response) -> dict:
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "code", "param"}
    return body["error"]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer"}, {"Authorization": "Basic abc"},
                                     {"Authorization": "Bearer not-a-key"}, auth("sk-bf-unknown-key-123")])
def test_missing_malformed_or_unknown_key_is_401(emulator, headers):
    """A missing, malformed or unknown key gives 401 invalid_api_key."""
    answer = httpx.post(f"{emulator.base_url}/v1/chat/completions", json=CHAT, headers=headers)
    assert answer.status_code == 401
    error = _error(answer)
    assert error["code"] == "invalid_api_key" and error["type"] == "invalid_request_error"


def test_revoked_key_is_403(emulator):
    """A revoked key gives 403."""
    answer = httpx.get(f"{emulator.base_url}/v1/models", headers=auth(REVOKED_KEY))
    assert answer.status_code == 403
    assert "revoked" in _error(answer)["message"]


def test_models_are_scoped_to_the_key(emulator):
    """A key limited to chat-mini lists only chat-mini."""
    answer = httpx.get(f"{emulator.base_url}/v1/models", headers=auth(CHAT_ONLY_KEY))
    assert [m["id"] for m in answer.json()["data"]] == ["chat-mini"]


def test_model_the_key_may_not_use_is_403_model_not_found(emulator):
    """A catalog model outside the key's scope gives 403 model_not_found."""
    answer = httpx.post(f"{emulator.base_url}/v1/chat/completions", headers=auth(CHAT_ONLY_KEY),
                        json={**CHAT, "model": "chat-reasoner"})
    assert answer.status_code == 403
    assert _error(answer)["code"] == "model_not_found"


def test_unknown_model_is_400_model_not_found(emulator):
    """A model id not in the catalog gives 400 model_not_found with param model."""
    answer = httpx.post(f"{emulator.base_url}/v1/chat/completions", headers=auth(ACME_KEY),
                        json={**CHAT, "model": "openai/gpt-4o"})
    assert answer.status_code == 400
    error = _error(answer)
    assert (error["code"], error["type"], error["param"]) == ("model_not_found", "invalid_request_error", "model")


def test_admin_endpoint_lists_balances(emulator):
    """The admin token reads every account's balance and spend."""
    answer = httpx.get(f"{emulator.base_url}/_emulator/accounts", headers=auth(ADMIN_TOKEN))
    accounts = {a["id"]: a for a in answer.json()["accounts"]}
    assert set(accounts) == {"acme", "tight", "limited"}
    assert set(accounts["tight"]) == {"id", "balance_usd", "spent_usd"}


@pytest.mark.parametrize("headers", [{}, auth(ACME_KEY), auth("wrong")])
def test_admin_endpoint_needs_the_admin_token(emulator, headers):
    """Without the admin token the admin endpoint answers 401 in the envelope."""
    answer = httpx.get(f"{emulator.base_url}/_emulator/accounts", headers=headers)
    assert answer.status_code == 401
    _error(answer)


def test_offline_answers_are_marked(emulator):
    """Every answer, errors included, carries X-Gateway-Offline: 1."""
    for answer in (httpx.get(f"{emulator.base_url}/v1/models", headers=auth(ACME_KEY)),
                   httpx.get(f"{emulator.base_url}/v1/models")):
        assert answer.headers["x-gateway-offline"] == "1"
