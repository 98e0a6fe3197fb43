"""Money first, work after: images and chats hold their price before any drawing or writing is done,
and one account's heavy requests take at most its share of the request pool (issue 28, items 2 and 3).

Seen before: twelve 4K images from an account that could pay for one were all drawn, eleven refused
with 402 only afterwards; twenty-four heavy ``json_schema`` chats from a $0 account were all written,
then refused; a schema past the size limits cost seconds of writing before its 400. The facts checked
here do not depend on the machine's speed: which functions the gateway's threads ever ran, and how
many at once (:class:`worker_watch.WorkerWatch`).
"""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest

from gatewaykit.emulator import start
from gatewaykit.emulator.gateway import ACCOUNT_WORKERS
from worker_watch import WorkerWatch

POOR = "sk-bf-test-paid-first-poor-000001"
ONE_IMAGE = "sk-bf-test-paid-first-one-image-02"
RICH = "sk-bf-test-paid-first-rich-000003"
ONE_VIDEO = "sk-bf-test-paid-first-one-video-04"
VIDEO = {"model": "video-tiers", "resolution": "480p", "duration": 4, "generate_audio": False}  # 4 s x $0.05
VIDEO_PRICE = 0.2
DECODING = ("emulator/media/images.py", "inspect_image")
ADMIN = "paid-first-admin"
IMAGE = {"model": "image-tiers", "resolution": "1K", "n": 4}  # 4 x $0.04
IMAGE_PRICE = 0.16
DRAWING = ("emulator/routes/images.py", "_render")
WRITING = ("emulator/chat/engine.py", "complete")


def _accounts() -> dict[str, Any]:
    rate = {"requests": 100_000, "per_seconds": 60}
    return {"accounts": [
        {"id": "poor", "balance_usd": 0.0, "rate_limit": rate, "keys": [{"key": POOR, "status": "active"}]},
        {"id": "one-image", "balance_usd": IMAGE_PRICE, "rate_limit": rate,
         "keys": [{"key": ONE_IMAGE, "status": "active"}]},
        {"id": "rich", "balance_usd": 50.0, "rate_limit": rate, "keys": [{"key": RICH, "status": "active"}]},
        {"id": "one-video", "balance_usd": VIDEO_PRICE, "rate_limit": rate,
         "keys": [{"key": ONE_VIDEO, "status": "active"}]},
    ]}


@pytest.fixture
def gateway() -> Any:
    with start(accounts=_accounts(), time_scale=0, admin_token=ADMIN) as running:
        yield running


def _balance(gateway: Any, account: str) -> float:
    answer = httpx.get(f"{gateway.base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {ADMIN}"})
    return {entry["id"]: entry["balance_usd"] for entry in answer.json()["accounts"]}[account]


def _at_once(gateway: Any, key: str, path: str, bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    """POST every body at the same time (one thread each); the answers in order."""
    answers: list[Any] = [None] * len(bodies)
    start_together = threading.Barrier(len(bodies))

    def send(index: int) -> None:
        with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {key}"},
                          timeout=600) as http:
            start_together.wait(60)
            answers[index] = http.post(path, json=bodies[index])

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    return answers


def _images(count: int) -> list[dict[str, Any]]:
    return [{**IMAGE, "prompt": f"a lighthouse in a storm, take {number}"} for number in range(count)]


def _heavy_schema(rows: int = 1000, fields: int = 12) -> dict[str, Any]:
    row = {"type": "object", "properties": {f"field_{i}": {"type": "string"} for i in range(fields)},
           "required": [f"field_{i}" for i in range(fields)], "additionalProperties": False}
    return {"type": "object", "properties": {"rows": {"type": "array", "items": row, "minItems": rows}},
            "required": ["rows"], "additionalProperties": False}


def _schema_chat(schema: dict[str, Any], number: int = 0) -> dict[str, Any]:
    return {"model": "chat-mini", "messages": [{"role": "user", "content": f"list the rows ({number})"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "rows", "schema": schema}}}


def _statuses(answers: list[httpx.Response]) -> list[int]:
    return sorted(answer.status_code for answer in answers)


# Item 2: images.

