"""``python -m gatewaykit.emulator``: run the offline gateway in the foreground."""

from __future__ import annotations

import argparse
import secrets
import sys

from gatewaykit.emulator.cli_checks import host_error, port_number, probability, seconds, start_error
from gatewaykit.emulator.settings import DEMO_KEY, RANDOM_FAULT_KINDS


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m gatewaykit.emulator",
                                     description="Serve the gateway API locally with synthetic models.")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: loopback only)")
    parser.add_argument("--port", type=port_number, default=8000, help="port (0 picks a free one; it is printed)")
    parser.add_argument("--accounts", help="accounts JSON file (default: one demo account)")
    parser.add_argument("--time-scale", type=seconds, default=1.0, help="multiplies simulated durations; 0 = instant")
    parser.add_argument("--seed", type=int, default=0, help="seed for random seeds and random faults")
    parser.add_argument("--admin-token", help="token for GET /_emulator/accounts (default: a random one)")
    parser.add_argument("--retention", type=seconds, default=3600.0, help="seconds finished jobs and media live")
    parser.add_argument("--fault-rate", type=probability, default=0.0, help="probability of a random fault per request")
    parser.add_argument("--faults", default=",".join(RANDOM_FAULT_KINDS),
                        help=f"fault kinds to draw from (default: {','.join(RANDOM_FAULT_KINDS)})")
    parser.add_argument("--script", help="JSON file of scripted chat answers (see the README)")
    parser.add_argument("--script-match-seconds", type=seconds, default=1.0,
                        help="CPU seconds a script's re: patterns may take on one message (then a 400)")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="a browser origin whose pages may call this gateway, e.g. http://127.0.0.1:8800 "
                             "(a JupyterLite site); repeatable; '*' allows any; none by default")
    parser.add_argument("--slow-seconds", type=seconds, default=8.0, help="delay of the 'slow' fault")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import uvicorn

    from gatewaykit.emulator.app import create_app
    from gatewaykit.emulator.server import make_settings
    from gatewaykit.serving.uvicorn_server import is_loopback, uvicorn_config

    admin_token = args.admin_token or "admin-" + secrets.token_urlsafe(16)
    unusable_host = host_error(args.host)
    if unusable_host:
        print(f"error: {unusable_host}", file=sys.stderr)
        return 2
    try:
        settings = make_settings(args.accounts, args.time_scale, args.seed, admin_token,
                                 retention_seconds=args.retention, fault_rate=args.fault_rate,
                                 fault_kinds=tuple(k for k in args.faults.split(",") if k),
                                 slow_seconds=args.slow_seconds, script=args.script,
                                 script_match_seconds=args.script_match_seconds, cors_origins=args.cors_origin)
        app = create_app(settings)
    except (OSError, ValueError) as exc:
        print(f"error: {start_error(exc, args.accounts)}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(f"WARNING: binding to {args.host}, which is NOT loopback: anyone who can reach this machine can "
              "use this gateway.", file=sys.stderr, flush=True)
    server = uvicorn.Server(uvicorn_config(app, args.host, args.port))
    banner_printed = False

    original_startup = server.startup

    async def startup(sockets=None):  # noqa: ANN001, ANN202 - uvicorn's signature
        nonlocal banner_printed
        await original_startup(sockets)
        if server.started and not banner_printed:
            banner_printed = True
            host, port = server.servers[0].sockets[0].getsockname()[:2]
            shown = f"[{host}]" if ":" in host else host
            print(f"gatewaykit offline gateway: http://{shown}:{port}", flush=True)
            print(f"  API base URL: http://{shown}:{port}/v1", flush=True)
            if app.state.gateway.book.first_active_key == DEMO_KEY:
                print(f"  demo key:     {DEMO_KEY}", flush=True)
            print(f"  admin token:  {admin_token}", flush=True)
            print("  synthetic models only: results are not real model output. Ctrl+C stops.", flush=True)

    server.startup = startup  # type: ignore[method-assign]
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
