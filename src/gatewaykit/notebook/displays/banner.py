"""The visible notice that results come from the offline gateway: one banner per kernel process."""

from __future__ import annotations

import os

from gatewaykit.notebook.html_views.html import render_offline_banner_html
from gatewaykit.notebook.html_views.style import aligned_in_exports
from gatewaykit.client.core.grading_switches import current_switches

__all__ = ["show_offline_banner"]

_shown = False  # the banner has been shown in this process


def served_as_app() -> bool:
    """True in a kernel Voilà started for a page (it sets ``VOILA_REQUEST_URL``): users there see no code."""
    return bool(os.environ.get("VOILA_REQUEST_URL"))


def show_offline_banner(base_url: str, *, implicit: bool = True, once: bool = True) -> None:
    """Display the offline-gateway banner in the current cell (once per process unless ``once=False``).

    Every client, ``AsyncClient`` and ``%%chat`` on the offline gateway asks for it; only the
    first shows it. ``implicit`` is True when the client fell back because no key was found
    (the banner then says so), False for an explicit ``Client(offline=True)``.
    """
    global _shown
    if once and _shown:
        return
    _shown = True
    from IPython.display import display

    switches = current_switches().describe() if current_switches().offline else ""
    app = served_as_app()
    if switches:  # a grader's GATEWAYKIT_OFFLINE=1; no URL (its port changes from run to run)
        plain = (
            f"{switches} is set: every client uses the OFFLINE gateway on this machine, whatever key or URL the "
            "code gives: synthetic results, not real model output; costs are not real."
        )
    elif app:
        plain = "Offline gateway: synthetic results, not real model output; costs are not real."
    else:
        reason = "No API key was found, so " if implicit else ""
        plain = (
            f"{reason}gatewaykit uses the OFFLINE gateway at {base_url}: synthetic results from the "
            "offline gateway, not real model output; costs are not real."
        )
    html = render_offline_banner_html(base_url, implicit=implicit, switches=switches, app=app)
    display(aligned_in_exports({"text/plain": plain, "text/html": html}), raw=True)
