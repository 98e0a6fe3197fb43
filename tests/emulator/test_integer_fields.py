"""Integer fields of image, video and music requests: one rule for every field.

A JSON number with a zero fractional part (``6.0``) is an integer, as JSON Schema's
``"type": "integer"`` says: it is accepted and used as the integer (``seconds`` is
``"6"``). Anything else (``6.5``, ``true``, ``"6"``) is a 400 naming the field.
"""

from __future__ import annotations


import pytest
from job_polling import finished_job

LYRICS = "[Verse]\nWalking down the road\n[Chorus]\nSing it loud tonight"
IMAGE = {"model": "image-pixels", "prompt": "a red kite", "width": 256, "height": 256, "seed": 11}
VIDEO_TIERS = {"model": "video-tiers", "prompt": "waves", "resolution": "480p"}
VIDEO_RANGE = {"model": "video-range", "prompt": "waves", "generate_audio": False}
MUSIC = {"model": "music-song", "prompt": "folk", "lyrics_prompt": LYRICS}

#: (endpoint, base body, field, an integral value of the field) for every integer field.
INTEGER_FIELDS = [
    ("/v1/images/generations", IMAGE, "n", 2),
    ("/v1/images/generations", IMAGE, "width", 512),
    ("/v1/images/generations", IMAGE, "height", 320),
    ("/v1/images/generations", IMAGE, "seed", 7),
    ("/v1/videos", VIDEO_TIERS, "duration", 6),
    ("/v1/videos", VIDEO_TIERS, "seed", 5),
    ("/v1/videos", VIDEO_RANGE, "duration", 3),
    ("/v1/audio/generations", MUSIC, "sample_rate", 44100),
    ("/v1/audio/generations", MUSIC, "bitrate", 128000),
    ("/v1/audio/generations", MUSIC, "seed", 3),
]
_IDS = [f"{body['model']}-{name}" for _, body, name, _ in INTEGER_FIELDS]



def _outcome(http, path: str, body: dict) -> dict:
    """What a request led to: the image answer, or the finished job."""
    answer = http.post(path, json=body)
    assert answer.status_code == 200, answer.text
    if path == "/v1/images/generations":
        return answer.json()
    kind = "videos" if path == "/v1/videos" else "audio/generations"
    return finished_job(http, f"/v1/{kind}/{answer.json()['id']}")


def _comparable(outcome: dict) -> dict:
    """The parts of an answer that depend on the request's fields (not on ids or times)."""
    if "data" in outcome:
        return {"size": outcome["size"], "images": [item["b64_json"] for item in outcome["data"]]}
    return {key: outcome.get(key) for key in ("status", "seconds", "size", "error")}


@pytest.mark.parametrize("path,body,name,value", INTEGER_FIELDS, ids=_IDS)
def test_an_integral_float_means_the_integer(http, path, body, name, value):
    """`6.0` gives exactly what `6` gives (same status, seconds, size, pixels), never an internal error."""
    as_int = _comparable(_outcome(http, path, {**body, name: value}))
    as_float = _comparable(_outcome(http, path, {**body, name: float(value)}))
    assert as_int.get("status", "completed") == "completed"
    assert as_float == as_int


def test_video_seconds_of_an_integral_float_duration_is_the_integer(http):
    """`duration: 6.0` is reported as `seconds: "6"` from the moment the job is created."""
    created = http.post("/v1/videos", json={**VIDEO_TIERS, "duration": 6.0}).json()
    assert created["seconds"] == "6"
    assert finished_job(http, f"/v1/videos/{created['id']}")["seconds"] == "6"


@pytest.mark.parametrize("wrong", [0.5, True, False, "6", [6], {"value": 6}], ids=repr)
@pytest.mark.parametrize("path,body,name,value", INTEGER_FIELDS, ids=_IDS)
def test_a_value_that_is_not_an_integer_is_400_naming_the_field(http, path, body, name, value, wrong):
    """A fractional number, a boolean, a string, a list or an object is a 400 whose param is the field."""
    bad = value + wrong if wrong == 0.5 else wrong
    answer = http.post(path, json={**body, name: bad})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["param"] == name


@pytest.mark.parametrize("text,status,seconds", [("6", 200, "6"), ("6.0", 200, "6"), ("6.5", 400, None),
                                                 ("six", 400, None), ("nan", 400, None)])
def test_multipart_integer_fields_follow_the_same_rule(http, text, status, seconds):
    """A multipart video job (as the openai SDK sends it) reads `duration` by the same rule as JSON."""
    fields = {name: (None, str(value)) for name, value in {**VIDEO_TIERS, "duration": text}.items()}
    answer = http.post("/v1/videos", files=fields)  # text parts without a filename: form fields
    assert answer.request.headers["content-type"].startswith("multipart/form-data")
    assert answer.status_code == status, answer.text
    if status == 200:
        assert answer.json()["seconds"] == seconds
        finished_job(http, f"/v1/videos/{answer.json()['id']}")  # charged before the next test reads a balance
    else:
        assert answer.json()["error"]["param"] == "duration"
