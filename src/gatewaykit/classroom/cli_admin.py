"""The teacher's verbs on the command line: each is one ``gk.Classroom`` call on a running classroom.

    python -m gatewaykit.classroom VERB [ARGS] --url URL [--admin-token TOKEN] [--json]

Each prints one line a person reads (``--json``: what the classroom answered, for
scripts); a failure prints ``error: ...`` on stderr and exits 1. The token comes
from ``--admin-token`` or ``GATEWAYKIT_CLASSROOM_ADMIN_TOKEN``. A new key
(``add``, ``reissue``) is appended to ``--keys-out`` (a CSV readable only by its
owner) and never printed, except in ``--json`` output a script asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Optional, Sequence

from gatewaykit.classroom.admin_client import ADMIN_TOKEN_VARIABLE
from gatewaykit.classroom.keys_file import append_keys
from gatewaykit.money import format_usd, plural

__all__ = ["VERBS", "admin_main", "verbs_help"]

#: verb -> (its arguments as usage shows them, what it does)
VERBS: dict[str, tuple[str, str]] = {
    "status": ("", "open or paused, the window, students, the class's spend"),
    "report": ("[--by student|model|day|assignment]",
               "spend per student (per model, per day) in the current window, or per assignment"),
    "pause": ("[--reason R] [--cancel-jobs]", "the kill switch: every new request is refused (503)"),
    "resume": ("", "open the class again"),
    "cap": ("STUDENT USD [--until ISO]", "a student's own cap in USD ('class': back to the class cap); with "
                                         "--until, a raise that ends then"),
    "revoke": ("STUDENT", "the student's key stops working at once"),
    "reissue": ("STUDENT --keys-out FILE", "a new key for the student (the old one stops working)"),
    "add": ("STUDENT [--cap USD] --keys-out FILE", "a new student, with their own cap or the class cap"),
    "schedule-pause": ("--start ISO --end ISO [--reason R]", "an AI-off window (no zone: the classroom's time)"),
    "audit": ("", "every admin action, with its time and where it came from"),
}


def verbs_help() -> str:
    lines = ["teacher's verbs on a running classroom (each also takes --url URL, --admin-token TOKEN "
             f"or ${ADMIN_TOKEN_VARIABLE}, --json):"]
    for verb, (usage, what) in VERBS.items():
        lines.append(f"  {(verb + ' ' + usage).strip():<44} {what}")
    return "\n".join(lines)


def _usd(text: str) -> Optional[float]:
    if text.strip().lower() in ("class", "none"):
        return None
    try:
        value = float(text.strip().lstrip("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of dollars, such as 2.50 (or 'class'); got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a number of dollars >= 0; got {text!r}")
    return value


def _parser(verb: str) -> argparse.ArgumentParser:
    usage, what = VERBS[verb]
    parser = argparse.ArgumentParser(prog=f"python -m gatewaykit.classroom {verb}", description=what)
    if verb in ("cap", "revoke", "reissue", "add"):
        parser.add_argument("student")
    if verb == "cap":
        parser.add_argument("usd", type=_usd, help="dollars, e.g. 3.50 ('class': back to the class cap)")
        parser.add_argument("--until", default=None, help="ISO 8601, e.g. 2026-12-08T00:00 (no zone: the "
                                                          "classroom's local time): the raise ends then")
    if verb == "schedule-pause":
        parser.add_argument("--start", required=True, help="ISO 8601, e.g. 2026-12-14T09:00 (no zone: the "
                                                          "classroom's local time)")
        parser.add_argument("--end", required=True, help="ISO 8601, as --start")
        parser.add_argument("--reason", default=None, help="what students read")
    if verb == "add":
        parser.add_argument("--cap", type=_usd, default=None, help="the student's own cap in USD (default: the "
                                                                   "class cap)")
    if verb in ("add", "reissue"):
        parser.add_argument("--keys-out", default=None, help="CSV the new key is appended to (readable only by "
                                                             "you); the key is printed nowhere else")
    if verb == "pause":
        parser.add_argument("--reason", default=None, help="what students read")
        parser.add_argument("--cancel-jobs", action="store_true", help="also cancel running video jobs")
    if verb == "report":
        parser.add_argument("--by", choices=("student", "model", "day", "assignment"), default=None)
    parser.add_argument("--url", required=True, help="the classroom's URL (the 'classroom on ...' line)")
    parser.add_argument("--admin-token", default=None,
                        help=f"the token the classroom printed when it started (default: ${ADMIN_TOKEN_VARIABLE})")
    parser.add_argument("--json", action="store_true", help="print what the classroom answered, as JSON")
    return parser


def _status_line(status: dict[str, Any]) -> str:
    state = ("paused" + (f" ({status['reason']})" if status.get("reason") else "")) if status.get("paused") else "open"
    parts = [state, plural(int(status.get("students", 0)), "student"), f"window {status.get('window', 'total')}"]
    if "spent_usd" in status:
        parts.append(f"{format_usd(status['spent_usd'])} spent")
    if status.get("held_usd"):
        parts.append(f"{format_usd(status['held_usd'])} held by requests running")
    if status.get("students_at_cap"):
        parts.append(f"{plural(int(status['students_at_cap']), 'student')} at their cap")
    if status.get("open_jobs"):
        parts.append(f"{plural(int(status['open_jobs']), 'job')} running")
    return " · ".join(parts)


def _report_lines(rows: list[dict[str, Any]], window: str) -> list[str]:
    lines = [f"window: {window}"]
    if not rows:
        return [*lines, "(no rows)"]
    columns = [c for c in rows[0] if c != "last_request"]
    table = [[format_usd(r[c]) if c.endswith("_usd") else str(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in table)) for i, c in enumerate(columns)]
    lines.append("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    lines.extend("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in table)
    return lines


def _run(verb: str, args: argparse.Namespace, room: Any) -> tuple[Any, str]:
    """Do the verb; ``(what to print with --json, the line a person reads)``."""
    if verb == "status":
        status = room.status()
        return status, _status_line(status)
    if verb == "report":
        answer = room._report(args.by)
        return answer, "\n".join(_report_lines(answer["rows"], answer["window"]))
    if verb == "pause":
        answer = room.pause(args.reason, cancel_jobs=args.cancel_jobs)
        said = f": {answer['reason']}" if answer.get("reason") else ""
        cancelled = f" ({plural(answer['cancelled_jobs'], 'video job')} cancelled)" if answer.get("cancelled_jobs") else ""
        return answer, f"paused{said}{cancelled}"
    if verb == "resume":
        answer = room.resume()
        overrode = answer.get("overrode")
        return answer, "resumed" + (f" (overriding the scheduled pause until {overrode['end']})" if overrode else "")
    if verb == "cap":
        answer = room.set_cap(args.student, args.usd, until=args.until)
        whose = "the class cap, " if args.usd is None else ""
        until = f" until {answer['until']}" if answer.get("until") else ""
        return answer, f"{args.student}'s cap is now {whose}{format_usd(answer['cap_usd'])}{until}"
    if verb == "schedule-pause":
        answer = room.schedule_pause(args.start, args.end, args.reason)
        said = f": {answer['reason']}" if answer.get("reason") else ""
        return answer, f"scheduled pause {answer['start']} to {answer['end']}{said}"
    if verb == "audit":
        rows = room._call("GET", "/_classroom/audit")["rows"]
        return {"rows": rows}, "\n".join(
            f"{r['at']}  {r['origin']:<14} {r['action']:<20} {r['student'] or '':<16} {r['detail']}" for r in rows) \
            or "(no admin actions yet)"
    if verb == "revoke":
        room.revoke(args.student)
        return {"student": args.student, "revoked": True}, f"{args.student}'s key is revoked (reissue gives a new one)"
    key = room.add_student(args.student, args.cap) if verb == "add" else room.reissue(args.student)
    where = ""
    if args.keys_out:
        append_keys(args.keys_out, [(args.student, key)])
        where = f"; the key is appended to {args.keys_out}"
    done = f"added {args.student}" + ("" if args.cap is None else f" with a cap of {format_usd(args.cap)}") \
        if verb == "add" else f"new key for {args.student} (the old one stops working)"
    return {"student": args.student, "key": key}, done + where


def admin_main(verb: str, argv: Sequence[str], out: Callable[[str], None] = print) -> int:
    """Run one verb (``argv``: what follows it); the exit status."""
    from gatewaykit.classroom.control_plane import connect
    from gatewaykit.errors import GatewayError

    parser = _parser(verb)
    args = parser.parse_args(argv)
    keys_out = getattr(args, "keys_out", None)
    if verb in ("add", "reissue") and not keys_out and not args.json:
        parser.error("pass --keys-out FILE (the new key is appended there, readable only by you) or --json "
                     "(the key is in the JSON printed)")
    if keys_out and os.path.isdir(keys_out):
        parser.error(f"--keys-out {keys_out} is a folder; name a CSV file")
    try:
        with connect(args.url, args.admin_token or None, _origin="cli") as room:
            answer, line = _run(verb, args, room)
    except GatewayError as exc:
        print(f"error: {exc.message}".replace("admin_token=", "--admin-token"), file=sys.stderr)
        return 1
    except KeyError as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 1
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out(json.dumps(answer, indent=2) if args.json else line)
    return 0
