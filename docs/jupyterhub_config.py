# JupyterHub configuration for a class on one paid key: gatewaykit's classroom as a hub service.
#
# Copy this file next to your hub (or load it from your own jupyterhub_config.py with
# `load_subconfig("classroom_jupyterhub_config.py")`), then start the hub as usual:
#
#     export SVC_API_KEY=sk-bf-...      # the teacher's key: in the hub's environment, never in this file
#     export GATEWAYKIT_CLASSROOM_UPSTREAM=https://gateway.example    # or leave it out: "offline" practice
#     jupyterhub -f jupyterhub_config.py
#
# What it does:
# - The hub starts the classroom (`python -m gatewaykit.classroom`) as a managed service with the
#   teacher's key, and stops it with the hub; its database is in GATEWAYKIT_CLASSROOM_DIR, so
#   keys, spend and jobs outlive a restart of the hub.
# - Each time a user's server starts, a spawner hook asks the classroom for that user's own key
#   (`POST /_classroom/students/{user}/key`: a user not in the roster is added with the class cap; a
#   known one gets a new key, the old one stops working) and starts the server with
#   SVC_BASE_URL = the classroom under the hub's own address, https://<your hub>/services/classroom
#   (the hub's proxy passes /services/classroom/ on to it), and SVC_API_KEY = that key. gatewaykit in
#   the user's notebooks (and any client given those two values) then goes through the classroom,
#   under the user's name, within their cap. Video and music links in its answers point there too,
#   so users' servers need to reach only the hub, never the gateway.
# - A keyless hub (GATEWAYKIT_CLASSROOM_KEYLESS=1): no classroom key at all. Each user's server gets
#   its own hub token as SVC_API_KEY (the one JupyterHub gives every server, JUPYTERHUB_API_TOKEN);
#   the classroom asks the hub whose it is (GET /hub/api/user, --hub-api-url) and counts the request
#   under that user, added with the class cap at their first request. A token the hub stops accepting
#   (the server stopped, the user removed) is refused within 5 s; the teacher's revoke still applies.
# - The teacher's key reaches only the classroom's process. The admin token is in
#   GATEWAYKIT_CLASSROOM_DIR/admin_token; the teacher's commands read it from the environment:
#     GATEWAYKIT_CLASSROOM_ADMIN_TOKEN="$(cat classroom/admin_token)" \
#         python -m gatewaykit.classroom report --url http://127.0.0.1:8100      # or pause / resume
#   (or --url https://<your hub>/services/classroom from elsewhere: the teacher's endpoints answer
#   only with that token).
#
# Isolation comes from the spawner: use one that runs each user as their own Unix user or in
# their own container (LocalProcessSpawner with system users, DockerSpawner, KubeSpawner, ...).
# With SimpleLocalProcessSpawner (fine for trying this out, as gatewaykit's test does) every
# user runs as the hub's Unix user and could read the classroom's environment.
#
# The settings below read GATEWAYKIT_CLASSROOM_* environment variables so the same file serves
# every hub (and gatewaykit's test, tests/classroom/test_jupyterhub.py, which runs this file);
# write your values in place of the defaults if you prefer.

import os
import secrets
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub defines get_config in its configuration files)

# --- the class ----------------------------------------------------------------------------------
# The gateway the classroom forwards to with the teacher's key, or "offline" (free synthetic answers).
UPSTREAM = os.environ.get("GATEWAYKIT_CLASSROOM_UPSTREAM", "offline")
CAP_USD = os.environ.get("GATEWAYKIT_CLASSROOM_CAP", "2.00")             # each student's cap, USD
WINDOW = os.environ.get("GATEWAYKIT_CLASSROOM_WINDOW", "total")          # total | daily | weekly
MODELS = os.environ.get("GATEWAYKIT_CLASSROOM_MODELS", "")               # e.g. "chat-mini,image-gpt"; empty: all
MAX_REQUEST_USD = os.environ.get("GATEWAYKIT_CLASSROOM_MAX_REQUEST_COST", "")   # empty: no per-request limit
# "1": users' servers carry their own hub token, never a classroom key (see "A keyless hub" above).
KEYLESS = os.environ.get("GATEWAYKIT_CLASSROOM_KEYLESS", "") == "1"
# The classroom's database, roster (optional: users are added at their first start), keys and admin token.
DATA = Path(os.environ.get("GATEWAYKIT_CLASSROOM_DIR", "classroom")).resolve()
# Where the classroom listens (the hub and its proxy reach it there). Users reach it through the hub's
# proxy, under SERVICE_PATH (the service's name below; with a hub base_url such as /jupyter/, write
# "/jupyter/services/classroom").
PORT = int(os.environ.get("GATEWAYKIT_CLASSROOM_PORT", "8100"))
CLASSROOM_URL = f"http://127.0.0.1:{PORT}"
# A class in PostgreSQL (several classroom processes, one class: docs/classroom.md, "Past one machine"):
# a postgresql://USER@HOST:PORT/DB URL (its password in PGPASSWORD, in the hub's environment). The hub
# then starts one classroom as before; more may run elsewhere with the same URL. With
# GATEWAYKIT_CLASSROOM_URL (a load balancer in front of them all) the hub starts none and sends the
# service's requests there.
DB = os.environ.get("GATEWAYKIT_CLASSROOM_DB_URL", "")
EXTERNAL_URL = os.environ.get("GATEWAYKIT_CLASSROOM_URL", "")
SERVICE_PATH = "/services/classroom"
# The address users' servers are given; empty: the hub's public URL (JupyterHub.public_url, else the
# address the hub listens on) + SERVICE_PATH. Set it when users' servers reach the hub by another name.
STUDENT_URL = os.environ.get("GATEWAYKIT_CLASSROOM_STUDENT_URL", "")

