"""Students' clients work unchanged against a classroom: openai-python, and gatewaykit (chat, a stream, an
image, a video job and a music job with their content, the ledger); every request is in the report."""

from __future__ import annotations

from typing import Any

import openai
from classroom_fixtures import upstream_spent


def test_openai_python_chats_streams_and_draws_through_the_classroom(rooms: Any, upstream: Any) -> None:
    room = rooms(roster=["ana"])
    with openai.OpenAI(api_key=room.keys.key[0], base_url=room.base_url + "/v1", max_retries=0) as sdk:
        assert "chat-mini" in [m.id for m in sdk.models.list()]
        answer = sdk.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
        assert answer.choices[0].message.content
        chunks = list(sdk.chat.completions.create(model="chat-mini", stream=True,
                                                  messages=[{"role": "user", "content": "Count to five"}]))
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        image = sdk.images.generate(model="image-aspect", prompt="a red kite")
        assert image.data[0].b64_json
        try:
            sdk.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "x"}], max_tokens=0)
        except openai.BadRequestError as exc:
            assert "max_tokens" in str(exc)
        else:
            raise AssertionError("max_tokens=0 was accepted")
    row = room.report_rows()[0]
    assert row["requests"] == 3 and round(row["spent_usd"], 9) == round(upstream_spent(upstream), 9)


def test_the_gatewaykit_client_chats_streams_draws_and_runs_jobs_through_the_classroom(
        rooms: Any, upstream: Any, tmp_path: Any) -> None:
    import gatewaykit as gk

    room = rooms(roster=["ana"], cap=1.0)
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=room.keys.key[0], base_url=room.base_url, ledger=ledger, max_retries=0) as client:
        assert client.chat.ask("Say hi", model="chat-mini")
        streamed = client.chat.completions.create(model="chat-mini", stream=True,
                                                  messages=[{"role": "user", "content": "Count to five"}]).final()
        assert streamed.choices[0].message.content and streamed.usage.cost.total_cost > 0
        image = client.images.generate(model="image-gpt", prompt="a lighthouse", quality="low")
        assert image.images
        edited = client.images.edit(model="image-pixels", prompt="add a moon", image=[image.data[0].content],
                                    width=256, height=256)  # multipart, forwarded as it came
        assert edited.images and edited.usage.cost.total_cost == 256 * 256 * 15e-9
        video = client.videos.create(model="video-range", prompt="snow", duration=2).wait(timeout=120)
        assert video.status == "completed" and video.content()[4:8] == b"ftyp"
        song = client.music.create(model="music-song", prompt="calm piano",
                                   lyrics_prompt="[Verse]\nla la la").wait(timeout=120)
        assert song.status == "completed" and song.save(tmp_path / "song.mp3").stat().st_size > 0
    row = room.report_rows()[0]
    assert row["requests"] == 6 and row["held_usd"] == 0
    assert round(row["spent_usd"], 9) == round(upstream_spent(upstream), 9)
    assert round(ledger.total_cost, 6) == round(row["spent_usd"], 6)
