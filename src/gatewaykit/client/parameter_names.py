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
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional

from gatewaykit.client.config import callers_level
from gatewaykit.errors import BadRequestError

if TYPE_CHECKING:
    from gatewaykit.client.base import BaseClient
    from gatewaykit.client.flows import Flow
    from gatewaykit.types import Model

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


def unknown_keyword_message(check: KeywordCheck, name: str, entry: Model, *, strict: bool) -> str:
    """``widht=`` is not a parameter ... (did you mean ``width=``?), and what happens to it."""
    own = sorted(entry.parameters or {})  # the model's own parameters first, then the call's fields
    close = difflib.get_close_matches(name, own, n=1, cutoff=0.6) or difflib.get_close_matches(
        name, sorted(check.typed), n=1, cutoff=0.6
    )
    hint = f" (did you mean {close[0]}=?)" if close else ""
    fate = "nothing was sent" if strict else "it is sent as-is and the gateway will ignore it"
    return (
        f"{check.call}() got an unknown keyword {name}= for model {entry.id!r}{hint}; {fate}. "
        f"To send a field on purpose, use extra_body={{{name!r}: ...}}."
    )


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
        if client._options.strict:
            message = unknown_keyword_message(check, name, entry, strict=True)
            raise BadRequestError(message, status=400, code="unknown_parameter", param=name)
        message = unknown_keyword_message(check, name, entry, strict=False)
        warnings.warn(message, UnknownParameterWarning, stacklevel=callers_level())
