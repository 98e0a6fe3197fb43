"""``room.dashboard()``: a live view of a classroom for the teacher's notebook.

One bar per student (spent, held by requests still running, and what is left of
the cap), refreshed every few seconds while the classroom runs, with Pause (and a
reason) and Resume; a red line when the teacher's paid balance at the gateway
is used up. The HTML comes from :func:`dashboard_html`, a pure function of the
report rows and status; student names are escaped. Without ipywidgets or a kernel the
dashboard is that HTML once (a snapshot), with a line saying why it is not live.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Optional

from gatewaykit.money import format_usd, plural
from gatewaykit.notebook.cell_output.kernel import route_to_frontend_subshell
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.style import esc

__all__ = ["ClassroomDashboard", "DashboardSnapshot", "dashboard", "dashboard_html"]

_BAR = "display:inline-block;height:0.9em;vertical-align:middle"


def _bar(spent: float, held: float, cap: float) -> str:
    width = 16.0  # em
    scale = width / cap if cap > 0 else 0.0
    used = min(width, spent * scale)
    pending = min(width - used, held * scale)
    full = cap > 0 and spent >= cap * 0.999
    colour = "#d9534f" if full else ("#e0a800" if cap > 0 and spent >= cap * 0.8 else "#4a90d9")
    return (f'<span style="{_BAR};width:{width}em;background:rgba(128,128,128,0.18);border-radius:3px;'
            f'position:relative;overflow:hidden">'
            f'<span style="{_BAR};position:absolute;left:0;width:{used:.2f}em;background:{colour}"></span>'
            f'<span style="{_BAR};position:absolute;left:{used:.2f}em;width:{pending:.2f}em;background:{colour};'
            f'opacity:0.4"></span></span>')


def dashboard_html(rows: list[dict[str, Any]], status: dict[str, Any]) -> str:
    """The dashboard's HTML: a line on the class (stopped, paused or open, window), then a row per student."""
    if status.get("stopped"):
        head = '<b style="opacity:.7">Stopped</b>'
    elif status.get("paused"):
        reason = f": {esc(status['reason'])}" if status.get("reason") else ""
        head = f'<b style="color:#d9534f">Paused{reason}</b>'
    else:
        head = '<b style="color:#2e7d32">Open</b>'
    window = status.get("window", "total")
    spent = sum(r["spent_usd"] for r in rows)
    head += (f' &middot; {plural(len(rows), "student")} &middot; {esc(format_usd(spent))} spent'
             + ("" if window == "total" else f" &middot; window {esc(window)}"))
    cells = []
    for row in rows:
        name = esc(row["student"]) + (' <span style="opacity:.6">(revoked)</span>' if row.get("revoked") else "")
        full = row["cap_usd"] > 0 and row["spent_usd"] >= row["cap_usd"] * 0.999
        left = "cap reached" if full else f"{esc(format_usd(row['remaining_usd']))} left"
        held = f", {esc(format_usd(row['held_usd']))} running" if row.get("held_usd") else ""
        cells.append(f'<tr><td style="{style.CELL}">{name}</td>'
                     f'<td style="{style.CELL}">{_bar(row["spent_usd"], row.get("held_usd", 0), row["cap_usd"])}</td>'
                     f'<td style="{style.CELL}">{esc(format_usd(row["spent_usd"]))} of '
                     f'{esc(format_usd(row["cap_usd"]))}{held}</td>'
                     f'<td style="{style.CELL}">{left}</td>'
                     f'<td style="{style.CELL}">{plural(row["requests"], "request")}'
                     + (f', {row["refused"]} refused' if row["refused"] else "")
                     + (f', {row["balance_refused"]} not paid (no balance)' if row.get("balance_refused") else "")
                     + "</td></tr>")
    table = f'<table style="{style.TABLE}">{"".join(cells)}</table>' if cells else '<i>No students yet.</i>'
    return (f'<div class="gk-classroom" style="{style.BOX}"><div style="margin-bottom:.4em">{head}</div>'
            f'{_balance_line(status)}{table}</div>')


def _balance_line(status: dict[str, Any]) -> str:
    """A red line when the teacher's paid balance at the gateway is used up (empty otherwise)."""
    balance = status.get("upstream_balance") or {}
    if not balance.get("exhausted"):
        return ""
    since = balance.get("since")
    when = f" since {time.strftime('%Y-%m-%d %H:%M', time.localtime(since))}" if since else ""
    return (f'<div class="gk-classroom-balance" style="color:#d9534f;font-weight:bold;margin-bottom:.4em">'
            f"Your paid balance at the gateway is used up{esc(when)}: it refuses every request of the class "
            "(students are told to tell you; nothing is charged to them). Add credit at the gateway.</div>")


