"""Where the client's key and base URL come from, and the offline fallback.

Order: ``api_key=`` argument, the ``SVC_API_KEY`` environment variable, then a
Colab secret named ``SVC_API_KEY``; ``base_url=``, then ``SVC_BASE_URL``.

- ``offline=True``: the process-wide offline gateway (``gatewaykit.emulator.shared()``),
  announced with one ``logging`` INFO line (you asked for it) and, in a running
  notebook kernel, the notebook layer's banner.
- No key anywhere: the same offline gateway, announced with an
  :class:`OfflineGatewayWarning` (synthetic results must never pass for real
  ones) and the banner in a notebook.
- A key but no base URL, or ``base_url=`` but no key: :class:`ConfigurationError`.

The key is kept only in the request headers; nothing here logs or shows it.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Optional

from gatewaykit.client.notebook_hooks import notebook_function
from gatewaykit.errors import ConfigurationError

__all__ = ["OfflineGatewayWarning", "Settings", "resolve_settings"]

logger = logging.getLogger("gatewaykit")

KEY_VARIABLE = "SVC_API_KEY"
BASE_URL_VARIABLE = "SVC_BASE_URL"


class OfflineGatewayWarning(UserWarning):
    """The client talks to the built-in offline gateway: every result is synthetic."""


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: str = field(repr=False)
    offline: bool
    key_source: str  # "argument", "environment", "colab secret" or "offline gateway"


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
) -> Settings:
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
        return _offline_settings(implicit=True)
    url = base_url or os.environ.get(BASE_URL_VARIABLE)
    if not url:
        raise ConfigurationError(
            f"An API key was found ({source}) but no base URL: set {BASE_URL_VARIABLE} "
            "(the gateway host, e.g. https://gateway.example.com) or pass base_url="
        )
    return Settings(normalise_base_url(url), key, False, source)


def _offline_settings(*, implicit: bool) -> Settings:
    from gatewaykit import emulator

    server = emulator.shared()
    url = normalise_base_url(server.base_url)
    if implicit:
        warnings.warn(
            OfflineGatewayWarning(
                f"No API key found ({KEY_VARIABLE} is not set): using the built-in OFFLINE "
                f"gateway at {url}. Every answer, image, video, song and cost is synthetic. "
                "Pass offline=True to silence this warning, or set SVC_API_KEY and SVC_BASE_URL."
            ),
            stacklevel=5,  # the line that built the Client
        )
    else:
        logger.info("gatewaykit: using the built-in offline gateway at %s (synthetic results)", url)
    show_offline_banner(url, implicit=implicit)
    return Settings(url, server.api_key, True, "offline gateway")


def show_offline_banner(base_url: str, *, implicit: bool) -> None:
    """In a running notebook kernel, the notebook layer's offline banner (``notebook.banner.show_offline_banner``)."""
    show = notebook_function("banner", "show_offline_banner")
    if show is None:
        return
    try:
        show(base_url, implicit=implicit)
    except Exception:  # noqa: BLE001 - a display problem must not stop the client
        logger.debug("offline banner could not be shown", exc_info=True)
