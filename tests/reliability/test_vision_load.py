"""Vision images cannot block other accounts: funds are checked first, parts and pixels are capped, and one
account's decoding takes at most a few of the request pool's threads."""

from __future__ import annotations

import asyncio
import base64
import io
import threading
from typing import Any, Iterator

import httpx
import pytest
from reliability_gateways import one_account

import gatewaykit as gk

KEY = "sk-bf-vision-load-00000000000000001"
BROKE_KEY = "sk-bf-vision-broke-0000000000000002"
HEADERS = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    accounts = one_account("vision", KEY)
    accounts["accounts"].append({**one_account("broke", BROKE_KEY, balance=0.0)["accounts"][0]})
    with gk.emulator.start(accounts=accounts, time_scale=0) as running:
        yield running


def _png(width: int, height: int, mode: str = "RGB") -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new(mode, (width, height)).save(buffer, format="PNG")
    return buffer.getvalue()


def _chat(gateway: Any, images: list[bytes], key: str = KEY) -> httpx.Response:
    parts = [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(data).decode()}}
             for data in images]
    return httpx.post(f"{gateway.base_url}/v1/chat/completions", headers={"Authorization": f"Bearer {key}"},
                      timeout=600, json={"model": "chat-vision", "messages": [
                          {"role": "user", "content": [{"type": "text", "text": "describe"}, *parts]}]})


def test_a_key_that_cannot_pay_is_402_before_any_image_is_decoded(gateway):
    """A $0 key's vision chat is 402 even when its image is garbage: the balance is checked before decoding."""
    answer = _chat(gateway, [b"not an image at all"], key=BROKE_KEY)
    assert answer.status_code == 402 and answer.json()["error"]["code"] == "insufficient_quota"


def test_more_image_parts_than_a_chat_may_carry_is_400_naming_the_limit(gateway):
    """Seventeen image parts are a 400 on messages saying at most 16."""
    answer = _chat(gateway, [_png(8, 8)] * 17)
    error = answer.json()["error"]
    assert answer.status_code == 400 and error["param"] == "messages" and "at most 16" in error["message"]


def test_more_image_pixels_than_a_chat_may_send_is_400_naming_the_limit(gateway):
    """Five 40-megapixel images (200 MP) are a 400 naming the 160,000,000-pixel limit, before decoding."""
    answer = _chat(gateway, [_png(8000, 5000, mode="1")] * 5)
    error = answer.json()["error"]
    assert answer.status_code == 400 and "160,000,000" in error["message"] and "200,000,000" in error["message"]


def test_one_accounts_decoding_takes_at_most_two_pool_threads(gateway):
    """Ten decodes from one account run two at a time; another account's decode starts while they wait."""
    from gatewaykit.emulator.gateway import ACCOUNT_DECODE_WORKERS

    state = gateway.gateway
    running: dict[str, int] = {"hog": 0, "peak": 0}
    lock = threading.Lock()
    release = threading.Event()

    def hog_decode() -> None:
        with lock:
            running["hog"] += 1
            running["peak"] = max(running["peak"], running["hog"])
        release.wait(120)
        with lock:
            running["hog"] -= 1

    async def scenario() -> None:
        hogs = [asyncio.ensure_future(state.run_decoding("hog", hog_decode)) for _ in range(10)]
        other = await asyncio.wait_for(state.run_decoding("other", lambda: "done"), 120)
        assert other == "done"
        deadline = asyncio.get_running_loop().time() + 120
        while running["hog"] < ACCOUNT_DECODE_WORKERS:  # the hog's first decodes may still be starting
            assert asyncio.get_running_loop().time() < deadline, f"waited 120 s for 2 hog decodes; {running}"
            await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(*hogs)
        assert running["peak"] == ACCOUNT_DECODE_WORKERS == 2

    try:
        asyncio.run(scenario())
    finally:
        release.set()
