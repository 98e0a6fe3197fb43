"""The visible notice of which gateway a notebook uses, once per kernel process: the offline gateway's banner,
or the class a student's key belongs to (their name, what is left); and the stored notebooks' neutral line."""

from __future__ import annotations

import os

from gatewaykit.notebook.html_views.html import render_offline_banner_html
from gatewaykit.notebook.html_views.style import NO_MATH, aligned_in_exports, esc
from gatewaykit.error_text import mask_url
from gatewaykit.client.core.grading_switches import current_switches

__all__ = ["GATEWAY_CHOSEN_AT_RUN", "gateway_chosen_at_run", "show_class_banner", "show_offline_banner"]

_shown = False  # the banner has been shown in this process
_class_shown = False  # the class line has been shown in this process

GATEWAY_CHOSEN_AT_RUN = (
    "The gateway is chosen when this cell runs: with SVC_API_KEY and SVC_BASE_URL set, the real gateway "
    "(or your class: its address, your name and what is left of your budget); without a key, the built-in "
    "offline gateway. The outputs stored in this notebook come from the offline gateway: synthetic, not real "
    "model output."
)


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


def gateway_chosen_at_run() -> dict[str, str]:
    """The first cell's stored output in the demo notebooks (``notebooks/build.py``): what a reader sees before
    running, which names no gateway, since the gateway is chosen when the cell runs."""
    html = (f'<div class="gk-gateway-choice" style="border-left:3px solid #888;padding:.3em .8em">'
            f"{esc(GATEWAY_CHOSEN_AT_RUN)}</div>")
    return aligned_in_exports({"text/plain": GATEWAY_CHOSEN_AT_RUN, "text/html": html})


def class_line(base_url: str, api_key: str) -> tuple[str, str]:
    """``Class at URL: you are NAME; $1.58 left of your $2.00 class budget (...)`` (plain, HTML), or a line saying
    the class did not answer."""
    from gatewaykit.classroom.student_budget import fetch_budget
    from gatewaykit.errors import GatewayError

    shown_url = mask_url(base_url) or base_url
    try:
        budget = fetch_budget(base_url, api_key, timeout=5.0)
    except GatewayError as error:
        plain = f"Class at {shown_url}: your budget could not be read ({error})"
        return plain, f'<div class="gk-class-banner {NO_MATH}">{esc(plain)}</div>'
    student = str(budget.get("student", "?"))
    summary = budget.summary()
    plain = f"Class at {shown_url}: you are {student}; {summary}."
    colour = "#d9534f" if budget.get("paused") or not budget.get("remaining_usd") else "#2e7d32"
    html = (f'<div class="gk-class-banner {NO_MATH}" style="border-left:3px solid {colour};padding:.3em .8em">'
            f"<strong>Class</strong> at <code>{esc(shown_url)}</code>: you are <strong>{esc(student)}</strong>; "
            f"{esc(summary)}.</div>")
    return plain, html


def show_class_banner(base_url: str, api_key: str, *, once: bool = True) -> None:
    """Display where a student is (the class, their name, what is left) in the current cell, once per process."""
    global _class_shown
    if once and _class_shown:
        return
    _class_shown = True
    from IPython.display import display

    plain, html = class_line(base_url, api_key)
    display(aligned_in_exports({"text/plain": plain, "text/html": html}), raw=True)
