"""One classroom's state: who the students are, their keys, caps and holds, whether the class is paused.

Student keys are ``sk-bf-`` keys like the gateway's own (so every client takes
them); the classroom keeps only their SHA-256 digests, in memory and in the
store. A key is shown once: when the student is added or the key reissued (and
appended to the keys file, when the classroom keeps one). The teacher's admin
token is kept as a digest too (``meta``), so a restart on the same database
accepts the same token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from gatewaykit.classroom import refusals
from gatewaykit.classroom.assignments import Assignment
from gatewaykit.classroom.budgets import Budgets
from gatewaykit.classroom.keys_file import append_keys
from gatewaykit.classroom.policy import CoursePolicy
from gatewaykit.classroom.schedules import Schedule
from gatewaykit.classroom.setting_names import PYTHON, SettingNames
from gatewaykit.classroom.store import OpenHold, Store, StudentExists
from gatewaykit.classroom.upstream import Upstream
from gatewaykit.classroom.upstream_balance import UpstreamBalance
from gatewaykit.classroom.windows import Window
from gatewaykit.classroom.worst_case import WorstCase
from gatewaykit.money import usd_to_nanos
from gatewaykit.serving.accounts import Account, key_digest
from gatewaykit.serving.errors import ApiError

__all__ = ["ADMIN_DIGEST", "NO_MODEL", "ClassSettings", "ClassroomState", "admin_digest", "new_admin_token",
           "new_student_key"]

KEY_PREFIX = "sk-bf-"
#: The model a refusal is counted under when it came before the request's body was read (a paused class, a
#: revoked key): the report's ``by="model"`` rows show it as this, the per-student rows include it.
NO_MODEL = "-"
#: The store's ``meta`` entry holding the SHA-256 of the teacher's admin token.
ADMIN_DIGEST = "admin_token_sha256"


def new_student_key() -> str:
    return f"{KEY_PREFIX}class-{secrets.token_hex(20)}"


def new_admin_token() -> str:
    """The teacher's token for ``/_classroom``: 192 random bits after ``admin-``, so it never starts with "-"
    (``--admin-token -x...`` reads as another option to the command line: 1 token in 64 of token_urlsafe's)."""
    return "admin-" + secrets.token_urlsafe(24)


def admin_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class ClassSettings:
    cap_usd: float = 2.0
    window: str = "total"
    models: Optional[frozenset[str]] = None  # None: every model the gateway lists
    max_request_cost_usd: Optional[float] = None
    #: ``max_tokens`` set on a chat that leaves it out, so its worst case is bounded.
    default_max_tokens: int = 1024
    max_body_bytes: int = 64 * 1024 * 1024
    #: Seconds between background checks of unfinished jobs (they settle when the gateway says they ended).
    job_check_seconds: float = 2.0
    #: uvicorn connection timeouts (the offline gateway's names, see ``uvicorn_config``).
    keep_alive_seconds: float = 30.0
    request_head_seconds: float = 10.0
    request_body_seconds: float = 10.0  # a request body trickled slower than this is answered 408 and closed
    admin_token: str = field(default="", repr=False)
    #: The SHA-256 of a token kept in the store (the one printed when the class first started), accepted too.
    admin_digest: Optional[str] = field(default=None, repr=False)
    #: ``admin_token`` is this start's own, printed nowhere (the class's is the one the store keeps): accepted on
    #: this process whatever token the class has.
    admin_token_private: bool = False
    #: How the teacher spells the settings where they started the classroom (Python or the command line).
    names: SettingNames = PYTHON
    #: A CSV every key the classroom issues is appended to (None: keys are only in the answers that issue them).
    keys_file: Optional[str] = None
    #: The path the classroom is served under (``/services/classroom`` behind JupyterHub's proxy), or "".
    root_path: str = ""
    #: The gateway behind the class is an offline one (practice): the classroom's own answers say so too.
    upstream_offline: bool = False
    #: Browser origins whose pages (a JupyterLite class) may call the classroom (CORS); none by default.
    cors_origins: tuple[str, ...] = ()
    #: Requests per minute per student, and for the whole class (None: no limit); see rate_limits.py.
    rpm: Optional[int] = None
    class_rpm: Optional[int] = None
    #: Keep prompts and answers (under pseudonyms) for ``retention_days``; see prompt_log.py.
    log_prompts: bool = False
    retention_days: float = 30.0


class ClassroomState:
    def __init__(self, settings: ClassSettings, store: Store, upstream: Upstream, catalog: WorstCase,
                 window: Window) -> None:
        self.settings = settings
        self.store = store
        self.upstream = upstream
        self.catalog = catalog
        self.window = window
        self.budgets = Budgets(store, window, usd_to_nanos(settings.cap_usd))
        self.max_request_nanos = (None if settings.max_request_cost_usd is None
                                  else usd_to_nanos(settings.max_request_cost_usd))
        self._students: dict[str, str] = {}  # key digest -> student (active keys only)
        self.known: dict[str, bool] = {}  # student -> revoked
        # key digest -> student, for every key revoked (reissuing revokes the old key): a request with one is
        # refused and counted against its student; a key never issued counts against nobody
        self._revoked_digests: dict[str, str] = {}
        self.paused_reason: Optional[str] = None
        self.paused = False
        self.reload()
        self.balance = UpstreamBalance(store)  # the teacher's paid balance at the gateway: used up or not
        #: With a keyless hub (``hub_api_url=``): who asks the hub about tokens that are not classroom keys.
        self.hub: Optional[Any] = None
        self.policy = CoursePolicy(store, self.budgets, window.clock, rpm=settings.rpm, class_rpm=settings.class_rpm,
                                   log_prompts=settings.log_prompts, retention_days=settings.retention_days)
        self.watched_jobs: dict[str, OpenHold] = {
            hold.job_id: hold for hold in self.budgets.restore(store.open_holds()) if hold.job_id}

    def reload(self) -> None:
        """Read the roster, keys, caps and kill switch from the store (at start; in a class several processes
        share, whenever another process changed them). Each mapping is replaced whole: requests being served
        read either the old one or the new one."""
        store = self.store
        students: dict[str, str] = {}
        known: dict[str, bool] = {}
        revoked = dict(store.revoked_keys())
        for row in store.students():
            known[row.student] = row.revoked
            self.budgets.caps[row.student] = row.cap_nanos
            if row.revoked:  # (a database older than the store's revoked_keys has only the student's last key)
                revoked[row.key_digest] = row.student
            else:
                students[row.key_digest] = row.student
        self._students, self.known, self._revoked_digests = students, known, revoked
        self.paused_reason = store.get_meta("paused_reason")
        self.paused = store.get_meta("paused") == "1"
        if self.budgets.shared:  # the class's admin token: another process may have replaced it (--new-admin-token)
            self.settings.admin_digest = store.get_meta(ADMIN_DIGEST) or self.settings.admin_digest
        policy = getattr(self, "policy", None)  # made after the first reload, at start
        if policy is not None:
            policy.reload()

    # -- students and keys -------------------------------------------------------------------------------------
    def add_student(self, student: str, cap_usd: Optional[float] = None) -> str:
        """A new student's key (shown once); :class:`StudentExists` (a ValueError) when the student is already in
        the class (this process knew, or the store found them: another process added them a moment ago)."""
        if student in self.known:
            raise StudentExists(student)
        key = new_student_key()
        cap = None if cap_usd is None else usd_to_nanos(cap_usd)
        self.store.add_student(student, key_digest(key), cap)
        self.known[student] = False
        self.budgets.caps[student] = cap
        self._students[key_digest(key)] = student
        self._issued(student, key)
        return key

    def _issued(self, student: str, key: str) -> None:
        if self.settings.keys_file:
            append_keys(self.settings.keys_file, [(student, key)])

    def _require(self, student: str) -> None:
        if student not in self.known:
            raise KeyError(student)

    def set_cap(self, student: str, cap_usd: Optional[float], until: Optional[float] = None) -> None:
        """The student's own cap (None: the class cap); ``until`` (POSIX seconds): a raise that ends then, when
        the cap from before it is back. A cap set without ``until`` replaces any raise."""
        self._require(student)
        cap = None if cap_usd is None else usd_to_nanos(cap_usd)
        if until is not None:
            self.policy.raise_cap(student, cap, until)
            return
        self.policy.end_raise(student, restore=False)
        self.store.set_cap(student, cap)
        self.budgets.set_cap(student, cap)

    def revoke(self, student: str) -> None:
        self._require(student)
        self.store.revoke(student)
        self.known[student] = True
        for digest in [d for d, name in self._students.items() if name == student]:
            del self._students[digest]
            self._revoked_digests[digest] = student

    def reissue(self, student: str) -> str:
        self._require(student)
        self.revoke(student)
        key = new_student_key()
        self.store.set_key(student, key_digest(key))
        self.known[student] = False
        self._students[key_digest(key)] = student
        self._issued(student, key)
        return key

    def admin_token_ok(self, presented: str) -> bool:
        """Whether ``presented`` is the teacher's admin token: the one kept in the store (in a shared class, as it
        is now: another process's ``--new-admin-token`` replaces it on every process), or this start's own."""
        given = presented.strip().encode("utf-8", "surrogatepass")
        token, kept = self.settings.admin_token, self.settings.admin_digest
        own_counts = self.settings.admin_token_private or not self.budgets.shared
        if token and own_counts and hmac.compare_digest(given, token.encode()):
            return True
        return bool(kept) and hmac.compare_digest(admin_digest(presented.strip()), kept or "")

    def authenticate(self, authorization: Optional[str]) -> str:
        """The student an ``Authorization: Bearer`` header names; 401 for a missing, unknown or revoked key (a
        revoked key's request is counted as refused against its student, under :data:`NO_MODEL`)."""
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > 512:
            raise ApiError(401, "Missing API key. Send 'Authorization: Bearer <the key your teacher gave you>'.",
                           code="invalid_api_key")
        digest = key_digest(token)
        student = self._students.get(digest)
        if student is None and self.budgets.shared and digest not in self._revoked_digests:
            student = self._added_elsewhere(digest)
        if student is None:
            owner = self._revoked_digests.get(digest)
            if owner is None:
                raise refusals.unknown_key()
            self.store.count_refusal(owner, NO_MODEL, self.window.key())
            raise refusals.revoked_key()
        return student

    def knows_key(self, token: str) -> bool:
        """True for a key this classroom issued (active or revoked)."""
        digest = key_digest(token)
        if digest in self._students or digest in self._revoked_digests:
            return True
        return self.budgets.shared and self._added_elsewhere(digest) is not None

    def hub_student(self, name: str) -> str:
        """The student a hub user is: added with the class cap when new; 401 when the teacher revoked them."""
        if name not in self.known:
            try:
                self.add_student(name, None)
            except StudentExists:  # another classroom process added them a moment ago
                self.reload()
            except ValueError:
                raise refusals.unknown_key() from None
        if self.known.get(name):
            self.store.count_refusal(name, NO_MODEL, self.window.key())
            raise refusals.revoked_key()
        return name

    def open_jobs(self) -> dict[str, OpenHold]:
        """The class's unfinished jobs by id (in a shared class: every process's, from the store)."""
        if self.budgets.shared:
            return {hold.job_id: hold for hold in self.store.open_holds() if hold.job_id}
        return dict(self.watched_jobs)

    def _added_elsewhere(self, digest: str) -> Optional[str]:
        """In a shared class: the student of a key another process issued a moment ago (before this one heard)."""
        found = self.store.student_for(digest)  # type: ignore[attr-defined]
        if found is None:
            return None
        student, cap_nanos = found
        self.budgets.caps[student] = cap_nanos
        self.known = {**self.known, student: False}
        self._students = {**self._students, digest: student}
        return student  # type: ignore[no-any-return]

    # -- the kill switch ---------------------------------------------------------------------------------------
    def pause(self, reason: Optional[str]) -> None:
        self.paused, self.paused_reason = True, reason
        self.store.set_meta("paused", "1")
        self.store.set_meta("paused_reason", reason)
        self.store.set_meta("paused_at", str(time.time()))

    def resume(self) -> Optional[Schedule]:
        """Open the class; during a scheduled window, that window is overridden (returned; the next one closes
        the class again)."""
        self.paused, self.paused_reason = False, None
        self.store.set_meta("paused", "0")
        self.store.set_meta("paused_reason", None)
        return self.policy.schedules.override(self.policy.now())

    # -- admission ---------------------------------------------------------------------------------------------
    def _left(self, student: str) -> str:
        """What a refusal adds about the student's budget (what is left of their cap)."""
        spent, held, cap = self.budgets.standing(student)
        return refusals.budget_left(self.window, cap, spent, held)

    def check_open(self, student: str, model: str = NO_MODEL, now: Optional[float] = None) -> None:
        """503 while the class is paused (by the teacher, or by a scheduled window), counted as refused against
        ``student`` (``model``: when it is known)."""
        if self.paused:
            self.store.count_refusal(student, model, self.window.key())
            raise refusals.paused(self.paused_reason, self._left(student))
        policy = self.policy
        if policy.schedules.any:
            now = policy.now() if now is None else now
            closed = policy.closed_by(now)
            if closed is not None:
                self.store.count_refusal(student, model, self.window.key())
                raise refusals.scheduled_pause(closed.reason, policy.shown(closed.end) or "", closed.end - now,
                                               self._left(student))

    def check_model(self, student: str, model: str) -> None:
        allowed = self.settings.models
        if allowed is not None and model not in allowed:
            self.store.count_refusal(student, model, self.window.key())
            raise refusals.model_not_allowed(model, allowed, self._left(student))

    def take_hold(self, student: str, model: str, kind: str, quote: Optional[int]):  # noqa: ANN201 - Hold
        """Hold the request's worst case (402 in the student's words when it does not fit; 503 when the class was
        paused while the request's body was read; 429 over the requests per minute; 402/403 naming the open
        assignment when its cap or models refuse it)."""
        policy = self.policy
        now = policy.now()
        policy.tick(now)
        self.check_open(student, model, now)
        window = self.window.key()
        if policy.rates.limited:
            over = policy.rates.admit(student, now)
            if over is not None:
                self.store.count_refusal(student, model, window)
                scope, wait = over
                limit_of = policy.rates.per_student if scope == "student" else policy.rates.per_class
                raise refusals.rate_limited(scope, limit_of or 0, wait, self._left(student))
        assignment = policy.assignment_open(now) if policy.assignments.any else None
        if assignment is not None and assignment.models is not None and model not in assignment.models:
            self.store.count_refusal(student, model, window)
            self.store.count_assignment_refusal(assignment.name, student)
            raise refusals.model_not_in_assignment(model, assignment.name, assignment.models, self._left(student))
        limit = self.max_request_nanos
        if limit is not None:
            if quote is None:
                self.store.count_refusal(student, model, window)
                raise refusals.unpriced_over_limit(model, limit)
            if quote > limit:
                self.store.count_refusal(student, model, window)
                raise refusals.over_request_limit(limit, quote, self._left(student))
        if quote is not None:
            needed = quote
        else:  # unpriced: all that is left (of the assignment's cap too)
            left = self.budgets.available(student)
            if assignment is not None:
                left = min(left, self.budgets.assignment_account(student, assignment.name).available())
            needed = max(1, left)
        also = None if assignment is None else self._hold_on_assignment(student, model, window, assignment, needed)
        hold = self.budgets.hold(student, model, kind, needed, assignment.name if assignment else None, also)
        if hold is None:
            if also is not None:
                also.settle(needed, paid=False)
            self.store.count_refusal(student, model, window, cap_hit=True)
            spent, held, cap = self.budgets.standing(student)
            raise refusals.budget_used_up(self.window, cap, spent, held, needed)
        return hold

    def _hold_on_assignment(self, student: str, model: str, window: str, assignment: Assignment,
                            needed: int) -> Account:
        """Hold ``needed`` on the student's account on the open assignment; 402 naming it when it does not fit."""
        account = self.budgets.assignment_account(student, assignment.name)
        if not account.hold(needed):
            self.store.count_refusal(student, model, window)
            self.store.count_assignment_refusal(assignment.name, student)
            cap = assignment.cap_nanos
            raise refusals.assignment_used_up(assignment.name, cap, cap - account.balance_nanos, account.held_nanos,
                                              needed)
        return account
