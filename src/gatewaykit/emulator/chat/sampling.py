"""Sampled answers: how ``temperature`` > 0 makes the synthetic chat model vary, so flakiness can be studied.

At ``temperature`` 0 an answer depends on the request alone. Above 0 each answer is a reproducible draw
(the request's ``seed``, else the gateway's ``--seed`` and how many identical requests came before), and
a draw may *drift* off the prompt, with a chance that grows with temperature, is highest for the small model
(:data:`DRIFT_RATES`) and falls when the prompt states its form or its subject (:data:`STEADYING`).
The rule and its figures: ``docs/offline-gateway.md``.
"""

from __future__ import annotations

import hashlib
import random

from gatewaykit.emulator.chat.prompt_reading import read_prompt
from gatewaykit.emulator.chat.writing import subject_of

__all__ = ["DRIFT_RATES", "STEADYING", "drift_chance", "drifted_answer", "drifts"]

#: Drift chance per model at temperature 1 for a vague prompt (neither form nor subject stated).
DRIFT_RATES = {"chat-mini": 0.6, "chat-vision": 0.45, "chat-reasoner": 0.25}
_DEFAULT_RATE = 0.5
#: What stating the form, and stating the subject, each multiply the drift chance by.
STEADYING = 0.4
_MAX_CHANCE = 0.95

_DRIFTED = [
    "This sampled reply drifted off the prompt: at temperature {t} the offline model sometimes loses the thread, "
    "as a sampled real model can.",
    "Sampling at temperature {t} sent this synthetic reply somewhere else; it answers nothing that was asked.",
    "A drifted draw from the offline model (temperature {t}): it keeps to none of what the message asked for.",
]
_FILLER = [
    "Run it again and the next draw may stay on track.",
    "Lower the temperature and the answers stop drifting.",
    "An evaluation with repeats shows how often this happens.",
]


def drift_chance(model: str, prompt: str, temperature: float) -> float:
    """The chance that a draw of this model at this temperature drifts off this prompt (0 at temperature 0)."""
    if temperature <= 0:
        return 0.0
    shape = read_prompt(prompt)
    factor = 1.0
    if shape.sentences or shape.bullets:
        factor *= STEADYING
    if subject_of(prompt):
        factor *= STEADYING
    return min(_MAX_CHANCE, temperature * DRIFT_RATES.get(model, _DEFAULT_RATE) * factor)


def drifts(model: str, prompt: str, temperature: float, draw: int, index: int) -> bool:
    """Whether choice ``index`` of the draw ``draw`` drifts (its own uniform number, apart from the wording's RNG)."""
    chance = drift_chance(model, prompt, temperature)
    if chance <= 0:
        return False
    digest = hashlib.sha256(f"drift|{draw}|{index}|{model}|{prompt}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < chance


def drifted_answer(temperature: float, rng: random.Random) -> str:
    """A drifted reply: two fixed sentences that name nothing from the prompt."""
    shown = f"{temperature:g}"
    return rng.choice(_DRIFTED).format(t=shown) + " " + rng.choice(_FILLER)
