"""What is left of a student's class budget, for the chat box and the playground to show.

Only a client that talks to a classroom asks: its key is one a classroom issued
(``sk-bf-class-...``), or the hub token a keyless hub gives each user's server
(``SVC_API_KEY`` = ``JUPYTERHUB_API_TOKEN``). It asks ``GET /_classroom/me`` (a
short time-out; a failure shows nothing) and remembers a gateway that is no
classroom, so nothing else is ever sent there.
"""

from __future__ import annotations

from typing import Any, Optional

from gatewaykit.client.core.classroom_key import is_classroom_key

__all__ = ["class_budget_text"]

_NOT_A_CLASSROOM: set[str] = set()


def _key(client: Any) -> str:
    # the client's own key (its connection settings; never shown): the classroom answers with it
    settings = getattr(client, "_settings", None)
    return str(getattr(settings, "api_key", "") or "")


def _talks_to_a_classroom(client: Any, key: str) -> bool:
    if getattr(client, "offline", False) or getattr(client, "cassette", None) is not None or not key:
        return False
    return is_classroom_key(key)


def class_budget_text(client: Any) -> Optional[str]:
    """``class budget: $1.58 left of $2.00`` (and ``; the class is paused``), or None when the client does not
    talk to a classroom or the classroom did not answer."""
    from gatewaykit.classroom.student_budget import fetch_budget
    from gatewaykit.errors import GatewayError, NotFoundError
    from gatewaykit.money import format_usd

    key = _key(client)
    base_url = str(getattr(client, "base_url", "") or "")
    if not base_url or base_url in _NOT_A_CLASSROOM or not _talks_to_a_classroom(client, key):
        return None
    try:
        budget = fetch_budget(base_url, key, timeout=3.0)
    except NotFoundError:
        _NOT_A_CLASSROOM.add(base_url)
        return None
    except GatewayError:
        return None
    text = f"class budget: {format_usd(budget.get('remaining_usd'))} left of {format_usd(budget.get('cap_usd'))}"
    return text + ("; the class is paused" if budget.get("paused") else "")
