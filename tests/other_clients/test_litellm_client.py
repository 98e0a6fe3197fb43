"""litellm's ``completion()`` (the SDK, as a client) against the offline gateway, in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.other_clients.models import City

SCENARIOS = Path(__file__).with_name("litellm_scenarios.py")


@pytest.fixture(scope="module")
def results(emulator: Any) -> dict[str, Any]:
    """What litellm got in each scenario (see litellm_scenarios.py)."""
    from gateway_accounts import ACME_KEY

    done = subprocess.run(
        [sys.executable, "-W", "ignore", str(SCENARIOS), emulator.base_url + "/v1", ACME_KEY],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_chat(results: dict[str, Any]) -> None:
    """``completion`` answers with usage."""
    assert results["chat"]["content"] and results["chat"]["total_tokens"] > 0


def test_streaming(results: dict[str, Any]) -> None:
    """``stream=True`` yields several chunks of text."""
    assert results["stream"]["chunks"] > 1 and results["stream"]["text"]


def test_tool_round_trip(results: dict[str, Any]) -> None:
    """The model calls get_weather with a city; after its result an answer comes."""
    tools = results["tools"]
    assert tools["name"] == "get_weather" and "city" in tools["arguments"] and tools["answer"]


def test_structured_output(results: dict[str, Any]) -> None:
    """``response_format=City`` gives JSON that validates as a City."""
    assert City.model_validate(results["structured"])
