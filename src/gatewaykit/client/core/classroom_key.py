"""Whether a client's key is a student's in a classroom: the notebooks then say where the student is.

A classroom issues keys starting ``sk-bf-class-``; a keyless hub gives each user's server its own hub token
as ``SVC_API_KEY`` (the same value as ``JUPYTERHUB_API_TOKEN``). Nothing is sent to find out.
"""

from __future__ import annotations

import os

__all__ = ["CLASSROOM_KEY_PREFIX", "is_classroom_key"]

CLASSROOM_KEY_PREFIX = "sk-bf-class-"


def is_classroom_key(api_key: str) -> bool:
    """True for a key a classroom issued, or this server's hub token (a keyless hub's student)."""
    if not api_key:
        return False
    hub_token = os.environ.get("JUPYTERHUB_API_TOKEN")
    return api_key.startswith(CLASSROOM_KEY_PREFIX) or (bool(hub_token) and api_key == hub_token)
