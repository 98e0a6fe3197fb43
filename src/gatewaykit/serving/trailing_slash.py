"""A path with one trailing slash is served as the path without it, by both servers."""

from __future__ import annotations

from starlette.types import Scope

SENT_PATH = "gatewaykit.sent_path"  # scope key: the path before without_trailing_slash


def without_trailing_slash(scope: Scope) -> Scope:
    """``/v1/chat/completions/`` is served as ``/v1/chat/completions`` (one slash only).

    Starlette would answer an empty 307 redirect instead, which clients do not follow for a POST (httpx
    follows none by default): the client got an empty body where it expected an answer or an envelope.
    """
    path = scope["path"]
    if len(path) > 1 and path.endswith("/"):
        scope = {**scope, "path": path[:-1], SENT_PATH: path}
        raw = scope.get("raw_path")
        if isinstance(raw, bytes) and raw.endswith(b"/"):
            scope["raw_path"] = raw[:-1]
    return scope
