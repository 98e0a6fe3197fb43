"""Exceptions raised by gatewaykit: one class per case, all under :class:`GatewayError` (its docstring
draws the tree), each carrying the gateway's error envelope (``status``, ``code``, ``type``, ``param``,
``message``). HTTP answers are mapped to classes in one place, :func:`error_from_response`. Messages
never hold an API key (:func:`redact` scrubs every key this process was given) nor a server's terminal
escape sequences, so ``str(error)`` is safe to print.
"""

from __future__ import annotations

import re

from typing import Any, Mapping

from gatewaykit.error_text import redact, short_traceback, speak_python
from gatewaykit.presentation import rich_bundle
from gatewaykit.terminal_text import plain_text

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "BudgetExceededError",
    "CassetteMissError",
    "ClassPausedError",
    "ConfigurationError",
    "ConfirmationRequiredError",
    "GatewayError",
    "InsufficientQuotaError",
    "JobFailedError",
    "JobTimeoutError",
    "ModelNotAllowedError",
    "ModelNotFoundError",
    "NotFoundError",
    "PermissionDeniedError",
    "PromptTooLongError",
    "RateLimitError",
    "RequestTooLargeError",
    "ResponseTooLargeError",
    "ServerError",
    "StreamInterruptedError",
    "StructuredOutputError",
    "UnexpectedResponseError",
    "error_from_response",
    "excerpt",
    "redact",
    "status_named_in",
]



