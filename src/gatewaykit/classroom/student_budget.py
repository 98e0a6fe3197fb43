"""``gk.classroom.my_budget()``: a student's own budget, asked of the classroom with their own key.

Reads ``GET {SVC_BASE_URL}/_classroom/me`` with ``SVC_API_KEY`` (or the
``base_url=`` / ``api_key=`` given) and returns a :class:`Budget`: the dict the
classroom answered, which also shows itself (a line in a terminal, a small card
in a notebook). A gateway that is not a classroom is a ``gk.NotFoundError``
saying so; a key the classroom refuses a ``gk.AuthenticationError``.
"""

from __future__ import annotations

import datetime as dt
import html
import os
from typing import Any, Optional

import httpx

from gatewaykit.errors import APIConnectionError, AuthenticationError, ConfigurationError, NotFoundError
from gatewaykit.money import format_usd

__all__ = ["Budget", "fetch_budget", "my_budget"]


class Budget(dict):  # type: ignore[type-arg]
    """The classroom's answer (``student, cap_usd, spent_usd, held_usd, remaining_usd, window, resets_at,
    paused, ...``) as a dict that displays itself."""

    def summary(self) -> str:
        """``$1.58 left of your $2.00 class budget ($0.42 spent, $0.01 held by requests running)``, and when it
        resets, and whether the class is paused."""
        noun = {"daily": "daily class budget", "weekly": "weekly class budget"}.get(str(self.get("window_kind")),
                                                                                      "class budget")
        text = (f"{format_usd(self.get('remaining_usd', 0.0))} left of your {format_usd(self.get('cap_usd', 0.0))} "
                f"{noun} ({format_usd(self.get('spent_usd', 0.0))} spent")
        if self.get("held_usd"):
            text += f", {format_usd(self['held_usd'])} held by requests running"
        text += ")"
        resets = self.get("resets_at")
        if resets:
            try:
                text += f"; it resets {dt.datetime.fromisoformat(resets):%a %d %b %H:%M}"
            except ValueError:
                text += f"; it resets {resets}"
        if self.get("paused"):
            text += "; the class is paused" + (f" ({self['reason']})" if self.get("reason") else "")
        return text

    def __str__(self) -> str:
        return f"{self.get('student', '?')}: {self.summary()}"

    def _repr_html_(self) -> str:
        try:
            colour = "#d9534f" if self.get("paused") or not self.get("remaining_usd") else "#2e7d32"
            return (f'<div class="gk-my-budget tex2jax_ignore mathjax_ignore" '  # "$2.00 ... $0.42": no MathJax
                    f'style="border-left:3px solid {colour};padding:.3em .8em">'
                    f"<b>{html.escape(str(self.get('student', '')))}</b>: {html.escape(self.summary())}</div>")
        except Exception:  # noqa: BLE001 - a display never breaks a cell
            return html.escape(dict.__repr__(self))


def fetch_budget(base_url: str, api_key: str, timeout: float = 10.0) -> Budget:
    """``GET {base_url}/_classroom/me`` with ``api_key``, as a :class:`Budget`."""
    base = base_url.rstrip("/").removesuffix("/v1")
    try:
        response = httpx.get(f"{base}/_classroom/me", headers={"Authorization": f"Bearer {api_key}"},
                             timeout=timeout, trust_env=False)
    except httpx.HTTPError as exc:
        raise APIConnectionError(f"Could not reach the classroom at {base} ({type(exc).__name__}). Tell whoever "
                                 "runs it (your teacher).") from None
    if response.status_code == 401:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = "The classroom refused this key."
        raise AuthenticationError(message)
    if response.status_code != 200:
        raise NotFoundError(f"{base} is not a classroom (it answered {response.status_code} to /_classroom/me): "
                            "my_budget() is for a student whose SVC_BASE_URL is their class's address.")
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or "remaining_usd" not in answer:
        raise NotFoundError(f"{base} answered /_classroom/me with something that is not a budget: it is not a "
                            "classroom.")
    return Budget(answer)


def my_budget(base_url: Optional[str] = None, api_key: Optional[str] = None) -> Budget:
    """Your budget in your class: spent, held, remaining, the cap, the window and when it resets, paused or not.
    ``base_url`` / ``api_key`` default to ``SVC_BASE_URL`` / ``SVC_API_KEY`` (what your class gave you)."""
    base = base_url or os.environ.get("SVC_BASE_URL") or ""
    key = api_key or os.environ.get("SVC_API_KEY") or ""
    if not base or not key:
        missing = " and ".join(name for name, value in (("SVC_BASE_URL", base), ("SVC_API_KEY", key)) if not value)
        raise ConfigurationError(f"my_budget() needs your class's address and your key: set {missing} (or pass "
                                 "base_url= and api_key=).")
    return fetch_budget(base, key)
