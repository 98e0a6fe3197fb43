"""The catalog's promises and the OpenAPI document."""

from __future__ import annotations

import httpx

from gatewaykit.emulator.media import BITRATES, SAMPLE_RATES
from gatewaykit.types import ModelList

IDS = ["chat-mini", "chat-reasoner", "chat-vision", "image-pixels", "image-tiers", "image-aspect", "image-preset",
       "image-gpt", "video-tiers", "video-range", "music-song"]


def models(http) -> dict:
    return {m["id"]: m for m in http.get("/v1/models").json()["data"]}


def test_catalog_ids_are_exactly_the_planned_ones(http):
    """The full-access key sees exactly the planned model ids, and the list parses as ModelList."""
    answer = http.get("/v1/models").json()
    assert answer["object"] == "list" and [m["id"] for m in answer["data"]] == IDS
    assert ModelList.model_validate(answer).ids == IDS


def test_output_modalities_name_the_kind(http):
    """Modalities: text, image, video, audio; image input wherever images are accepted."""
    catalog = models(http)
    assert catalog["music-song"]["output_modalities"] == ["audio"]
    assert "image" in catalog["chat-vision"]["input_modalities"] and "image" in catalog["video-tiers"]["input_modalities"]
    assert "image" not in catalog["video-range"]["input_modalities"]


def test_image_entries_carry_the_promised_fields(http):
    """Image entries: owned_by, parameters {type, values, default}, edit 1..14, prompt 8000..50000."""
    images = [m for m in models(http).values() if m["output_modalities"] == ["image"]]
    for model in images:
        assert model["owned_by"] and model["edit"]["supported"] is True
        assert all({"type", "values", "default"} <= set(p) for p in model["parameters"].values())
    assert {m["edit"]["max_reference_images"] for m in images} >= {1, 14}
    assert all(1 <= m["edit"]["max_reference_images"] <= 14 for m in images)
    lengths = [m["prompt_max_length"] for m in images]
    assert min(lengths) == 8000 and max(lengths) == 50000


def test_range_parameters_carry_min_and_max(http):
    """A range parameter has type range with min and max."""
    duration = models(http)["video-range"]["parameters"]["duration"]
    assert (duration["type"], duration["min"], duration["max"]) == ("range", 2, 12)
    assert models(http)["video-tiers"]["parameters"]["duration"]["values"] == [4, 6, 8]


def test_music_entry_matches_the_media_library(http):
    """music-song: prompt_max_length 300, sample rates and bitrates the renderer supports, mp3 only."""
    music = models(http)["music-song"]
    assert music["prompt_max_length"] == 300
    assert music["parameters"]["sample_rate"]["values"] == list(SAMPLE_RATES)
    assert music["parameters"]["bitrate"]["values"] == list(BITRATES)
    assert music["parameters"]["format"]["values"] == ["mp3"]


def test_openapi_document_describes_every_v1_path(emulator):
    """/openapi.json is OpenAPI 3.1, version 1.0.0, with every /v1 path and bearer security."""
    document = httpx.get(f"{emulator.base_url}/openapi.json").json()
    assert document["openapi"].startswith("3.1") and document["info"]["version"] == "1.0.0"
    assert set(document["paths"]) == {
        "/v1/models", "/v1/chat/completions", "/v1/images/generations", "/v1/images/edits", "/v1/videos",
        "/v1/videos/{video_id}", "/v1/videos/{video_id}/content", "/v1/audio/generations",
        "/v1/audio/generations/{audio_id}", "/v1/audio/generations/{audio_id}/content"}
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    edit = document["paths"]["/v1/images/edits"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in edit
