"""The package root exports exactly its public names, sorted, all present (like httpx's test)."""

from __future__ import annotations

import types

import gatewaykit as gk

DESIGN_NAMES = {
    "Client", "AsyncClient", "ChatStream", "AsyncChatStream", "ChatCompletion", "ChatCompletionChunk",
    "ImageResult", "VideoJob", "MusicJob", "Model", "ModelList", "Usage", "Cost", "Message", "GatewayError",
    "BadRequestError", "PromptTooLongError", "ModelNotFoundError", "AuthenticationError", "InsufficientQuotaError",
    "PermissionDeniedError", "NotFoundError", "RateLimitError", "ServerError", "APIConnectionError",
    "APITimeoutError", "JobFailedError", "BudgetExceededError", "Ledger", "CostRecord", "ledger", "emulator",
    "load_ipython_extension", "UnknownParameterWarning", "Quote", "ConfirmationRequiredError",
}  # fmt: skip


def test_all_is_sorted() -> None:
    """__all__ is kept sorted."""
    assert gk.__all__ == sorted(gk.__all__)


def test_every_name_in_all_is_present() -> None:
    """Every name in __all__ resolves on the package."""
    assert [name for name in gk.__all__ if not hasattr(gk, name)] == []


def test_design_names_are_exported() -> None:
    """The public names fixed by DESIGN.md are all in __all__."""
    assert DESIGN_NAMES - set(gk.__all__) == set()


def test_public_members_are_in_all() -> None:
    """Every public attribute defined by gatewaykit is listed in __all__."""
    public = {
        name
        for name, value in vars(gk).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)  # subpackages are not members
        and getattr(value, "__module__", "").startswith("gatewaykit")
    }
    assert public - set(gk.__all__) == set()


def test_client_package_exports() -> None:
    """gatewaykit.client's __all__ is sorted and present."""
    import gatewaykit.client as client

    assert client.__all__ == sorted(client.__all__) and all(hasattr(client, n) for n in client.__all__)


# Two names for one object, kept for compatibility (each documented as an alias where it is defined).
# AsyncVideoJob / AsyncMusicJob are VideoJob / MusicJob at run time and their awaitable types for checkers.
ALIASES = {"gatewaykit.types": {("AsyncMusicJob", "MusicJob"), ("AsyncVideoJob", "VideoJob")}}


def test_each_exported_thing_has_one_name() -> None:
    """No two names in the root's, the client's or the types' __all__ are one object, but the listed aliases
    (Message, a request message, and ChatMessage, an answer's, are two classes; ChatUI, the widget, and
    chat_ui, the call that makes one, are DESIGN.md's two names)."""
    import importlib

    found = {}
    for package in ("gatewaykit", "gatewaykit.client", "gatewaykit.types"):
        module = importlib.import_module(package)
        names: dict[int, list[str]] = {}
        for name in module.__all__:
            value = getattr(module, name)
            if not isinstance(value, (str, types.ModuleType)):
                names.setdefault(id(value), []).append(name)
        twice = {tuple(sorted(group)) for group in names.values() if len(group) > 1}
        if twice != ALIASES.get(package, set()):
            found[package] = twice
    assert found == {}