def test_images_the_balance_cannot_cover_are_refused_before_any_is_drawn(gateway):
    """Eight image requests at once from an account that pays for one: one is drawn and charged, seven are
    402 without drawing anything (at most one thread ever drew for it)."""
    with WorkerWatch(DRAWING) as watch:
        answers = _at_once(gateway, ONE_IMAGE, "/v1/images/generations", _images(8))
    assert _statuses(answers) == [200] + [402] * 7
    assert watch.peak["_render"] == 1, f"{watch.peak['_render']} requests were drawn at once"
    assert _balance(gateway, "one-image") == pytest.approx(0.0, abs=1e-9)
    refused = next(answer for answer in answers if answer.status_code == 402)
    assert refused.json()["error"]["code"] == "insufficient_quota"


def test_one_accounts_images_are_drawn_at_most_its_share_at_a_time(gateway):
    """Six image requests at once from an account that pays for all: all are drawn and charged, never more
    than ACCOUNT_WORKERS at once (the rest of the pool stays free for other accounts)."""
    before = _balance(gateway, "rich")
    with WorkerWatch(DRAWING) as watch:
        answers = _at_once(gateway, RICH, "/v1/images/generations", _images(6))
    assert _statuses(answers) == [200] * 6
    assert 1 <= watch.peak["_render"] <= ACCOUNT_WORKERS == 2
    assert _balance(gateway, "rich") == pytest.approx(before - 6 * IMAGE_PRICE, abs=1e-9)


def test_an_image_stream_that_breaks_off_gives_its_hold_back(gateway):
    """A streamed image whose connection drops before the picture is not charged, and its held price is
    free again: the same account can pay for the next request."""
    with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {ONE_IMAGE}"},
                      timeout=600) as http:
        with http.stream("POST", "/v1/images/generations", json={**_images(1)[0], "stream": True},
                         headers={"X-Emulator-Fault": "stream-drop"}) as dropped:
            with pytest.raises(httpx.HTTPError):
                dropped.read()
        assert _balance(gateway, "one-image") == pytest.approx(IMAGE_PRICE)
        assert http.post("/v1/images/generations", json=_images(1)[0]).status_code == 200
    assert _balance(gateway, "one-image") == pytest.approx(0.0, abs=1e-9)


# Videos: an image-to-video request holds its price before its input_reference is decoded.

def _large_reference() -> str:
    """A 4000 x 4000 PNG (16 megapixels to decode, a few kilobytes to send) as a data: URI."""
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4000, 4000), "teal").save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def test_videos_the_balance_cannot_cover_are_refused_before_their_reference_is_decoded(gateway):
    """A $0 account's image-to-video request is 402 with nothing decoded; six at once from an account that
    pays for one: one job, five 402 that decoded nothing (it used to decode every reference, two at a time,
    and refuse the five only when their jobs were created)."""
    reference = _large_reference()
    bodies = [{**VIDEO, "prompt": f"a lighthouse, take {number}", "input_reference": reference}
              for number in range(6)]
    with WorkerWatch(DECODING) as watch:
        poor = _at_once(gateway, POOR, "/v1/videos", bodies[:1])
    assert _statuses(poor) == [402]
    assert watch.samples > 0 and watch.peak["inspect_image"] == 0
    with WorkerWatch(DECODING) as watch:
        answers = _at_once(gateway, ONE_VIDEO, "/v1/videos", bodies)
    assert _statuses(answers) == [200] + [402] * 5
    assert watch.peak["inspect_image"] == 1, f"{watch.peak['inspect_image']} references were decoded at once"
    refused = next(answer for answer in answers if answer.status_code == 402)
    assert refused.json()["error"]["code"] == "insufficient_quota"


def test_a_video_whose_reference_is_refused_gives_its_hold_back(gateway):
    """The price held for an image-to-video request whose input_reference is not an image is free again:
    the 400 names the field, and the same account then pays for a video."""
    with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {ONE_VIDEO}"},
                      timeout=600) as http:
        broken = http.post("/v1/videos", json={**VIDEO, "prompt": "x", "input_reference": "data:image/png;base64,AAAA"})
        assert broken.status_code == 400 and broken.json()["error"]["param"] == "input_reference"
        auto = http.post("/v1/videos", json={**VIDEO, "prompt": "x", "aspect_ratio": "auto"})
        assert auto.status_code == 400 and auto.json()["error"]["param"] == "aspect_ratio"
        assert _balance(gateway, "one-video") == pytest.approx(VIDEO_PRICE)
        assert http.post("/v1/videos", json={**VIDEO, "prompt": "x"}).status_code == 200


