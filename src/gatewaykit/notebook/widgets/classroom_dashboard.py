"""``room.dashboard()``: a live view of a classroom for the teacher's notebook.

The kill switch (Pause with a reason, Resume) and the class's totals at the top
(spent of the caps, held, students at their cap, requests a cap refused, the top
spenders; a red line when the teacher's paid balance at the gateway is used up),
then one bar per student (spent, held by requests still running, and what is
left of the cap) in a table that scrolls under them, sortable by name, spend or
what is left, with a filter for students near their cap; refreshed every few
seconds while the classroom runs (40 to 400 students). The HTML comes from
:func:`dashboard_html`, a pure function of the report rows and status; student
names are escaped. Without ipywidgets or a kernel the
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

__all__ = ["ClassroomDashboard", "DashboardSnapshot", "dashboard", "dashboard_html", "near_cap", "shown_rows"]

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


#: How a teacher may order the rows: the choice's label and the key it sorts by.
SORTS = {"student": "name", "spent": "spend, most first", "remaining": "remaining, least first"}
#: A student is near their cap when this share of it is spent or held.
NEAR_CAP = 0.8
#: The table scrolls inside this height (the totals and the controls above it stay in view).
TABLE_HEIGHT = "26em"


def near_cap(row: dict[str, Any]) -> bool:
    """Spent and held reach :data:`NEAR_CAP` of the cap (a cap of $0 is reached at once)."""
    cap = row["cap_usd"]
    return cap <= 0 or row["spent_usd"] + row.get("held_usd", 0) >= cap * NEAR_CAP


def shown_rows(rows: list[dict[str, Any]], sort: str = "student", near_cap_only: bool = False) -> list[dict[str, Any]]:
    """The rows a teacher asked to see, in their order (``sort``: a key of :data:`SORTS`)."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}; got {sort!r}")
    picked = [r for r in rows if near_cap(r)] if near_cap_only else list(rows)
    if sort == "spent":
        picked.sort(key=lambda r: (-r["spent_usd"], r["student"]))
    elif sort == "remaining":
        picked.sort(key=lambda r: (r["remaining_usd"], r["student"]))
    return picked


def _head(rows: list[dict[str, Any]], status: dict[str, Any]) -> str:
    """The class in one line: stopped, paused or open, then its totals (spent of the caps, held, at cap)."""
    if status.get("stopped"):
        head = '<b style="opacity:.7">Stopped</b>'
    elif status.get("paused"):
        reason = f": {esc(status['reason'])}" if status.get("reason") else ""
        head = f'<b style="color:#d9534f">Paused{reason}</b>'
    else:
        head = '<b style="color:#2e7d32">Open</b>'
    window = status.get("window", "total")
    active = [r for r in rows if not r.get("revoked")]
    spent = sum(r["spent_usd"] for r in rows)
    held = sum(r.get("held_usd", 0) for r in rows)
    at_cap = sum(1 for r in active if r["remaining_usd"] <= r["cap_usd"] / 1000)
    hits = sum(r.get("cap_hits", 0) for r in rows)
    parts = [head, plural(len(rows), "student"),
             f"{esc(format_usd(spent))} spent of {esc(format_usd(sum(r['cap_usd'] for r in active)))} in caps"]
    if held:
        parts.append(f"{esc(format_usd(held))} held by requests running")
    parts.append(f'<span class="gk-at-cap">{at_cap} at their cap</span>')
    if hits:
        parts.append(f"{plural(hits, 'request')} refused by a cap")
    if window != "total":
        parts.append(f"window {esc(window)}")
    top = sorted((r for r in rows if r["spent_usd"] > 0), key=lambda r: (-r["spent_usd"], r["student"]))[:5]
    line = " &middot; ".join(parts)
    if top:
        spenders = ", ".join(f"{esc(r['student'])} {esc(format_usd(r['spent_usd']))}" for r in top)
        line += f'<div class="gk-top-spenders" style="opacity:.8">Top spenders: {spenders}</div>'
    return line


