"""``python -m gatewaykit.classroom``: run a classroom, or drive a running one (the teacher's verbs).

The teacher's key comes from ``SVC_API_KEY``, never the command line (it would show in ``ps``);
issued keys go to ``--keys-out``, never to the terminal; the admin token is printed once and kept
as a digest. ``--help`` lists the options and verbs; the usage lines: ``docs/internals.md``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Optional, Sequence

__all__ = ["main"]



def _serve_parser() -> argparse.ArgumentParser:
    from gatewaykit.classroom.cli_admin import verbs_help

    parser = argparse.ArgumentParser(prog="python -m gatewaykit.classroom",
                                     description="A classroom gateway: a key per student, hard caps, a kill switch. "
                                                 "The teacher's key comes from SVC_API_KEY.",
                                     epilog=verbs_help() + "\n\n'python -m gatewaykit.classroom VERB --help' says more.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", required=True, help="the gateway's URL, or 'offline' for practice")
    parser.add_argument("--roster", default=None, help="CSV with a 'student' column and an optional 'cap_usd' "
                                                       "(none: students are added later, POST /_classroom/students)")
    parser.add_argument("--cap", type=float, default=2.00, help="each student's cap in USD (default 2.00)")
    parser.add_argument("--window", default="total", choices=("total", "daily", "weekly", "monthly"))
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
    parser.add_argument("--hub-api-url", nargs="?", const=os.environ.get("JUPYTERHUB_API_URL") or "", default=None,
                        help="a keyless hub: tokens that are not classroom keys are asked of this JupyterHub API "
                             "(GET URL/user); the user it names is the student. Without a value: "
                             "$JUPYTERHUB_API_URL, which a hub service is given")
    parser.add_argument("--rpm", type=int, default=None, help="requests per minute per student (429 past it)")
    parser.add_argument("--class-rpm", type=int, default=None,
                        help="requests per minute for the whole class (keep it under the gateway's limit)")
    parser.add_argument("--log-prompts", action="store_true",
                        help="keep prompts and answers under per-student pseudonyms (default: nothing is kept)")
    parser.add_argument("--retention-days", type=float, default=30.0, help="with --log-prompts: days kept (30)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="with --upstream offline: its time scale")
    return parser


def _hub_api_url(parser: argparse.ArgumentParser, given: Optional[str]) -> Optional[str]:
    if given == "":
        parser.exit(2, f"{parser.prog}: error: --hub-api-url without a value reads $JUPYTERHUB_API_URL, which is not "
                       "set (it is, in a JupyterHub service); give the hub's API URL, e.g. "
                       "--hub-api-url http://127.0.0.1:8081/hub/api\n")
    return given


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
                     root_path=args.root_path, keys_out=keys_out, announce=False, rpm=args.rpm,
                     class_rpm=args.class_rpm, log_prompts=args.log_prompts, retention_days=args.retention_days,
                     _names=COMMAND_LINE, cors_origins=args.cors_origin,
                     hub_api_url=_hub_api_url(parser, args.hub_api_url))
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
    from gatewaykit.classroom.cli_admin import VERBS, admin_main

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in VERBS:
        return admin_main(argv[0], argv[1:])
    return _serve(argv)
