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
