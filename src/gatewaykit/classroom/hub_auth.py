"""A keyless hub: a bearer token that is not a classroom key is asked of JupyterHub (``GET {hub_api_url}/user``).

With ``hub_api_url=`` (``--hub-api-url``), each user's server can carry its own
hub token as ``SVC_API_KEY``: the user the hub names is the student. A token the
hub refuses (or one naming a service, not a user) is 401; an answer is kept
:data:`CACHE_SECONDS`, so a token the hub stops accepting (the user's server
stopped, the user blocked) is refused within that time plus one request to the
hub. Tokens are kept only as digests, as classroom keys are.
"""

from __future__ import annotations

import time
from typing import Optional

import httpx

from gatewaykit.classroom import refusals
from gatewaykit.serving.accounts import key_digest
from gatewaykit.serving.errors import ApiError

__all__ = ["CACHE_SECONDS", "HubAuth"]

#: How long the hub's answer about a token is believed (the issue's bound: refused within 5 s).
CACHE_SECONDS = 2.0
_MAX_CACHED = 10_000


class HubAuth:
    """``await hub.user(token)`` -> the hub user's name; an ``ApiError`` (401) when the hub refuses the token."""

    def __init__(self, hub_api_url: str, timeout: float = 10.0) -> None:
        if not hub_api_url.startswith(("http://", "https://")):
            raise ValueError(f"hub_api_url must be the hub's API URL, e.g. http://127.0.0.1:8081/hub/api; got "
                             f"{hub_api_url!r:.100}")
        self.url = hub_api_url.rstrip("/") + "/user"
        self._http = httpx.AsyncClient(timeout=timeout, trust_env=False)
        self._known: dict[str, tuple[Optional[str], float]] = {}  # token digest -> (user or None, until)

    async def user(self, token: str) -> str:
        digest = key_digest(token)
        now = time.monotonic()
        cached = self._known.get(digest)
        if cached is None or cached[1] <= now:
            name = await self._ask(token)
            if len(self._known) >= _MAX_CACHED:
                self._known = {d: entry for d, entry in self._known.items() if entry[1] > now}
            cached = self._known[digest] = (name, now + CACHE_SECONDS)
        if cached[0] is None:
            raise refusals.unknown_key()
        return cached[0]

    async def _ask(self, token: str) -> Optional[str]:
        """The user the hub says the token belongs to; None when it refuses it or names no user."""
        try:
            answer = await self._http.get(self.url, headers={"Authorization": f"token {token}"})
        except httpx.HTTPError:
            raise ApiError(503, "The classroom could not ask the hub who you are. Try again in a moment; if it "
                           "goes on, tell your teacher.", type="api_error", code="hub_unreachable") from None
        if answer.status_code in (401, 403, 404):
            return None
        if answer.status_code != 200:
            raise ApiError(503, f"The hub answered {answer.status_code} when the classroom asked who you are. Try "
                           "again in a moment; if it goes on, tell your teacher.", type="api_error",
                           code="hub_unreachable")
        try:
            model = answer.json()
        except ValueError:
            return None
        name = model.get("name") if isinstance(model, dict) else None
        if model.get("kind", "user") != "user" or not isinstance(name, str) or not name:
            return None  # a service's token, or an answer without a user
        return name

    async def aclose(self) -> None:
        await self._http.aclose()