# --- the teacher's key, the admin token, the roster ---------------------------------------------
# Taken out of the hub's environment so that no process the hub starts inherits it (the proxy gets a
# copy of the hub's environment); only the classroom service is given it.
TEACHER_KEY = os.environ.pop("SVC_API_KEY", "")
if UPSTREAM != "offline" and not TEACHER_KEY:
    raise SystemExit("The classroom needs the teacher's key: start the hub with SVC_API_KEY set.")

DATA.mkdir(mode=0o700, parents=True, exist_ok=True)
_token_file = DATA / "admin_token"
if not _token_file.exists():
    _fd = os.open(_token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(_fd, "w") as _handle:
        _handle.write(secrets.token_urlsafe(32))
ADMIN_TOKEN = _token_file.read_text().strip()

ROSTER = DATA / "roster.csv"     # student,cap_usd: list students here to give some another cap
if not ROSTER.exists():
    ROSTER.write_text("student,cap_usd\n")

# --- the classroom, a service the hub starts and stops ------------------------------------------
_command = [sys.executable, "-m", "gatewaykit.classroom", "--upstream", UPSTREAM, "--roster", str(ROSTER),
            "--cap", CAP_USD, "--window", WINDOW, "--db", DB or str(DATA / "classroom.db"),
            "--keys-out", str(DATA / "roster_keys.csv"), "--host", "127.0.0.1", "--port", str(PORT),
            "--root-path", SERVICE_PATH]
if MODELS:
    _command += ["--models", MODELS]
if MAX_REQUEST_USD:
    _command += ["--max-request-cost", MAX_REQUEST_USD]
if KEYLESS:
    _command += ["--hub-api-url"]    # no value: $JUPYTERHUB_API_URL, which the hub gives its services

_environment = {"SVC_API_KEY": TEACHER_KEY, "GATEWAYKIT_CLASSROOM_ADMIN_TOKEN": ADMIN_TOKEN}
if os.environ.get("PGPASSWORD"):  # a class in PostgreSQL: its password, to the classroom's process only
    _environment["PGPASSWORD"] = os.environ.pop("PGPASSWORD")
c.JupyterHub.services = [
    {
        "name": "classroom",
        # The hub waits until the classroom answers here before it lets users start servers, and its
        # proxy passes /services/classroom/... on to it (the classroom serves under --root-path).
        "url": CLASSROOM_URL,
        "command": _command,
        "environment": _environment,
    },
]
if EXTERNAL_URL:  # classroom processes behind a load balancer, started elsewhere with the same --db URL
    CLASSROOM_URL = EXTERNAL_URL
    c.JupyterHub.services = [{"name": "classroom", "url": EXTERNAL_URL}]


# --- each user's server: SVC_BASE_URL and the user's own key --------------------------------------
def classroom_url_for_users(spawner):
    """STUDENT_URL, else the classroom under the hub's public address (what users' browsers and servers use)."""
    from urllib.parse import urlsplit, urlunsplit

    if STUDENT_URL:
        return STUDENT_URL.rstrip("/")
    settings = spawner.user.settings
    public = settings.get("public_url")            # JupyterHub.public_url, parsed; "" when not set
    if public:
        origin = urlunsplit((public.scheme, public.netloc, "", "", ""))
    else:                                            # the address the hub listens on (JupyterHub.bind_url)
        bound = urlsplit(settings["proxy"].public_url)
        host = bound.hostname or "127.0.0.1"
        host = "127.0.0.1" if host in ("0.0.0.0", "::") else (f"[{host}]" if ":" in host else host)
        origin = f"{bound.scheme}://{host}" + (f":{bound.port}" if bound.port else "")
    return origin + SERVICE_PATH


async def give_the_user_a_classroom_key(spawner):
    """Ask the classroom for this user's key (added if new, else reissued) and put it in the server's environment."""
    import json
    from urllib.parse import quote

    from tornado.httpclient import AsyncHTTPClient, HTTPClientError

    student = spawner.user.name
    try:
        answer = await AsyncHTTPClient().fetch(
            f"{CLASSROOM_URL}/_classroom/students/{quote(student, safe='')}/key", method="POST", body="{}",
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/json"},
            request_timeout=30)
    except HTTPClientError as exc:   # the classroom's own words (no key is in a refusal)
        said = exc.response.body.decode(errors="replace")[:300] if exc.response is not None else str(exc)
        raise RuntimeError(f"The classroom gave no key for {student}: {exc.code} {said}") from None
    spawner.environment = {**spawner.environment, "SVC_BASE_URL": classroom_url_for_users(spawner),
                           "SVC_API_KEY": json.loads(answer.body)["key"]}


def give_the_user_their_hub_token(spawner):
    """A keyless hub: the server's own hub token is its key (the classroom asks the hub whose it is)."""
    spawner.environment = {**spawner.environment, "SVC_BASE_URL": classroom_url_for_users(spawner),
                           "SVC_API_KEY": spawner.api_token}


c.Spawner.pre_spawn_hook = give_the_user_their_hub_token if KEYLESS else give_the_user_a_classroom_key

# --- your hub's own settings ---------------------------------------------------------------------
# Who may log in, and how users' servers run, are your hub's choices, e.g.:
# c.JupyterHub.authenticator_class = "github"          # or "ldapauthenticator.LDAPAuthenticator", ...
# c.Authenticator.allowed_users = {"ana", "bo"}
# c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"
# To try it on one machine: "dummy" (with c.DummyAuthenticator.password) and "simple"
# (SimpleLocalProcessSpawner), as gatewaykit's test does; never for a real class.
