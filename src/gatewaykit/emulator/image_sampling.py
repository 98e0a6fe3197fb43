"""``temperature`` on the offline image models (an offline extension: the spec's image models have none).

Omitted, nothing changes: no ``seed`` means a random seed (the spec's rule). At
0 a request without a seed is drawn with a seed taken from the request itself,
so the same request draws the same pictures. Above 0 a request without a seed
gets the gateway's draw (its ``--seed`` and how many identical requests came
before: :meth:`.RequestIds.sample_seed`), and each picture may *drift*: with
chance ``min(0.95, temperature × DRIFT_RATE)`` it is drawn for no prompt at all
(a palette from its seed, no colour words, no subject): a scorer checking the
prompt's colour fails on it.
"""

from __future__ import annotations

import hashlib
from typing import Any, Optional

__all__ = ["DRIFT_RATE", "drifted_prompt", "request_seed"]

#: The drift chance of a picture at temperature 1.
DRIFT_RATE = 0.4


def _number(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).digest()[:4], "big") >> 1


def request_seed(gateway: Any, job: Any, basis: list[Any]) -> int:
    """The seed the pictures are drawn with: the request's, else by its temperature (see the module docstring)."""
    if job.seed is not None:
        return job.seed
    if job.temperature is None:
        return gateway.random_seed(basis)
    if job.temperature == 0:
        return _number("image", *basis)
    return gateway.ids.sample_seed(["image", *basis])


def drifted_prompt(job: Any, seed: int, index: int) -> Optional[str]:
    """The prompt picture ``index`` is drawn for when it drifts (else None: the request's prompt)."""
    if not job.temperature:
        return None
    chance = min(0.95, job.temperature * DRIFT_RATE)
    if _number("drift", seed, index, job.prompt) / 2**31 >= chance:
        return None
    return f"drifted draw {seed + index}"
