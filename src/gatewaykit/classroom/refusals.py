"""What a student reads when the classroom says no, in the spec's error envelope.

Each refusal is the offline gateway's ``ApiError`` with the status and ``type`` /
``code`` a client maps to its usual class (402 ``insufficient_quota`` is a
``gk.InsufficientQuotaError``, 403 a ``gk.PermissionDeniedError``, 503 a
``gk.ServerError``), and a message written for a student, not an operator.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Iterable, Optional

from gatewaykit.classroom.windows import Window
from gatewaykit.money import format_usd, nanos_to_usd
from gatewaykit.serving.errors import ApiError

__all__ = ["PAUSE_RETRY_SECONDS", "assignment_used_up", "budget_left", "budget_used_up", "class_balance_used_up",
           "database_unavailable", "model_not_allowed", "model_not_in_assignment", "over_request_limit", "paused",
           "rate_limited", "revoked_key", "scheduled_pause", "unknown_key", "unpriced_over_limit"]

PAUSE_RETRY_SECONDS = 60
_FINEST = 4  # decimal places of a dollar a cap refusal writes at most


def _usd(nanos: int) -> str:
    return format_usd(nanos_to_usd(nanos))


def _amounts(cap: int, spent: int, held: int, needed: int) -> tuple[str, str, str, str, str]:
    """``(cap, spent, held, left, needed)`` written to one precision (the finest any of them needs, as
    ``format_usd`` would write it alone, to a hundredth of a cent at most), ``left`` being ``cap - spent - held``
    of the written figures: the amounts a student reads add up to the cap. A written "" is zero at that
    precision."""
    places = 2
    for nanos in (cap, spent, held, needed, cap - spent - held):
        text = _usd(abs(nanos))
        places = min(_FINEST, max(places, len(text.partition(".")[2])))
    step = Decimal(1).scaleb(-places)

    def written(nanos: int) -> Decimal:
        return (Decimal(nanos) / 1_000_000_000).quantize(step, ROUND_HALF_UP)

    spent_d, held_d, cap_d = written(spent), written(held), written(cap)
    left_d = max(Decimal(0), cap_d - spent_d - held_d)

    def money(value: Decimal) -> str:
        if not value:
            return ""
        whole, _, fraction = f"{value:,.{places}f}".partition(".")
        return f"${whole}.{fraction[:2]}{fraction[2:].rstrip('0')}"

    return money(cap_d) or "$0.00", money(spent_d) or "$0.00", money(held_d), money(left_d), _usd(needed)


def budget_used_up(window: Window, cap: int, spent: int, held: int, needed: int) -> ApiError:
    """402: the request's worst case does not fit what is left of the student's cap. The message's left, spent
    and held (by the student's requests still running) add up to the cap."""
    left = max(0, cap - spent - held)
    noun = window.noun()
    cap_s, spent_s, held_s, left_s, needed_s = _amounts(cap, spent, held, needed)
    running = f", {held_s} held by your requests still running" if held_s else ""
    if left <= 0 or left < cap // 1000:
        remainder = f", {left_s} left" if left_s else ""
        message = (f"Your {noun} of {cap_s} is used up ({spent_s} spent{running}{remainder}){window.resets()}. "
                   "Ask your teacher for more.")
    else:
        message = (f"This request could cost up to {needed_s}, more than the {left_s} left of your {noun} "
                   f"of {cap_s} ({spent_s} spent{running}{window.resets()}). Ask for less (a smaller max_tokens, "
                   "fewer or smaller images, a shorter clip) or ask your teacher for more.")
    return ApiError(402, message, type="insufficient_quota", code="insufficient_quota")


def class_balance_used_up() -> ApiError:
    """402: the gateway refused the request because the teacher's paid balance is used up (the class's problem)."""
    return ApiError(402, "Your class's paid balance at the gateway is used up, so the classroom cannot send "
                    "anyone's requests. Nothing was charged to you. Tell your teacher.",
                    type="insufficient_quota", code="class_balance_exhausted")


def budget_left(window: Window, cap: int, spent: int, held: int) -> str:
    """`` You have $1.58 left of your class budget of $2.00.``: what a refusal that is not about money adds, so
    a student reads where they stand (nothing was charged for the refused request)."""
    return f" You have {_usd(max(0, cap - spent - held))} left of your {window.noun()} of {_usd(cap)}."


def over_request_limit(limit: int, quote: int, left: str = "") -> ApiError:
    return ApiError(402, f"This request could cost up to {_usd(quote)}, over your class's limit of {_usd(limit)} "
                    "per request. Ask for less (a smaller max_tokens, fewer or smaller images, a shorter clip)."
                    + left, type="insufficient_quota", code="insufficient_quota")


def unpriced_over_limit(model: str, limit: int) -> ApiError:
    return ApiError(402, f"The classroom cannot price {model!r}, so it cannot check your class's limit of "
                    f"{_usd(limit)} per request. Use another model or ask your teacher.",
                    type="insufficient_quota", code="insufficient_quota", param="model")


def model_not_allowed(model: str, allowed: Iterable[str], left: str = "") -> ApiError:
    names = ", ".join(sorted(allowed))
    return ApiError(403, f"Your class may not use the model {model[:100]!r}. Allowed models: {names}.{left}",
                    code="model_not_found", param="model")


def paused(reason: Optional[str], left: str = "") -> ApiError:
    said = f" ({reason})" if reason else ""
    return ApiError(503, f"Your teacher has paused the class{said}. Try again later.{left}", type="api_error",
                    code="class_paused", headers={"Retry-After": str(PAUSE_RETRY_SECONDS)})


def database_unavailable(where: str, settling: bool = False) -> ApiError:
    """The class's database cannot be reached: nothing is forwarded (it could not be recorded), nothing charged;
    ``settling``: it went away while an answer the gateway gave was being recorded."""
    if settling:
        said = ("the gateway answered your request, but the classroom could not record it yet: it is recorded at "
                "what the gateway charged once the database is back (at its most, its hold, if the classroom stops "
                "first); a retry is a new request.")
    else:
        said = "so it cannot record requests: nothing was sent to the gateway and nothing was charged."
    return ApiError(503, f"The classroom cannot reach its database ({where}): {said} Try again in a minute; if it "
                    "lasts, tell your teacher.", type="api_error", code="class_database_unavailable",
                    headers={"Retry-After": "5"})


def unknown_key() -> ApiError:
    return ApiError(401, "This classroom does not know this API key. Use the key your teacher gave you "
                    "(SVC_API_KEY).", code="invalid_api_key")


def revoked_key() -> ApiError:
    return ApiError(401, "Your teacher has revoked this API key. Ask your teacher for a new one.",
                    code="invalid_api_key")


def rate_limited(scope: str, limit: int, wait: float, left: str = "") -> ApiError:
    """429 ``rate_limit_exceeded``: the student's requests per minute (``scope="student"``), or the whole class's
    (``"class"``), are used up; ``Retry-After`` says when a slot frees (gatewaykit's client waits that long)."""
    seconds = max(1, math.ceil(wait))
    if scope == "student":
        message = (f"You have sent {limit} requests in the last minute, the most your class allows each student. "
                   f"Wait {seconds} s and try again (nothing was charged).")
    else:
        message = (f"Your class as a whole has sent {limit} requests in the last minute, the most your teacher "
                   f"allows for everyone. Wait {seconds} s and try again (nothing was charged).")
    return ApiError(429, message + left, type="rate_limit_error", code="rate_limit_exceeded",
                    headers={"Retry-After": str(seconds)})


def scheduled_pause(reason: Optional[str], until: str, wait: float, left: str = "") -> ApiError:
    """503 ``class_paused`` during a scheduled AI-off window; ``Retry-After``: the seconds until it ends."""
    said = f" ({reason})" if reason else ""
    return ApiError(503, f"Your class is paused{said} until {until}, as your teacher scheduled. Try again then."
                    + left,
                    type="api_error", code="class_paused", headers={"Retry-After": str(max(1, math.ceil(wait)))})


def assignment_used_up(assignment: str, cap: int, spent: int, held: int, needed: int) -> ApiError:
    """402: the request's worst case does not fit what is left of the student's cap on the open assignment."""
    left = max(0, cap - spent - held)
    running = f", {_usd(held)} held by your requests still running" if held else ""
    if left <= 0:
        message = (f"Your budget for the assignment {assignment!r} ({_usd(cap)}) is used up ({_usd(spent)} spent"
                   f"{running}). Ask your teacher for more.")
    else:
        message = (f"This request could cost up to {_usd(needed)}, more than the {_usd(left)} left of your budget "
                   f"for the assignment {assignment!r} ({_usd(cap)}; {_usd(spent)} spent{running}). Ask for less or "
                   "ask your teacher for more.")
    return ApiError(402, message, type="insufficient_quota", code="assignment_budget_exceeded")


def model_not_in_assignment(model: str, assignment: str, allowed: Iterable[str], left: str = "") -> ApiError:
    names = ", ".join(sorted(allowed))
    return ApiError(403, f"The assignment {assignment!r} may not use the model {model[:100]!r}. Allowed models for "
                    f"it: {names}.{left}", code="model_not_found", param="model")