class DashboardSnapshot:
    """The dashboard as HTML once, where widgets cannot show (``reason`` says why)."""

    def __init__(self, html: str, reason: str) -> None:
        self.html, self.reason = html, reason

    def _repr_html_(self) -> str:
        return self.html + f'<div style="{style.FOOTER}">{esc(self.reason)}</div>'

    def __repr__(self) -> str:
        return f"classroom dashboard (a snapshot): {self.reason}"


class ClassroomDashboard:
    """The live widget: ``.widget`` (an ipywidgets VBox), ``.refresh()``, ``.close()``."""

    def __init__(self, room: Any, widgets: Any, refresh_seconds: float) -> None:
        self.room = room
        self.view = widgets.HTML()
        self.reason = widgets.Text(placeholder="reason shown to students (optional)",
                                   layout=widgets.Layout(width="22em"))
        self.pause_button = widgets.Button(description="Pause class", button_style="danger", icon="pause")
        self.resume_button = widgets.Button(description="Resume", button_style="success", icon="play")
        self.pause_button.on_click(lambda _: self._act(lambda: room.pause(self.reason.value or None)))
        self.resume_button.on_click(lambda _: self._act(room.resume))
        self.message = widgets.HTML()
        controls = widgets.HBox([self.pause_button, self.reason, self.resume_button])
        self.widget = widgets.VBox([self.view, controls, self.message])
        route_to_frontend_subshell(self.widget)  # Pause works while another cell runs
        self._stop = threading.Event()
        self._last: tuple[list[dict[str, Any]], dict[str, Any]] = ([], {})
        self.refresh()
        self._thread = threading.Thread(target=self._loop, args=(refresh_seconds,), name="classroom-dashboard",
                                        daemon=True)
        self._thread.start()

    def _act(self, action: Any) -> None:
        try:
            action()
            self.message.value = ""
        except Exception as exc:  # noqa: BLE001 - shown in the widget, not raised into a callback
            self.message.value = f'<div style="{style.ERROR_BOX}">{esc(exc)}</div>'
        self.refresh()

    def refresh(self) -> None:
        if not self.room.running:
            self._show_stopped()
            return
        try:
            self._last = (self.room.report_rows(), self.room.status())
            self.view.value = dashboard_html(*self._last)
            # Resume only while paused (an open class has nothing to resume); Pause stays: pausing again
            # changes the reason students are shown.
            self.resume_button.disabled = not self._last[1].get("paused")
        except Exception as exc:  # noqa: BLE001 - a refresh that fails says so and tries again later
            self.message.value = f'<div style="{style.ERROR_BOX}">Could not refresh: {esc(type(exc).__name__)}</div>'

    def _show_stopped(self) -> None:
        """The figures as the class stopped, headed "Stopped" (the last refresh when the room kept none); the
        buttons can do nothing more, so they are greyed."""
        rows, status = getattr(self.room, "final_figures", None) or self._last
        self.view.value = dashboard_html(rows, {**status, "stopped": True})
        self.message.value = f'<div style="{style.FOOTER}">The classroom has stopped; these are its last figures.</div>'
        for control in (self.pause_button, self.resume_button, self.reason):
            control.disabled = True
        self._stop.set()

    def _loop(self, seconds: float) -> None:
        while not self._stop.wait(seconds):
            self.refresh()

    def close(self) -> None:
        self._stop.set()
        self.widget.close()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        snapshot = dashboard_html(self.room.report_rows(), self.room.status()) if self.room.running else ""
        return {"text/plain": "(the classroom dashboard: a live ipywidgets view)",
                "text/html": snapshot, "application/vnd.jupyter.widget-view+json": view}


def dashboard(room: Any, refresh_seconds: float = 2.0) -> Any:
    """A :class:`ClassroomDashboard`, or a :class:`DashboardSnapshot` where widgets cannot show."""
    reason: Optional[str] = None
    try:
        import ipywidgets
    except ImportError:
        reason = "The live dashboard needs ipywidgets: pip install 'gatewaykit[notebook]'."
    if reason is None:
        from gatewaykit.notebook.cell_output.kernel import in_kernel

        if not in_kernel():
            reason = "The live dashboard shows in a Jupyter kernel; this is a snapshot."
    if reason is not None:
        return DashboardSnapshot(dashboard_html(room.report_rows(), room.status()), reason)
    from gatewaykit.notebook.job_views.cancel import enable_colab_widgets

    enable_colab_widgets()
    return ClassroomDashboard(room, ipywidgets, refresh_seconds)