# Item 3: chats.

def test_chats_a_zero_balance_cannot_pay_for_are_refused_before_any_answer_is_written(gateway):
    """Six heavy json_schema chats at once from a $0 account: all 402, and no thread ever wrote an answer."""
    bodies = [_schema_chat(_heavy_schema(), number) for number in range(6)]
    with WorkerWatch(WRITING) as watch:
        answers = _at_once(gateway, POOR, "/v1/chat/completions", bodies)
    assert _statuses(answers) == [402] * 6
    assert watch.samples > 0 and watch.peak["complete"] == 0


def test_a_schema_past_the_size_limits_is_refused_before_any_answer_is_written(gateway):
    """1,000 x 1,000 patterned strings (past the 20,000-value limit): the 400 names the limit, and no
    thread started writing (it used to take more than a second of writing first)."""
    email = {"type": "string", "pattern": "^[a-z]{5,20}@[a-z]{3,9}\\.com$"}
    schema = {"type": "object", "required": ["x"], "properties": {"x": {
        "type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": email}}}}
    with WorkerWatch(WRITING) as watch:
        answer = httpx.post(f"{gateway.base_url}/v1/chat/completions", json=_schema_chat(schema),
                            headers={"Authorization": f"Bearer {RICH}"}, timeout=600)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["param"] == "response_format.json_schema.schema"
    assert "more than 20,000 values" in error["message"]
    assert watch.peak["complete"] == 0


def test_one_accounts_chats_are_written_at_most_its_share_at_a_time(gateway):
    """Six heavy json_schema chats at once from a funded account (each writes past the model's output limit):
    all answered, never more than ACCOUNT_WORKERS written at once."""
    bodies = [_schema_chat(_heavy_schema(), number) for number in range(6)]
    with WorkerWatch(WRITING) as watch:
        answers = _at_once(gateway, RICH, "/v1/chat/completions", bodies)
    assert _statuses(answers) == [200] * 6
    assert 1 <= watch.peak["complete"] <= ACCOUNT_WORKERS == 2
    choice = answers[0].json()["choices"][0]
    assert choice["finish_reason"] == "length" and len(choice["message"]["content"]) > 10_000  # cut at the model's limit


def test_a_chat_is_still_charged_exactly_what_its_usage_reports(gateway):
    """Holding first changes nothing in the bill: a plain chat and a streamed one are charged their cost."""
    before = _balance(gateway, "rich")
    with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {RICH}"}, timeout=600) as http:
        plain = http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": [
            {"role": "user", "content": "hello"}]}).json()
        with http.stream("POST", "/v1/chat/completions", json={
                "model": "chat-mini", "stream": True, "stream_options": {"include_usage": True},
                "messages": [{"role": "user", "content": "hello again"}]}) as stream:
            events = [json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: {")]
    streamed = next(event["usage"] for event in events if event.get("usage"))
    spent = plain["usage"]["cost"]["total_cost"] + streamed["cost"]["total_cost"]
    assert _balance(gateway, "rich") == pytest.approx(before - spent, abs=1e-9)


def test_a_scripted_answer_is_held_at_its_own_size_not_the_schemas():
    """With --script answers loaded, a json_schema chat may be answered by the script (a few tokens): the
    up-front hold does not assume the schema's 12,000 values, so a balance of $0.001 still pays."""
    accounts = {"accounts": [{"id": "small", "balance_usd": 0.001, "keys": [{"key": POOR, "status": "active"}]}]}
    script = {"answers": [{"match": "list the rows", "content": "{\"rows\": []}"}]}
    with start(accounts=accounts, time_scale=0, script=script) as running:
        answer = httpx.post(f"{running.base_url}/v1/chat/completions", json=_schema_chat(_heavy_schema()),
                            headers={"Authorization": f"Bearer {POOR}"}, timeout=600)
    assert answer.status_code == 200, answer.text
    assert answer.json()["choices"][0]["message"]["content"] == "{\"rows\": []}"
