"""Clients nobody here wrote, pointed at the offline gateway (issue 18's matrix, as tests).

Each module drives one client library through chat, streaming, a tool round trip and
structured output. The libraries come from the ``test`` extra.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from gateway_accounts import ACME_KEY

# litellm must never fetch its model-cost map or send telemetry (set before it is imported).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

MODEL = "chat-mini"
WEATHER_PROMPT = "What is the weather in Paris?"


@pytest.fixture
def v1(emulator: Any) -> str:
    """The gateway's OpenAI-style base URL (``.../v1``)."""
    return emulator.base_url + "/v1"


@pytest.fixture
def key() -> str:
    return ACME_KEY


def get_weather(city: str) -> str:
    """Get the current weather in a city."""
    return f"Sunny and 21 C in {city}"
