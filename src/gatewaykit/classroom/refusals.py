"""What a student reads when the classroom says no, in the spec's error envelope.

Each refusal is the offline gateway's ``ApiError`` with the status and ``type`` /
``code`` a client maps to its usual class (402 ``insufficient_quota`` is a
``gk.InsufficientQuotaError``, 403 a ``gk.PermissionDeniedError``, 503 a
``gk.ServerError``), and a message written for a student, not an operator.
"""

from __future__ import annotations

from typing import Iterable, Optional

from gatewaykit.classroom.windows import Window
from gatewaykit.costs.money import format_usd
from gatewaykit.emulator.accounts import nanos_to_usd
from gatewaykit.emulator.errors import ApiError

__all__ = ["PAUSE_RETRY_SECONDS", "budget_used_up", "model_not_allowed", "over_request_limit", "paused",
           "revoked_key", "unknown_key", "unpriced_over_limit"]

PAUSE_RETRY_SECONDS = 60


def _usd(nanos: int) -> str:
    return format_usd(nanos_to_usd(nanos))


def budget_used_up(window: Window, cap: int, spent: int, held: int, needed: int) -> ApiError:
    """402: the request's worst case does not fit what is left of the student's cap."""
    left = max(0, cap - spent - held)
    noun = window.noun()
    if left <= 0 or left < cap // 1000:
        message = (f"Your {noun} of {_usd(cap)} is used up ({_usd(spent)} spent"
                   + (f", {_usd(held)} held by requests still running" if held else "")
                   + f"){window.resets()}. Ask your teacher for more.")
    else:
        message = (f"This request could cost up to {_usd(needed)}, more than the {_usd(left)} left of your {noun} "
                   f"of {_usd(cap)} ({_usd(spent)} spent{window.resets()}). Ask for less (a smaller max_tokens, "
                   "fewer or smaller images, a shorter clip) or ask your teacher for more.")
    return ApiError(402, message, type="insufficient_quota", code="insufficient_quota")


def over_request_limit(limit: int, quote: int) -> ApiError:
    return ApiError(402, f"This request could cost up to {_usd(quote)}, over your class's limit of {_usd(limit)} "
                    "per request. Ask for less (a smaller max_tokens, fewer or smaller images, a shorter clip).",
                    type="insufficient_quota", code="insufficient_quota")


def unpriced_over_limit(model: str, limit: int) -> ApiError:
    return ApiError(402, f"The classroom cannot price {model!r}, so it cannot check your class's limit of "
                    f"{_usd(limit)} per request. Use another model or ask your teacher.",
                    type="insufficient_quota", code="insufficient_quota", param="model")


def model_not_allowed(model: str, allowed: Iterable[str]) -> ApiError:
    names = ", ".join(sorted(allowed))
    return ApiError(403, f"Your class may not use the model {model[:100]!r}. Allowed models: {names}.",
                    code="model_not_found", param="model")


def paused(reason: Optional[str]) -> ApiError:
    said = f" ({reason})" if reason else ""
    return ApiError(503, f"Your teacher has paused the class{said}. Try again later.", type="api_error",
                    code="class_paused", headers={"Retry-After": str(PAUSE_RETRY_SECONDS)})


def unknown_key() -> ApiError:
    return ApiError(401, "This classroom does not know this API key. Use the key your teacher gave you "
                    "(SVC_API_KEY).", code="invalid_api_key")


def revoked_key() -> ApiError:
    return ApiError(401, "Your teacher has revoked this API key. Ask your teacher for a new one.",
                    code="invalid_api_key")
