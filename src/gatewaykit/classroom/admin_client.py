"""The teacher's side of ``/_classroom``: HTTP calls with the admin token, and their errors in a teacher's words.

Used by every ``gk.Classroom`` (one started in this kernel, or one reached with
``gk.classroom.connect``) and by the CLI's admin verbs. A classroom that cannot
be reached is a ``gk.APIConnectionError``, a token it refuses a
``gk.AuthenticationError``, a URL that answers but is no classroom a
``gk.NotFoundError``: each says what to change. A student the class does not
know is a ``KeyError``; a value the classroom refuses a ``ValueError``.
"""

from __future__ import annotations

import os
from typing import Any, Optional
from urllib.parse import quote

import httpx

from gatewaykit.classroom.audit_log import ORIGIN_HEADER
from gatewaykit.errors import APIConnectionError, AuthenticationError, NotFoundError

__all__ = ["ADMIN_TOKEN_VARIABLE", "AdminClient", "admin_token_from_environment", "student_path"]

ADMIN_TOKEN_VARIABLE = "GATEWAYKIT_CLASSROOM_ADMIN_TOKEN"


def admin_token_from_environment(given: Optional[str], where: str = "admin_token=") -> str:
    """``given``, else ``$GATEWAYKIT_CLASSROOM_ADMIN_TOKEN``; an ``AuthenticationError`` naming both when neither
    is set (``where``: how the caller names the argument, ``--admin-token`` on the command line)."""
    token = given or os.environ.get(ADMIN_TOKEN_VARIABLE) or ""
    if not token.strip():
        raise AuthenticationError(f"No admin token: pass {where} or set {ADMIN_TOKEN_VARIABLE} (the token the "
                                  "classroom printed when it started).", code="invalid_admin_token")
    return token.strip()


def student_path(student: str, action: str = "") -> str:
    return f"/_classroom/students/{quote(student, safe='')}" + (f"/{action}" if action else "")


class AdminClient:
    """``call(method, path, body=None, params=None)`` -> the JSON a ``/_classroom`` endpoint answers; ``origin``:
    where the calls come from, as the audit log keeps it (``notebook``, ``remote connect``, ``cli``)."""

    def __init__(self, base_url: str, admin_token: str, *, where: str = "admin_token=",
                 timeout: float = 30.0, origin: str = "notebook") -> None:
        self.base_url = base_url.rstrip("/")
        self._where = where
        self._http: Optional[httpx.Client] = httpx.Client(
            base_url=self.base_url, timeout=timeout, trust_env=False,
            headers={"Authorization": f"Bearer {admin_token}", ORIGIN_HEADER: origin})  # origin: the audit log's

    def call(self, method: str, path: str, body: Optional[dict[str, Any]] = None,
             params: Optional[dict[str, Any]] = None) -> Any:
        if self._http is None:
            raise APIConnectionError(f"This connection to the classroom at {self.base_url} was closed.")
        try:
            response = self._http.request(method, path, json=body, params=params)
        except httpx.HTTPError as exc:
            raise APIConnectionError(f"Could not reach a classroom at {self.base_url} ({type(exc).__name__}). "
                                     "Check the URL (the one the classroom printed: 'classroom on ...') and that "
                                     "it is running.") from None
        code, message = _error_of(response)
        if response.status_code == 401:
            raise AuthenticationError(f"The classroom at {self.base_url} refused the admin token. Pass the token it "
                                      f"printed when it started ({self._where} or {ADMIN_TOKEN_VARIABLE}); a "
                                      "student's key is not an admin token.", code="invalid_admin_token")
        if response.status_code == 404 and code == "student_not_found":
            raise KeyError(message)
        if response.status_code == 404 or code is None and response.status_code != 200:
            raise NotFoundError(f"{self.base_url} answered {response.status_code} to {method} {path}: it is not a "
                                "classroom (or an older one without this endpoint). Check the URL.")
        if response.status_code >= 400:
            raise ValueError(message)
        try:
            return response.json()
        except ValueError:
            raise NotFoundError(f"{self.base_url} answered {method} {path} with something other than JSON: it is "
                                "not a classroom. Check the URL.") from None

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None


def _error_of(response: httpx.Response) -> tuple[Optional[str], str]:
    """The envelope's ``(code, message)``; ``(None, excerpt)`` for an answer that is not one."""
    if response.status_code < 400:
        return None, ""
    try:
        error = response.json()["error"]
        return str(error.get("code") or error.get("type") or ""), str(error.get("message", ""))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, response.text[:200]
