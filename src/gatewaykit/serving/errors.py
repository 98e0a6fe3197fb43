"""Error answers of both servers, always in the spec's envelope.

Every failure a route can detect is raised as :class:`ApiError`; one exception
handler in each server's app (:mod:`gatewaykit.emulator.app`, :mod:`gatewaykit.classroom.app`) turns it into
``{"error": {"message", "type", "code", "param"}}`` with the right status.
"""

from __future__ import annotations

from typing import Any

INVALID_REQUEST = "invalid_request_error"


class ApiError(Exception):
    """An error answer: HTTP ``status`` plus the envelope fields."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = INVALID_REQUEST,
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.headers = headers or {}

    def envelope(self) -> dict[str, Any]:
        return error_envelope(self.message, self.type, self.code, self.param)


def error_envelope(message: str, type: str, code: str | None = None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type, "code": code, "param": param}}


def bad_request(message: str, param: str | None = None, code: str | None = None) -> ApiError:
    """400 ``invalid_request_error``: ``message`` says what to change, ``param`` names the field."""
    return ApiError(400, message, param=param, code=code)


def insufficient_quota() -> ApiError:
    return ApiError(402, "Your balance is too low for this request. Add credits in your dashboard.",
                    type="insufficient_quota", code="insufficient_quota")


def invalid_key(message: str = "Invalid API key. Send 'Authorization: Bearer sk-bf-...'.") -> ApiError:
    return ApiError(401, message, code="invalid_api_key")


def not_found(kind: str, job_id: str, message: str | None = None) -> ApiError:
    """404 ``video_not_found`` / ``audio_not_found`` with ``param`` ``video_id`` / ``audio_id``."""
    noun = "video" if kind == "video" else "audio"
    return ApiError(
        404,
        message or f"No {noun} job with id {job_id!r} exists for this API key.",
        code=f"{noun}_not_found",
        param=f"{noun}_id",
    )


def server_error(status: int, message: str) -> ApiError:
    return ApiError(status, message, type="api_error")
