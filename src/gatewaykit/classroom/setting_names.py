"""How the teacher spells each classroom setting where they started it: ``upstream_key=`` in Python,
``--upstream`` or ``SVC_API_KEY`` on the command line. Messages name what the teacher can change there."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COMMAND_LINE", "PYTHON", "SettingNames"]


@dataclass(frozen=True)
class SettingNames:
    upstream: str
    cap: str
    max_request_cost: str
    default_max_tokens: str
    root_path: str
    db: str
    rpm: str
    class_rpm: str
    retention_days: str
    #: Where the teacher's key comes from (a phrase: "pass ... or set ...").
    teacher_key: str
    #: Where an admin token is given (a phrase after "given with").
    admin_token: str
    #: How to get a new admin token.
    new_admin_token: str
    window: str = "window"
    models: str = "models"


PYTHON = SettingNames(
    upstream="upstream", cap="cap", max_request_cost="max_request_cost", default_max_tokens="default_max_tokens",
    root_path="root_path", db="db=", rpm="rpm", class_rpm="class_rpm", retention_days="retention_days", teacher_key="pass upstream_key= or set SVC_API_KEY",
    admin_token="admin_token=", new_admin_token="start it with admin_token='<a new secret>'")

COMMAND_LINE = SettingNames(
    upstream="--upstream", cap="--cap", max_request_cost="--max-request-cost",
    default_max_tokens="--default-max-tokens", root_path="--root-path", db="--db", rpm="--rpm",
    class_rpm="--class-rpm", retention_days="--retention-days",
    teacher_key="set SVC_API_KEY (never on the command line: it would show in ps)",
    admin_token="--admin-token or GATEWAYKIT_CLASSROOM_ADMIN_TOKEN", new_admin_token="start it with --new-admin-token",
    window="--window", models="--models")