def _row(row: dict[str, Any]) -> str:
    name = esc(row["student"]) + (' <span style="opacity:.6">(revoked)</span>' if row.get("revoked") else "")
    full = row["cap_usd"] <= 0 or row["spent_usd"] >= row["cap_usd"] * 0.999
    left = "cap reached" if full else f"{esc(format_usd(row['remaining_usd']))} left"
    held = f", {esc(format_usd(row['held_usd']))} running" if row.get("held_usd") else ""
    counts = plural(row["requests"], "request") + (f', {row["refused"]} refused' if row["refused"] else "")
    if row.get("balance_refused"):
        counts += f', {row["balance_refused"]} not paid (no balance)'
    if row.get("cap_hits"):
        counts += f' ({plural(row["cap_hits"], "cap hit")})'
    return (f'<tr class="gk-student"><td style="{style.CELL}">{name}</td>'
            f'<td style="{style.CELL}">{_bar(row["spent_usd"], row.get("held_usd", 0), row["cap_usd"])}</td>'
            f'<td style="{style.CELL}">{esc(format_usd(row["spent_usd"]))} of {esc(format_usd(row["cap_usd"]))}'
            f'{held}</td><td style="{style.CELL}">{left}</td><td style="{style.CELL}">{counts}</td></tr>')


def dashboard_html(rows: list[dict[str, Any]], status: dict[str, Any], sort: str = "student",
                   near_cap_only: bool = False) -> str:
    """The dashboard's HTML: the class and its totals, then a row per student (``sort``, ``near_cap_only``: as
    :func:`shown_rows`) in a table that scrolls under the totals."""
    picked = shown_rows(rows, sort, near_cap_only)
    if picked:
        table = (f'<div class="gk-students" style="max-height:{TABLE_HEIGHT};overflow-y:auto">'
                 f'<table style="{style.TABLE}">{"".join(_row(r) for r in picked)}</table></div>')
    elif rows:
        table = f"<i>No student has used {NEAR_CAP:.0%} of their cap.</i>"
    else:
        table = "<i>No students yet.</i>"
    shown = (f'<div class="gk-shown" style="{style.FOOTER}">showing {len(picked)} of {len(rows)}: near their cap '
             f"({NEAR_CAP:.0%} or more used)</div>") if near_cap_only else ""
    return (f'<div class="gk-classroom" style="{style.BOX}"><div style="margin-bottom:.4em">{_head(rows, status)}'
            f"</div>{_balance_line(status)}{shown}{table}</div>")


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
        self.sort = widgets.Dropdown(options=[(label, key) for key, label in SORTS.items()], value="student",
                                     description="Sort by", style={"description_width": "initial"},
                                     layout=widgets.Layout(width="17em"))
        self.near_cap_only = widgets.Checkbox(value=False, description=f"only students near their cap "
                                              f"({NEAR_CAP:.0%} used)", indent=False)
        self.sort.observe(lambda _: self._show(), names="value")
        self.near_cap_only.observe(lambda _: self._show(), names="value")
        # the kill switch first, then how the rows are shown, then the class (its totals above its rows)
        controls = widgets.HBox([self.pause_button, self.reason, self.resume_button])
        view_controls = widgets.HBox([self.sort, self.near_cap_only])
        self.widget = widgets.VBox([controls, view_controls, self.view, self.message])
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
            self._show()
            # Resume only while paused (an open class has nothing to resume); Pause stays: pausing again
            # changes the reason students are shown.
            self.resume_button.disabled = not self._last[1].get("paused")
        except Exception as exc:  # noqa: BLE001 - a refresh that fails says so and tries again later
            self.message.value = f'<div style="{style.ERROR_BOX}">Could not refresh: {esc(type(exc).__name__)}</div>'

    def _show(self) -> None:
        """The last figures, sorted and filtered as the controls say."""
        rows, status = self._last
        self.view.value = dashboard_html(rows, status, self.sort.value, self.near_cap_only.value)

    def _show_stopped(self) -> None:
        """The figures as the class stopped, headed "Stopped" (the last refresh when the room kept none); the
        buttons can do nothing more, so they are greyed."""
        rows, status = getattr(self.room, "final_figures", None) or self._last
        self._last = (rows, {**status, "stopped": True})
        self._show()
        self.message.value = f'<div style="{style.FOOTER}">The classroom has stopped; these are its last figures.</div>'
        for control in (self.pause_button, self.resume_button, self.reason):  # sorting still works
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