class GatewayError(Exception):
    """Root of every gatewaykit error (``tests/test_error_tree.py`` checks this drawing against the classes)::

        GatewayError
        ├── APIStatusError                  an HTTP error answer from the gateway
        │   ├── BadRequestError             400
        │   │   ├── PromptTooLongError      400 PROMPT_TOO_LONG
        │   │   └── ModelNotFoundError      400/403 model_not_found
        │   │       └── ModelNotAllowedError  403: exists, not for this key (also a PermissionDeniedError)
        │   ├── AuthenticationError         401
        │   ├── InsufficientQuotaError      402
        │   ├── PermissionDeniedError       403
        │   ├── NotFoundError               404, video_not_found, audio_not_found
        │   ├── RequestTooLargeError        413
        │   ├── RateLimitError              429
        │   ├── ServerError                 5xx
        │   │   └── ClassPausedError        503 class_paused: the teacher paused the class
        │   └── UnexpectedResponseError     an answer the client cannot read (a 200 that is not JSON, ...)
        │       └── ResponseTooLargeError   ... because it decodes to more than ``max_response_bytes``
        ├── APIConnectionError              the request did not get an answer
        │   ├── APITimeoutError             ... because it timed out
        │   └── StreamInterruptedError      a stream ended before its last event
        ├── JobFailedError                  a video or music job ended ``failed``
        ├── JobTimeoutError                 ``job.wait(timeout=)`` ran out; the job goes on
        ├── BudgetExceededError             the ledger's budget would be passed; nothing sent
        ├── ConfirmationRequiredError       a quote passed ``confirm_over``; nothing sent (``confirm=True``)
        ├── StructuredOutputError           a reply did not validate against the asked-for schema
        ├── CassetteMissError               replay mode: the cassette holds no recording of the request
        └── ConfigurationError              no usable key / base URL combination
    """

    status: int | None = None
    code: str | None = None
    type: str | None = None
    param: str | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        type: str | None = None,
        param: str | None = None,
        body: Any = None,
        request_id: str | None = None,
    ) -> None:
        self.message = speak_python(redact(plain_text(str(message))))
        if status is not None:
            self.status = status
        # code, type and param come from the server too: printed by str() and the short traceback
        if code is not None:
            self.code = plain_text(str(code))
        if type is not None:
            self.type = plain_text(str(type))
        if param is not None:
            self.param = plain_text(str(param))
        self.body = body
        self.request_id = request_id
        super().__init__(self.message)

    def __str__(self) -> str:
        parts = []
        if self.status is not None:
            parts.append(str(self.status))
        if self.code:
            parts.append(self.code)
        head = " ".join(parts)
        tail = f" (param: {self.param})" if self.param else ""
        # code and param come from the server too: no escape sequence, no key reaches a terminal
        return redact(plain_text(f"{head}: {self.message}{tail}" if head else f"{self.message}{tail}"))

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in ("status", "code", "type", "param")
            if getattr(self, name) is not None
        )
        sep = ", " if fields else ""
        return f"{type(self).__name__}({self.message!r}{sep}{fields})"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Short and readable in a notebook (the presentation layer's HTML); ``repr`` without one."""
        return rich_bundle(self)

    def _render_traceback_(self) -> list[str]:
        """IPython shows this instead of the library's frames: message, parameter, the user's line, ``%tb``."""
        return short_traceback(self)


class APIStatusError(GatewayError):
    """The gateway answered with an HTTP error status and the error envelope.

    ``partial``: for an error a stream sent after some text (OpenRouter's ``finish_reason: "error"``
    chunk), the completion assembled before it; otherwise None.
    """

    partial: Any = None


class BadRequestError(APIStatusError):
    """400: the request is malformed or asks for something the model does not offer."""

    status = 400
    type = "invalid_request_error"


class PromptTooLongError(BadRequestError):
    """400 ``PROMPT_TOO_LONG``: the prompt exceeds the model's ``prompt_max_length``."""

    code = "PROMPT_TOO_LONG"


class ModelNotFoundError(BadRequestError):
    """``model_not_found``: the model id is not in the catalog (400) or not allowed for the key (403)."""

    code = "model_not_found"


class AuthenticationError(APIStatusError):
    """401 ``invalid_api_key``: the key is missing, malformed or unknown."""

    status = 401
    code = "invalid_api_key"
    type = "invalid_request_error"


class InsufficientQuotaError(APIStatusError):
    """402 ``insufficient_quota``: the prepaid balance cannot pay for the request."""

    status = 402
    code = "insufficient_quota"
    type = "insufficient_quota"


class PermissionDeniedError(APIStatusError):
    """403: the key is revoked or inactive, or may not use the model."""

    status = 403


class NotFoundError(APIStatusError):
    """404 / ``video_not_found`` / ``audio_not_found``: no such job (for this key), or no content yet."""

    status = 404


class RequestTooLargeError(APIStatusError):
    """413: the request body or an uploaded part is larger than the gateway accepts."""

    status = 413


class RateLimitError(APIStatusError):
    """429 ``rate_limit_exceeded``: the account's rate limit is spent; never charged."""

    status = 429
    code = "rate_limit_exceeded"
    type = "rate_limit_error"

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(APIStatusError):
    """5xx: a temporary server error; retried with backoff before it is raised."""

    type = "api_error"


class ClassPausedError(ServerError):
    """503 ``class_paused``: the classroom's teacher has paused the class (its message gives their reason).

    A :class:`ServerError` (a 503), named so that it does not read as a fault: nothing is wrong with the
    request; ask again once the teacher resumes the class."""

    code = "class_paused"


class UnexpectedResponseError(APIStatusError):
    """The server answered something the client cannot use: a body that is not JSON, or not the
    shape the call returns (a chat chunk without a readable ``choices``, ...).

    The message names the call, the status and a short excerpt of the body (keys scrubbed);
    ``body`` holds the raw text. ``partial`` is what a stream had assembled before it.
    A 2xx answer may have been charged: the ledger records its charge as unknown.
    """

    type = "unexpected_response"

    def __init__(self, message: str, *, partial: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.partial = partial


class ResponseTooLargeError(UnexpectedResponseError):
    """An answer whose body decodes to more than the client reads (``Client(max_response_bytes=)``).

    Compressed bodies are decoded piece by piece and refused as soon as they pass the limit, so a
    small gzip "bomb" never fills the memory. ``limit`` is the limit in bytes. Nothing of the body is kept.
    """

    def __init__(self, message: str, *, limit: int | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.limit = limit


class APIConnectionError(GatewayError):
    """The request got no answer: connection refused, reset or dropped."""


class APITimeoutError(APIConnectionError):
    """The request timed out."""


class StreamInterruptedError(APIConnectionError):
    """A stream broke off before its final event; ``partial`` holds what arrived."""

    def __init__(self, message: str, *, partial: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.partial = partial


class JobFailedError(GatewayError):
    """A video or music job ended ``failed``; ``message`` is the gateway's ``error.message``.

    ``job`` is the failed job. A failed job is never charged; a retry needs a new job.
    """

    def __init__(self, message: str, *, job: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.job = job


class JobTimeoutError(GatewayError, TimeoutError):
    """``job.wait(timeout=)`` ran out. The job goes on: resume with ``retrieve(id).wait()``."""

    def __init__(self, message: str, *, job: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.job = job


class BudgetExceededError(GatewayError):
    """The ledger's budget would be passed by this request; nothing was sent."""

    def __init__(
        self, message: str, *, budget: float | None = None, spent: float | None = None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.budget = budget
        self.spent = spent


class ConfirmationRequiredError(GatewayError):
    """A request quoted above the client's ``confirm_over``, with no one to ask; nothing was sent.

    ``quote`` is the :class:`~gatewaykit.Quote` that passed the threshold;
    pass ``confirm=True`` to the call to send it anyway.
    """

    cancelled = False  # True when someone pressed Cancel on the confirmation card

    def __init__(self, message: str, *, quote: Any = None, threshold: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.quote = quote
        self.threshold = threshold

    def _render_traceback_(self) -> list[str]:
        """A deliberate Cancel is not a failure: one quiet line (the card above says what was not sent)."""
        if not self.cancelled or getattr(self, "_short_traceback_shown", False):
            return super()._render_traceback_()
        self._short_traceback_shown = True  # %tb in a later cell gives the full traceback
        return ["\x1b[2mCancelled: nothing was sent (so Run All stops here).\x1b[0m"]


class CassetteMissError(GatewayError):
    """A request the cassette holds no recording of, in ``cassette_mode="replay"`` (nothing was sent)."""

    def __init__(self, message: str, *, request: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.request = request  # the normalised request (method, url, body): what was not found


class StructuredOutputError(GatewayError, ValueError):
    """The model's reply did not validate against the asked-for ``response_format``.

    ``raw`` is the reply's text, ``errors`` pydantic's validation errors (a list
    of dicts), ``completion`` the last ``ChatCompletion``, ``attempts`` how many
    replies were tried (``retries + 1``). The replies were charged.
    """

    def __init__(
        self, message: str, *, raw: Any = None, errors: Any = None, completion: Any = None, attempts: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.raw = raw
        self.errors = errors or []
        self.completion = completion
        self.attempts = attempts


class ConfigurationError(GatewayError, ValueError):
    """The client cannot be set up as asked (for example a key with no base URL)."""


_BY_CODE: dict[str, type[APIStatusError]] = {
    "PROMPT_TOO_LONG": PromptTooLongError,
    "model_not_found": ModelNotFoundError,
    "invalid_api_key": AuthenticationError,
    "insufficient_quota": InsufficientQuotaError,
    "rate_limit_exceeded": RateLimitError,
    "video_not_found": NotFoundError,
    "audio_not_found": NotFoundError,
    "class_paused": ClassPausedError,
}

_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: InsufficientQuotaError,
    403: PermissionDeniedError,
    404: NotFoundError,
    413: RequestTooLargeError,
    422: BadRequestError,
    429: RateLimitError,
}


def _class_for(status: int, code: str | None) -> type[APIStatusError]:
    if code == "model_not_found" and status == 403:
        # Not permitted to use the model: both a permission error and a model error.
        return ModelNotAllowedError
    if code in _BY_CODE and not (code in ("video_not_found", "audio_not_found") and status >= 500):
        return _BY_CODE[code]
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, APIStatusError)


class ModelNotAllowedError(ModelNotFoundError, PermissionDeniedError):
    """403 ``model_not_found``: the model exists but this key may not use it (a class's list of models, say).

    Both a :class:`ModelNotFoundError` and a :class:`PermissionDeniedError`: ``except`` either catches it."""

    status = 403


_ForbiddenModelError = ModelNotAllowedError  # its name before it was public


_TAG = re.compile(r"<[^<>]*>")  # no '<' inside: one pass, never a rescan from every '<' of a broken page
_BLANKS = re.compile(r"\s+")
_NO_VALUE = ("", "None", "null")
# How much of a body an excerpt reads: the body is cut to this before any pattern runs over it, so a
# megabyte error page costs what 8 KB does (an HTML page's title and first text are near its start).
EXCERPT_SCAN = 8192


def _is_html(text: str) -> bool:
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html")) or "<body" in head or "<head" in head


def _title_of(page: str, lower: str) -> str | None:
    """The text of an HTML page's ``<title>`` (found with ``str.find``: linear whatever the page)."""
    start = lower.find("<title")
    opened = lower.find(">", start) if start >= 0 else -1
    end = lower.find("</title", opened) if opened >= 0 else -1
    return page[opened + 1 : end] if end >= 0 else None


def _without_code(page: str, lower: str) -> str:
    """``page`` with its ``<script>`` and ``<style>`` elements blanked (an unclosed one runs to the end)."""
    parts, at = [], 0
    while True:
        found = [i for i in (lower.find("<script", at), lower.find("<style", at)) if i >= 0]
        if not found:
            parts.append(page[at:])
            break
        start = min(found)
        parts.append(page[at:start] + " ")
        name = "</script" if lower.startswith("<script", start) else "</style"
        end = lower.find(name, start)
        close = lower.find(">", end) if end >= 0 else -1
        if close < 0:
            break
        at = close + 1
    return "".join(parts)


def excerpt(body: Any, limit: int = 200) -> str:
    """A short, one-line, key-scrubbed excerpt of a body for an error message (an HTML page: its title and text).

    Only the first :data:`EXCERPT_SCAN` characters are read (cut before any pattern runs).
    """
    scan = max(EXCERPT_SCAN, 4 * limit)
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body[: 4 * scan]).decode("utf-8", "replace")
    if not isinstance(body, str):
        try:
            import json

            body = json.dumps(body, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            body = repr(body)
    text = body[:scan]
    if _is_html(text):
        lower = text.lower()
        title = _title_of(text, lower)
        text = _TAG.sub(" ", _without_code(text, lower))
        if title:
            heading = _BLANKS.sub(" ", _TAG.sub(" ", title)).strip()
            rest = _BLANKS.sub(" ", text).strip()
            rest = rest[len(heading):].strip() if rest.startswith(heading) else rest
            rest = rest[len(heading):].strip() if rest.startswith(heading) else rest
            text = heading + (f" ({rest})" if rest else "")
    text = redact(_BLANKS.sub(" ", text).strip())
    if not text:
        return "(an empty body)"
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _clean(value: Any) -> str | None:
    """A field of a foreign error body: ``None``/``"None"``/``""`` (LiteLLM sends ``"None"``) read as absent."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value)
    return None if text in _NO_VALUE else text


def _detail_text(detail: Any) -> tuple[str, str | None]:
    """FastAPI's ``{"detail": ...}``: a string, or a list of ``{loc, msg}`` validation errors; (message, param)."""
    if isinstance(detail, str):
        return detail, None
    if isinstance(detail, list) and detail and all(isinstance(item, Mapping) for item in detail):
        parts, param = [], None
        for item in detail[:5]:
            loc = [str(part) for part in item.get("loc") or () if part != "body"]
            if param is None and loc:
                param = ".".join(loc)
            parts.append((".".join(loc) + ": " if loc else "") + str(item.get("msg") or item))
        return "; ".join(parts), param
    if isinstance(detail, Mapping) and isinstance(detail.get("message"), str):
        return detail["message"], _clean(detail.get("param"))
    return excerpt(detail), None


def _read_body(status: int, body: Any, where: str) -> tuple[str, Any, Any, Any]:
    """(message, code, type, param) of an error body in any of the shapes servers send."""
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8", "replace")
    if isinstance(body, list) and body and isinstance(body[0], Mapping) and "error" in body[0]:
        body = body[0]  # Gemini's OpenAI endpoint: [{"error": {...}}]
    if isinstance(body, Mapping):
        envelope = body.get("error")
        if isinstance(envelope, Mapping):
            message = envelope.get("message") or envelope.get("detail")
            if not isinstance(message, str) or not message:
                message = f"{where}answered {status} with no message" + (
                    f": {excerpt(envelope)}" if envelope else ""
                )
            return message, envelope.get("code"), envelope.get("type"), envelope.get("param")
        if isinstance(envelope, str) and envelope:  # {"error": "text"}
            return envelope, body.get("code"), body.get("type"), body.get("param")
        if "detail" in body:  # FastAPI
            message, param = _detail_text(body["detail"])
            return message, body.get("code"), body.get("type"), param
        if isinstance(body.get("message"), str) and body["message"]:
            return body["message"], body.get("code"), body.get("type"), body.get("param")
        return f"{where}answered {status} with a body that is not an error envelope: {excerpt(body)}", None, None, None
    if isinstance(body, str) and body.strip():
        if _is_html(body):
            return (
                f"{where}answered {status} with an HTML page, not the API's JSON (a proxy or load balancer "
                f"in between?): {excerpt(body)}"
            ), None, None, None
        return f"{where}answered {status}: {excerpt(body, 500)}", None, None, None
    return f"{where}answered {status} with no error message", None, None, None


def error_from_response(
    status: int,
    body: Any,
    *,
    headers: Mapping[str, str] | None = None,
    request_id: str | None = None,
    call: str | None = None,
) -> APIStatusError:
    """Build the typed exception for an HTTP error answer.

    ``body`` is the decoded JSON (ideally the spec's envelope
    ``{"error": {"message", "type", "code", "param"}}``) or raw text. The other
    shapes real servers send read too: ``{"error": "text"}``, FastAPI's
    ``{"detail": ...}``, ``{"message": ...}``, an HTML error page from a proxy,
    a ``code`` that only repeats the status (``"400"``) or says ``"None"``.
    ``call`` (``client.models.list()``) names the call in messages the server did not write.
    """
    where = f"{call}: the server " if call else "The gateway "
    message, raw_code, raw_type, raw_param = _read_body(status, body, where)
    code = _clean(raw_code)
    if code is not None and code == str(status):
        code = None  # "code": "400" only repeats the status ("400 400: ..." otherwise)
    cls = _class_for(status, code)
    kwargs: dict[str, Any] = dict(
        status=status,
        code=code,
        type=_clean(raw_type),
        param=_clean(raw_param),
        body=body,
        request_id=request_id,
    )
    if issubclass(cls, RateLimitError):
        kwargs["retry_after"] = parse_retry_after(headers)
    return cls(message, **kwargs)


def status_named_in(body: Any) -> int | None:
    """The HTTP status an error body names (``error.status``, else an ``error.code`` that is one: 502 or
    ``"400"``, as OpenRouter and LiteLLM send them), or None."""
    envelope = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(envelope, Mapping):
        return None
    for raw in (envelope.get("status"), envelope.get("code")):
        if isinstance(raw, str) and raw.isdigit():
            raw = int(raw)
        if isinstance(raw, int) and not isinstance(raw, bool) and 400 <= raw < 600:
            return raw
    return None


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds form), or None."""
    if not headers:
        return None
    value = headers.get("retry-after") or headers.get("Retry-After")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
