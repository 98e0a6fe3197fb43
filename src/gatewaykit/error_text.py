"""How errors read to a Python user: endpoints named as client calls, and a short notebook traceback.

:func:`speak_python` rewrites HTTP words (``GET /v1/models``) as the client call that does it;
:func:`redact` and :func:`mask_url` keep keys and passwords out of every message; :func:`short_traceback`
and :func:`public_call` show the user's own line instead of the library's frames
(``GATEWAYKIT_FULL_TRACEBACK=1`` keeps them). Standard library only. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import os
import re
import sys
import threading
import traceback
import weakref
from typing import Any, Callable, Optional, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = [
    "full_traceback", "leaving_gatewaykit", "mask_url", "public_call", "python_call", "redact", "remember_secret",
    "remember_url_secret", "short_traceback", "speak_python",
]

F = TypeVar("F", bound=Callable[..., Any])

_KEY_PATTERN = re.compile(r"sk-[A-Za-z0-9_\-]{4,}")
_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@:]*:)[^\s/@]+@")  # scheme://user:PASSWORD@
_SHORTEST_SECRET = 8  # a shorter "key" ("test") would scrub ordinary words from every message
_secrets: tuple[str, ...] = ()  # longest first: a key containing another is replaced whole
_secrets_lock = threading.Lock()


def remember_secret(secret: Optional[str]) -> None:
    """Have :func:`redact` scrub ``secret`` (a client's key, a base-URL password) from now on, in this process."""
    global _secrets
    if not secret or len(secret) < _SHORTEST_SECRET:
        return
    with _secrets_lock:
        if secret not in _secrets:
            _secrets = tuple(sorted({*_secrets, secret}, key=len, reverse=True))


def redact(text: str) -> str:
    """``text`` with every remembered secret and any URL's password as ``***``, anything shaped like a key
    (``sk-...``) as ``sk-***``."""
    for secret in _secrets:  # a snapshot: remember_secret replaces the tuple, never changes it
        if secret in text:
            text = text.replace(secret, "sk-***" if secret.startswith("sk-") else "***")
    if "@" in text:
        text = _URL_PASSWORD.sub(r"\1***@", text)
    return _KEY_PATTERN.sub("sk-***", text)


def mask_url(url: Optional[str]) -> Optional[str]:
    """``url`` with its password (``https://user:pw@host``) shown as ``***``; other URLs unchanged.

    The one masking function: a client's ``repr``, its error messages and the gateway the ledger stores
    use it (idempotent: a masked URL stays as it is).
    """
    if not url or "@" not in url:
        return url
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if password is None or password == "***":
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def remember_url_secret(url: Optional[str]) -> None:
    """Remember the password of ``url`` (as written and percent-decoded) as a secret :func:`redact` scrubs."""
    if not url or "@" not in url:
        return
    try:
        password = urlsplit(url).password
    except ValueError:
        return
    if password:
        remember_secret(password)
        remember_secret(unquote(password))


_ID = r"([A-Za-z0-9_\-.]+)"
# (method or None for any, path pattern, the Python call; {0} is the id in the path)
_CALLS: list[tuple[Optional[str], "re.Pattern[str]", str]] = [
    (None, re.compile(r"/v1/models/?"), "client.models.list()"),
    (None, re.compile(r"/v1/chat/completions/?"), "client.chat.completions.create(...)"),
    (None, re.compile(r"/v1/images/generations/?"), "client.images.generate(...)"),
    (None, re.compile(r"/v1/images/edits/?"), "client.images.edit(...)"),
    (None, re.compile(rf"/v1/videos/{_ID}/content/?"), "client.videos.retrieve('{0}').download()"),
    ("DELETE", re.compile(rf"/v1/videos/{_ID}/?"), "client.videos.delete('{0}')"),
    (None, re.compile(rf"/v1/videos/{_ID}/?"), "client.videos.retrieve('{0}')"),
    (None, re.compile(r"/v1/videos/?"), "client.videos.create(...)"),
    (None, re.compile(rf"/v1/audio/generations/{_ID}/?"), "client.music.retrieve('{0}')"),
    (None, re.compile(r"/v1/audio/generations/?"), "client.music.create(...)"),
]
_HTTP_PATH = re.compile(r"(?:\b(GET|POST|DELETE|PUT|PATCH)\s+)?(/v1/[A-Za-z0-9_\-./]*[A-Za-z0-9_/])")
_GATEWAY = os.path.dirname(os.path.abspath(__file__))


def _library_dirs() -> tuple[str, ...]:
    """gatewaykit, the standard library and installed packages: frames there are not the user's code."""
    import sysconfig

    paths = sysconfig.get_paths()
    dirs = {_GATEWAY} | {os.path.abspath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    return tuple(directory + os.sep for directory in dirs)


def python_call(method: Optional[str], path: str) -> Optional[str]:
    """The client call for ``method path`` (``GET /v1/models`` -> ``client.models.list()``), or None."""
    path = path.split("?", 1)[0]
    for wanted, pattern, call in _CALLS:
        if wanted is not None and (method or "").upper() != wanted:
            continue
        match = pattern.fullmatch(path)
        if match:
            return call.format(*match.groups())
    return None


def speak_python(message: str) -> str:
    """``message`` with every ``[METHOD] /v1/...`` it mentions written as the client call."""
    if "/v1/" not in message:
        return message

    def replace(match: "re.Match[str]") -> str:
        call = python_call(match.group(1), match.group(2))
        return call if call is not None else match.group(0)

    return _HTTP_PATH.sub(replace, message)


def _user_frame(error: BaseException) -> Optional[tuple[str, int, str]]:
    """``(file, line number, source)`` of the innermost frame outside gatewaykit: the user's call."""
    found, libraries = None, _library_dirs()
    for frame, line in traceback.walk_tb(error.__traceback__):
        filename = frame.f_code.co_filename
        if os.path.abspath(filename).startswith(libraries):
            continue
        found = (filename, line, linecache.getline(filename, line, frame.f_globals).strip())
    return found


def _live_frontend() -> bool:
    """False in a headless notebook run (nbconvert --execute, papermill, nbval, notebooks/build.py): they
    execute without stdin, and their saved outputs are read as static pages, where ``%tb`` means nothing."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None  # type: ignore[attr-defined]
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return True  # a terminal or script: %tb works there
    return bool(getattr(kernel, "_allow_stdin", True))


_RED, _BOLD, _DIM, _RESET = "\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"


def short_traceback(error: Any) -> list[str]:
    """Lines (ANSI-coloured, as IPython's are) for a gateway error raised in a cell.

    Shown once short; a second call (``%tb`` in a later cell) gives the full traceback. The ``%tb`` hint
    is left out of headless runs, whose outputs are read as static pages (nbconvert HTML).
    """
    if getattr(error, "_short_traceback_shown", False):
        return full_traceback(error).rstrip("\n").split("\n")
    error._short_traceback_shown = True
    head = " ".join(str(part) for part in (getattr(error, "status", None), getattr(error, "code", None)) if part)
    lines = [f"{_RED}{_BOLD}{type(error).__name__}{_RESET}" + (f" {_DIM}({head}){_RESET}" if head else "")]
    lines.append(str(getattr(error, "message", None) or error))
    param = getattr(error, "param", None)
    if param:
        lines.append(f"  parameter: {param}")
    frame = _user_frame(error)
    if frame is not None and frame[2]:
        lines.append(f"  in: {frame[2]}" + (f"   {_DIM}(line {frame[1]}){_RESET}" if frame[1] else ""))
    if _live_frontend():
        lines.append(f"{_DIM}Full traceback: run %tb{_RESET}")
    return lines


# The frames public_call left out, per error (as summaries: no frame kept alive): weakly held, and kept off
# the error (a traceback does not pickle).
_LIBRARY_TRACEBACKS: "weakref.WeakKeyDictionary[BaseException, traceback.StackSummary]" = weakref.WeakKeyDictionary()


def full_traceback(error: BaseException) -> str:
    """The whole traceback, with the library frames :func:`public_call` left out put back (for ``%tb``)."""
    inner = _LIBRARY_TRACEBACKS.get(error)
    if inner is None:
        return "".join(traceback.format_exception(type(error), error, error.__traceback__))
    outer = traceback.extract_tb(error.__traceback__)[:-1]  # the user's frames, without the re-raise
    frames = traceback.format_list(outer) + traceback.format_list(inner)
    tail = traceback.format_exception_only(type(error), error)
    return "Traceback (most recent call last):\n" + "".join(frames) + "".join(tail)


def _full_traceback() -> bool:
    return os.environ.get("GATEWAYKIT_FULL_TRACEBACK", "").strip().lower() not in ("", "0", "false", "no")


def _trimmed(error: BaseException, caught: Optional[BaseException] = None) -> bool:
    """Whether ``error`` is a gateway error to re-raise without gatewaykit's inner frames; if so, those are
    kept for :func:`full_traceback` (a public call inside another keeps the innermost frames too).
    ``caught``: the exception whose frames they are, when ``error`` was made from it (not yet raised)."""
    # Looked up, not imported: errors imports this module, and the types layer may not import errors.
    gateway_error = getattr(sys.modules.get("gatewaykit.errors"), "GatewayError", None)
    if gateway_error is None or not isinstance(error, gateway_error) or _full_traceback():
        return False
    caught = error if caught is None else caught
    frames = traceback.extract_tb(caught.__traceback__)
    earlier = _LIBRARY_TRACEBACKS.get(caught)
    if earlier is not None:  # an inner public call trimmed it already: its re-raise line stands for these frames
        frames = traceback.StackSummary.from_list([*frames[:-1], *earlier])
    _LIBRARY_TRACEBACKS[error] = frames
    return True


def leaving_gatewaykit(error: BaseException, caught: Optional[BaseException] = None) -> BaseException:
    """``error`` ready to raise where it leaves gatewaykit by a way :func:`public_call` cannot wrap: a stream's
    iteration (``for chunk in stream``, ``async for``), whose generator raises into the user's loop.

    A gateway error loses the library's frames below the ``raise`` (kept for ``%tb``), so a script's
    traceback holds the user's frames and that one line of ours; ``caught``, the exception it was made
    from (a dropped connection become a ``StreamInterruptedError``), is left out too: the error's message
    already says it. Anything else, or with ``GATEWAYKIT_FULL_TRACEBACK=1``, is returned whole, with
    ``caught`` as its cause (``raise error from caught``). Error path only: nothing runs per chunk.
    """
    if caught is not None and caught is not error:
        error.__cause__ = caught  # as `raise error from caught` (and the context is not shown)
    if not _trimmed(error, caught):
        return error
    error.__cause__ = None
    error.__suppress_context__ = True  # raised inside `except ... as caught`: not "During handling of ..."
    return error.with_traceback(None)


def public_call(method: F) -> F:
    """``method`` re-raising a gateway error from its own line, without the library's frames below it.

    An ``AsyncClient``'s call returns a coroutine and fails on ``await``: that coroutine is wrapped the same
    way, so an ``asyncio.run`` script's traceback also ends in one frame of ours.
    """

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            result = method(*args, **kwargs)
        except Exception as error:
            if not _trimmed(error):
                raise
            raise error.with_traceback(None)  # gatewaykit's inner frames left out: GATEWAYKIT_FULL_TRACEBACK=1 shows them
        if inspect.iscoroutine(result):
            return awaited(result)
        return result

    async def awaited(coroutine: Any) -> Any:
        try:
            return await coroutine
        except Exception as error:
            if not _trimmed(error):
                raise
            raise error.with_traceback(None)  # the awaited call, trimmed alike: GATEWAYKIT_FULL_TRACEBACK=1 shows all

    wrapper: Any = call
    if inspect.iscoroutinefunction(method):  # an ``async def`` (``aclient.chat.ask``) stays one to inspect

        @functools.wraps(method)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            try:
                return await method(*args, **kwargs)
            except Exception as error:
                if not _trimmed(error):
                    raise
                raise error.with_traceback(None)  # as for call: GATEWAYKIT_FULL_TRACEBACK=1 shows all

        wrapper = call_async

    # The traceback names the frame after the call the user made ("in create"), not "in call" / "in awaited".
    for function in {call, awaited, wrapper}:
        function.__code__ = function.__code__.replace(  # type: ignore[attr-defined]
            co_name=method.__name__, co_qualname=method.__qualname__
        )
    return wrapper  # type: ignore[no-any-return]
