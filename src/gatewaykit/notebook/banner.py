"""The visible notice that results come from the offline gateway."""

from __future__ import annotations

from gatewaykit.notebook.html import render_offline_banner_html

__all__ = ["show_offline_banner"]

_shown: set[str] = set()


def show_offline_banner(base_url: str, *, implicit: bool = True, once: bool = True) -> None:
    """Display the offline-gateway banner in the current cell (once per URL unless ``once=False``).

    ``implicit`` is True when the client fell back because no key was found
    (the banner then says so), False for an explicit ``Client(offline=True)``.
    """
    if once and base_url in _shown:
        return
    _shown.add(base_url)
    from IPython.display import display

    reason = "No API key was found, so " if implicit else ""
    plain = (
        f"{reason}gatewaykit uses the OFFLINE gateway at {base_url}: synthetic results from the "
        "offline gateway, not real model output; costs are not real."
    )
    display({"text/plain": plain, "text/html": render_offline_banner_html(base_url, implicit=implicit)}, raw=True)
