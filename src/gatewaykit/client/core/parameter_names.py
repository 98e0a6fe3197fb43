"""Keywords nobody defined: a misspelled ``widht=512`` is named, with the closest valid name.

Every field the spec lists is a typed keyword of its call, so a keyword that
reaches the body "as-is" is either one of the model's catalog ``parameters``
(model-specific, forwarded by the gateway) or a mistake the gateway would
silently ignore. The check warns with :class:`UnknownParameterWarning`
(``Client(strict=True)``: raises :class:`~gatewaykit.errors.BadRequestError`
before anything is sent). ``extra_body=`` is the way to send a field
deliberately and is never checked; ``validate=False`` skips the check, and a
model missing from the catalog is not checked (its parameters are unknown).
"""

from __future__ import annotations

import difflib
import linecache
import os
import re
import sys
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional

from gatewaykit.client.core.config import callers_level
from gatewaykit.errors import BadRequestError

if TYPE_CHECKING:
    from gatewaykit.client.core.base import BaseClient
    from gatewaykit.client.core.flows import Flow
    from gatewaykit.types import Model

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep  # src/gatewaykit/

__all__ = ["KeywordCheck", "UnknownParameterWarning", "check_keywords", "keyword_check", "unknown_keyword_message"]


class UnknownParameterWarning(UserWarning):
    """A keyword is neither a field of the call nor a parameter of the model: the gateway would ignore it."""


@dataclass(frozen=True, slots=True)
class KeywordCheck:
    """What a call sent as-is (``given``) and the typed fields it could have meant (``typed``)."""

    call: str
    given: tuple[str, ...]
    typed: tuple[str, ...]


def keyword_check(call: str, typed: Iterable[str], passthrough: Mapping[str, Any]) -> Optional[KeywordCheck]:
    """The check for a call, or None when every keyword was a typed field (nothing to check)."""
    if not passthrough:
        return None
    return KeywordCheck(call, tuple(passthrough), tuple(typed))


def unknown_keyword_message(check: KeywordCheck, name: str, entry: Model, *, strict: bool, call: str = "") -> str:
    """``widht=`` is not a parameter ... (did you mean ``width=``?), and what happens to it.

    ``call`` is the call as the user wrote it (``client.chat.ask``); without it, the checked call."""
    own = sorted(entry.parameters or {})  # the model's own parameters first, then the call's fields
    close = difflib.get_close_matches(name, own, n=1, cutoff=0.6) or difflib.get_close_matches(
        name, sorted(check.typed), n=1, cutoff=0.6
    )
    hint = f" (did you mean {close[0]}=?)" if close else ""
    if strict:
        fate = "nothing was sent (strict=True)"
    else:
        fate = f"the request is sent anyway (and charged), and the gateway ignores {name}="
    return (
        f"{call or check.call}() got an unknown keyword {name}= for model {entry.id!r}{hint}; {fate}. "
        f"To send a field on purpose, use extra_body={{{name!r}: ...}}"
        + ("." if strict else "; Client(strict=True) stops such calls before they are sent.")
    )


def users_call(name: str) -> str:
    """The call on the user's line that got ``name=`` (``client.chat.ask``), or "" when the line says nothing."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return ""
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno, frame.f_globals)
    keyword = re.search(rf"\b{re.escape(name)}\s*=", line)
    end = keyword.start() if keyword else len(line)
    opened: list[str] = []  # calls whose argument list is still open at ``end`` ("" for a bare parenthesis)
    for match in re.finditer(r"([A-Za-z_][\w.]*)?\s*\(|\)", line[:end]):
        if match.group() == ")":
            if opened:
                opened.pop()
        else:
            opened.append(match.group(1) or "")
    named = [call for call in opened if call]
    return named[-1] if named else ""


def check_keywords(
    client: BaseClient, model: Optional[str], check: Optional[KeywordCheck], entry: Optional[Model] = None
) -> Flow[None]:
    """Warn (or, on a strict client, raise) for each keyword the model does not know."""
    if check is None:
        return
    if entry is None:
        entry = yield from client._catalog_entry(model)
    if entry is None:
        return  # a model missing from the catalog: its parameters are unknown, the gateway answers
    known = set(check.typed) | set(entry.parameters or {})
    for name in check.given:
        if name in known:
            continue
        call = users_call(name)
        if client._options.strict:
            message = unknown_keyword_message(check, name, entry, strict=True, call=call)
            raise BadRequestError(message, status=400, code="unknown_parameter", param=name)
        message = unknown_keyword_message(check, name, entry, strict=False, call=call)
        warnings.warn(message, UnknownParameterWarning, stacklevel=callers_level())
