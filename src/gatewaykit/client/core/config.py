"""Where the client's key and base URL come from, and the offline fallback.

Order: the ``api_key=`` / ``base_url=`` arguments, then ``SVC_API_KEY`` / ``SVC_BASE_URL``, then Colab
secrets of those names. ``offline=True``, no key anywhere, or ``GATEWAYKIT_OFFLINE=1`` give the offline
gateway (announced); a key without a base URL, or a URL without a key, is a ``ConfigurationError``.
The key is kept only in the request headers. The full rules: ``docs/internals.md``.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

from gatewaykit.client.core.display import in_kernel, in_marimo
from gatewaykit.errors import ConfigurationError

__all__ = [
    "ConnectionSettings",
    "OfflineGateway",
    "OfflineGatewayProvider",
    "OfflineGatewayWarning",
    "callers_level",
    "offline_gateway_settings",
    "resolve_settings",
    "set_offline_gateway_provider",
]

logger = logging.getLogger("gatewaykit")

KEY_VARIABLE = "SVC_API_KEY"
BASE_URL_VARIABLE = "SVC_BASE_URL"


class OfflineGatewayWarning(UserWarning):
    """The client talks to the built-in offline gateway: every result is synthetic."""


@dataclass(frozen=True)
class ConnectionSettings:
    """Where a client sends its requests, and with which key."""

    base_url: str
    api_key: str = field(repr=False)
    offline: bool
    key_source: str  # "argument", "environment", "colab secret" or "offline gateway"
    offline_implicit: bool = False  # offline because no key was found (not asked for)


class OfflineGateway(Protocol):
    """A running offline gateway: where it listens and the key it accepts."""

    @property
    def base_url(self) -> str: ...

    @property
    def api_key(self) -> str: ...


OfflineGatewayProvider = Callable[[], OfflineGateway]
"""Starts (or returns the running) offline gateway; raises ConfigurationError when it cannot."""

OFFLINE_EXTRA_HINT = 'pip install "gatewaykit[offline]"'


def _no_offline_gateway() -> OfflineGateway:
    raise ConfigurationError(
        "No API key was found and the offline gateway is not installed: set SVC_API_KEY and "
        f"SVC_BASE_URL (or pass api_key= and base_url=), or install it with {OFFLINE_EXTRA_HINT}"
    )


_offline_provider: OfflineGatewayProvider = _no_offline_gateway


def set_offline_gateway_provider(provider: OfflineGatewayProvider) -> None:
    """Install what ``offline=True`` (or no key) connects to; the composition root calls this once."""
    global _offline_provider
    _offline_provider = provider


def normalise_base_url(url: str) -> str:
    """The host without a trailing slash or ``/v1`` (OpenAI-style code passes ``.../v1``)."""
    url = url.strip().rstrip("/")
    if url.endswith("/v1"):
        url = url[: -len("/v1")].rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigurationError(f"base_url must start with http:// or https:// (got {url!r})")
    return url


def colab_secret(name: str) -> Optional[str]:
    """A Colab secret, only when running in Colab; any Colab error means 'no secret'."""
    if "google.colab" not in sys.modules:
        try:
            import google.colab  # noqa: F401
        except Exception:  # noqa: BLE001 - not Colab
            return None
    try:
        from google.colab import userdata  # type: ignore[import-not-found]

        value = userdata.get(name)
    except Exception:  # noqa: BLE001 - SecretNotFoundError, NotebookAccessError, ...
        return None
    return value or None


def resolve_settings(
    api_key: Optional[str], base_url: Optional[str], offline: bool
) -> ConnectionSettings:
    if offline:
        return _offline_settings(implicit=False)
    key, source = api_key, "argument"
    if not key:
        key, source = os.environ.get(KEY_VARIABLE) or None, "environment"
    if not key:
        key, source = colab_secret(KEY_VARIABLE), "colab secret"
    if not key:
        if base_url:
            raise ConfigurationError(
                f"base_url= was given but no API key: pass api_key=, set {KEY_VARIABLE}, "
                "or use offline=True for the built-in offline gateway"
            )
        if os.environ.get(BASE_URL_VARIABLE, "").strip():
            # A gateway was named (a class's, say) and its key forgotten: going offline quietly would
            # give synthetic answers to someone who meant to reach it.
            raise ConfigurationError(
                f"{BASE_URL_VARIABLE} is set but no API key was found: set {KEY_VARIABLE} to the key for that "
                f"gateway (in a class, the key your teacher gave you), or unset {BASE_URL_VARIABLE} "
                "(or pass offline=True) to use the built-in offline gateway"
            )
        return _offline_settings(implicit=True)
    check_key(key, source)
    url = base_url or os.environ.get(BASE_URL_VARIABLE) or colab_secret(BASE_URL_VARIABLE)
    if not url:
        raise ConfigurationError(
            f"An API key was found ({source}) but no base URL: set {BASE_URL_VARIABLE} "
            "(or a Colab secret of that name: the gateway host, e.g. https://gateway.example.com) or pass base_url="
        )
    return ConnectionSettings(normalise_base_url(url), key, False, source)


def check_key(key: str, source: str) -> None:
    """Refuse a key an HTTP header cannot carry (whitespace, non-ASCII), naming where it came from, never it."""
    for position, character in enumerate(key):
        if character.isspace() or not character.isascii() or not character.isprintable():
            what = "whitespace (a space or a line break)" if character.isspace() else "a non-ASCII or control character"
            raise ConfigurationError(
                f"The API key ({source}) holds {what} at character {position + 1} of {len(key)}: "
                "an HTTP header cannot carry it. Copy the key again, without spaces, quotes or line breaks."
            )


def offline_gateway_settings(*, switched: bool = False) -> ConnectionSettings:
    """The offline gateway, asked for (``offline=True``) or imposed by ``GATEWAYKIT_OFFLINE=1`` (``switched``)."""
    if not switched:
        return _offline_settings(implicit=False)
    server = _offline_provider()
    url = normalise_base_url(server.base_url)
    logger.info("gatewaykit: GATEWAYKIT_OFFLINE=1: every client uses the built-in offline gateway at %s "
                "(synthetic results; keys, URLs and transports given to clients are not used)", url)
    return ConnectionSettings(url, server.api_key, True, "offline gateway")


def _offline_settings(*, implicit: bool) -> ConnectionSettings:
    server = _offline_provider()
    url = normalise_base_url(server.base_url)
    if implicit and not (in_kernel() or in_marimo()):  # in a kernel or marimo, the display's banner says it (once)
        warnings.warn(
            OfflineGatewayWarning(
                f"No API key found ({KEY_VARIABLE} is not set): using the built-in OFFLINE "
                f"gateway at {url}. Every answer, image, video, song and cost is synthetic. "
                "Pass offline=True to silence this warning, or set SVC_API_KEY and SVC_BASE_URL."
            ),
            stacklevel=callers_level(),  # the line that built the Client
        )
    else:
        logger.info("gatewaykit: using the built-in offline gateway at %s (synthetic results)", url)
    return ConnectionSettings(url, server.api_key, True, "offline gateway", offline_implicit=implicit)


# gatewaykit/ itself (this file is gatewaykit/client/core/config.py): every frame of the package is skipped,
# the public-call wrapper in gatewaykit/error_text.py and the job methods in gatewaykit/types/ included.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def callers_level() -> int:
    """The ``stacklevel`` of the first frame outside gatewaykit: the user's line (sync or awaited)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
