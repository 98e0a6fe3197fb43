"""``python -m gatewaykit.classroom``: run a classroom, or pause / resume / report a running one.

    python -m gatewaykit.classroom --upstream URL|offline --roster roster.csv [--cap 2.00]
        [--window total|daily|weekly] [--models ID,ID,...] [--max-request-cost USD] [--db classroom.db]
        [--keys-out keys.csv] [--host 127.0.0.1] [--port 8100] [--admin-token TOKEN | --new-admin-token]
        [--root-path PATH] [--cors-origin ORIGIN ...]
    python -m gatewaykit.classroom pause|resume|report --url URL --admin-token TOKEN

The teacher's key comes from ``SVC_API_KEY``, never from the command line (it
would show in ``ps``). Every key the classroom issues (new students, reissued
keys) is appended to ``--keys-out`` (a CSV readable only by its owner), never
printed. The admin token is printed once, when the class first starts on its
``--db``; the database keeps its digest, so a restart accepts the same token
(``--new-admin-token`` replaces it). A bad roster or option exits with status 2
and a message naming what to fix.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Optional, Sequence

__all__ = ["main"]

ADMIN_COMMANDS = ("pause", "resume", "report")


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gatewaykit.classroom",
                                     description="A classroom gateway: a key per student, hard caps, a kill switch. "
                                                 "The teacher's key comes from SVC_API_KEY. Also: "
                                                 "pause|resume|report --url URL --admin-token TOKEN.")
    parser.add_argument("--upstream", required=True, help="the gateway's URL, or 'offline' for practice")
    parser.add_argument("--roster", default=None, help="CSV with a 'student' column and an optional 'cap_usd' "
                                                       "(none: students are added later, POST /_classroom/students)")
    parser.add_argument("--cap", type=float, default=2.00, help="each student's cap in USD (default 2.00)")
    parser.add_argument("--window", default="total", choices=("total", "daily", "weekly"))
    parser.add_argument("--models", default=None, help="comma-separated model ids the class may use (default: all)")
    parser.add_argument("--max-request-cost", type=float, default=None, help="largest worst case of one request, USD")
    parser.add_argument("--default-max-tokens", type=int, default=1024, help="max_tokens for chats that leave it out")
    parser.add_argument("--db", default="classroom.db", help="SQLite database (default classroom.db), or "
                        "postgresql://USER@HOST:PORT/DB: every classroom given the same URL is one class (password: "
                        "PGPASSWORD)")
    parser.add_argument("--keys-out", default=None, help="CSV the new students' keys are appended to "
                                                         "(default: the database's name + .keys.csv)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--root-path", default=None, help="serve under this path, e.g. /services/classroom behind "
                                                          "JupyterHub's proxy (requests without it work too)")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="a browser origin whose pages may call the class, e.g. a JupyterLite site's "
                             "https://class.example.org; repeatable; none by default")
    parser.add_argument("--admin-token", default=os.environ.get("GATEWAYKIT_CLASSROOM_ADMIN_TOKEN"),
                        help="token for /_classroom (default: $GATEWAYKIT_CLASSROOM_ADMIN_TOKEN, else the one kept "
                             "in --db, else a new one, printed once)")
    parser.add_argument("--new-admin-token", action="store_true",
                        help="replace the admin token kept in --db with a new one (printed)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="with --upstream offline: its time scale")
    return parser


def _admin_parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"python -m gatewaykit.classroom {command}")
    parser.add_argument("--url", required=True, help="the classroom's URL")
    parser.add_argument("--admin-token", default=os.environ.get("GATEWAYKIT_CLASSROOM_ADMIN_TOKEN"),
                        required="GATEWAYKIT_CLASSROOM_ADMIN_TOKEN" not in os.environ,
                        help="the token the server printed when the class first started (or set "
                             "$GATEWAYKIT_CLASSROOM_ADMIN_TOKEN)")
    if command == "pause":
        parser.add_argument("--reason", default=None)
        parser.add_argument("--cancel-jobs", action="store_true", help="also cancel running video jobs")
    if command == "report":
        parser.add_argument("--by", choices=("student", "model"), default=None)
        parser.add_argument("--json", action="store_true", help="print the JSON the server answers")
    return parser


def _admin(command: str, argv: Sequence[str]) -> int:
    import httpx

    args = _admin_parser(command).parse_args(argv)
    headers = {"Authorization": f"Bearer {args.admin_token}"}
    url = args.url.rstrip("/")
    try:
        if command == "report":
            response = httpx.get(f"{url}/_classroom/report", headers=headers, params={"by": args.by} if args.by else {},
                                 timeout=30, trust_env=False)
        else:
            body = {"reason": args.reason, "cancel_jobs": args.cancel_jobs} if command == "pause" else {}
            response = httpx.post(f"{url}/_classroom/{command}", headers=headers, json=body, timeout=30, trust_env=False)
    except httpx.HTTPError as exc:
        print(f"error: could not reach the classroom at {url}: {type(exc).__name__}", file=sys.stderr)
        return 1
    if response.status_code != 200:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = response.text[:200]
        print(f"error: {response.status_code}: {message}", file=sys.stderr)
        return 1
    data = response.json()
    if command == "report" and not args.json:
        _print_report(data)
    elif command == "pause":
        said = f": {data['reason']}" if data.get("reason") else ""
        cancelled = f" ({data['cancelled_jobs']} video jobs cancelled)" if data.get("cancelled_jobs") else ""
        print(f"paused{said}{cancelled}")
    elif command == "resume":
        print("resumed")
    else:
        import json

        print(json.dumps(data, indent=2))
    return 0


def _print_report(data: dict) -> None:
    from gatewaykit.money import format_usd

    rows = data["rows"]
    print(f"window: {data['window']}")
    if not rows:
        print("(no rows)")
        return
    columns = [c for c in rows[0] if c != "last_request"]
    table = [[format_usd(r[c]) if c.endswith("_usd") else str(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in table)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in table:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def _serve(argv: Sequence[str]) -> int:
    parser = _serve_parser()
    args = parser.parse_args(argv)
    from gatewaykit.classroom.server import start
    from gatewaykit.classroom.setting_names import COMMAND_LINE
    from gatewaykit.classroom.state import new_admin_token

    if args.new_admin_token and args.admin_token:
        parser.exit(2, f"{parser.prog}: error: --new-admin-token makes a new token: leave out --admin-token "
                       "(and GATEWAYKIT_CLASSROOM_ADMIN_TOKEN)\n")
    models = [m.strip() for m in args.models.split(",") if m.strip()] if args.models else None
    from gatewaykit.classroom.postgres_store import is_postgres_url, shown_url

    in_postgres = is_postgres_url(args.db)
    shown_db = shown_url(args.db) if in_postgres else args.db  # never the password
    keys_out = args.keys_out or (f"{args.db}.keys.csv" if args.db != ":memory:" and not in_postgres
                                 else "classroom-keys.csv")
    try:
        room = start(upstream=args.upstream, roster=args.roster, cap=args.cap, window=args.window, models=models,
                     max_request_cost=args.max_request_cost, db=args.db, host=args.host, port=args.port,
                     admin_token=new_admin_token() if args.new_admin_token else args.admin_token,
                     default_max_tokens=args.default_max_tokens, offline={"time_scale": args.time_scale},
                     root_path=args.root_path, keys_out=keys_out, announce=False, _names=COMMAND_LINE,
                     cors_origins=args.cors_origin)
    except ValueError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    except (ConnectionError, RuntimeError, OSError, ImportError) as exc:  # ImportError: psycopg for postgresql://
        parser.exit(1, f"{parser.prog}: error: {exc}\n")
    keys = room._new_keys
    if keys:
        print(f"{len(keys)} new student key(s) appended to {keys_out} (shown nowhere else; hand each student "
              "theirs; every key issued later is appended there too)")
    print(f"classroom on {room.base_url} (students set SVC_BASE_URL={room.base_url})", flush=True)
    print(_kept_line(shown_db), flush=True)
    if room.admin_token_source == "new" or args.new_admin_token:
        print(f"admin token: {room.admin_token} (printed only now; {_token_kept(shown_db)})", flush=True)
    elif room.admin_token_source == "kept":
        print(f"admin token: the one printed when the class first started on {shown_db} ({_token_kept(shown_db)})",
              flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            if not room.running:
                return 1
    except KeyboardInterrupt:
        pass
    finally:
        room.stop()
    return 0


def _kept_line(db: str) -> str:
    if db == ":memory:":
        return "the class is in memory only: its keys and spend are lost when it stops (--db FILE keeps them)"
    return f"the class is kept in {db}: a restart with --db {db} keeps its keys and spend"


def _token_kept(db: str) -> str:
    if db == ":memory:":
        return "the class is in memory: a restart makes a new one"
    return f"its digest is kept in {db}, so a restart on it accepts it; --new-admin-token replaces it"


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ADMIN_COMMANDS:
        return _admin(argv[0], argv[1:])
    return _serve(argv)
