"""A misspelled model id is answered with the closest id of the catalog: "did you mean 'image-pixels'?"."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import gatewaykit as gk

from .conftest import FAST_RETRIES, RecordingLedger


def test_offline_gateway_suggests_the_closest_model(http: httpx.Client) -> None:
    """The offline gateway's 400 for 'image-pixel' says: did you mean 'image-pixels'?"""
    answer = http.post("/v1/images/generations", json={"model": "image-pixel", "prompt": "a kite"})
    assert answer.status_code == 400
    assert "Did you mean 'image-pixels'?" in answer.json()["error"]["message"]


def test_offline_gateway_suggests_nothing_for_a_far_name(http: httpx.Client) -> None:
    """A name like no model gets no suggestion."""
    answer = http.post("/v1/images/generations", json={"model": "zzz", "prompt": "a kite"})
    assert "did you mean" not in answer.json()["error"]["message"].lower()


def test_client_suggests_once_on_the_offline_gateway(client: gk.Client) -> None:
    """Through the client, the offline gateway's suggestion is kept and not repeated."""
    client.models.list()
    with pytest.raises(gk.ModelNotFoundError) as caught:
        client.images.generate(model="image-pixel", prompt="a kite")
    assert str(caught.value).lower().count("did you mean") == 1 and "'image-pixels'" in str(caught.value)


def test_client_adds_the_suggestion_from_its_catalog(emulator: Any, keys: Any, sink: RecordingLedger) -> None:
    """A gateway whose 400 names no alternative: the client adds one from the catalog it holds."""
    catalog = httpx.get(emulator.base_url + "/v1/models", headers={"Authorization": f"Bearer {keys.acme}"}).json()

    def gateway(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json=catalog)
        return httpx.Response(400, json={"error": {"message": "The model 'image-pixel' does not exist.",
                                                   "type": "invalid_request_error", "code": "model_not_found",
                                                   "param": "model"}})

    with gk.Client(api_key=keys.acme, base_url="http://gw.test", http_transport=httpx.MockTransport(gateway),
                   ledger=sink, retry_policy=FAST_RETRIES) as client:
        client.models.list()
        with pytest.raises(gk.ModelNotFoundError, match=r"Did you mean 'image-pixels'\?"):
            client.images.generate(model="image-pixel", prompt="a kite")


def test_models_get_suggests_the_closest_id(client: gk.Client) -> None:
    """client.models.get('chat-mni') names chat-mini."""
    with pytest.raises(gk.ModelNotFoundError, match=r"Did you mean 'chat-mini'\?"):
        client.models.get("chat-mni")
