"""Hard caps: each student's spend in the current window, and the holds of requests in flight.

A request holds its worst-case price before it is forwarded and a hold that does not fit is
refused, so concurrent requests never together pass a cap; a hold settles to the reported price,
is released on failure, or is charged whole when its outcome cannot be known. A shared store
(PostgreSQL) decides holds itself, in one statement. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Optional

from gatewaykit.classroom.store import UNKNOWN, OpenHold, Store
from gatewaykit.classroom.windows import Window
from gatewaykit.serving.accounts import Account
from gatewaykit.serving.ratelimit import SlidingWindow

__all__ = ["UNKNOWN", "Budgets", "CommitGroup", "Hold", "unknown_status"]


def unknown_status(why: str) -> str:
    """``"unknown: timed out"``: the status of a request charged at its hold because its outcome is unknown."""
    return f"{UNKNOWN}: {why}"


@dataclass
class Hold:
    row_id: int
    student: str
    window: str
    nanos: int
    account: Optional[Account]  # None: the hold is the shared store's
    #: the student's account on the assignment open when the hold was taken (it settles there too), if any
    also: Optional[Account] = None


class CommitGroup:
    """Finished rows of concurrent requests, written to the store in one transaction per event-loop turn.

    ``await group.finish(row)`` returns once the row is committed (with the rows of every other request
    that finished in the same turn): a request's row is final before its answer is sent, for a fraction
    of a transaction each."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._rows: list[tuple[int, str, int, Optional[str]]] = []
        self._waiting: list[asyncio.Future[bool]] = []

    def finish(self, row_id: int, status: str, cost_nanos: int, upstream_id: Optional[str]) -> asyncio.Future[bool]:
        """Resolves to whether this commit made the row final (False: it was already, by another process)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        if not self._rows:
            loop.call_soon(self._commit)
        self._rows.append((row_id, status, cost_nanos, upstream_id))
        self._waiting.append(future)
        return future

    def _commit(self) -> None:
        rows, waiting = self._rows, self._waiting
        self._rows, self._waiting = [], []
        try:
            done = set(self.store.finish_requests(rows) or ())
        except Exception as exc:  # noqa: BLE001 - every waiting request hears it (a 500 envelope)
            for future in waiting:
                if not future.done():
                    future.set_exception(exc)
            return
        for (row_id, *_), future in zip(rows, waiting):
            if not future.done():
                future.set_result(row_id in done)


def _settle(hold: Optional[Hold], paid: bool, charged: Optional[int] = None) -> None:
    """Settle a hold's accounts in this process (a shared store's hold has only its assignment's here)."""
    if hold is None:
        return
    if hold.account is not None:
        hold.account.settle(hold.nanos, paid=paid, charged=charged)
    if hold.also is not None:
        hold.also.settle(hold.nanos, paid=paid, charged=charged)


class Budgets:
    def __init__(self, store: Store, window: Window, class_cap_nanos: int) -> None:
        self.store = store
        self.window = window
        self.class_cap_nanos = class_cap_nanos
        self.caps: dict[str, Optional[int]] = {}  # a student's own cap, None: the class cap
        self._accounts: dict[tuple[str, str], Account] = {}
        self._holds: dict[int, Hold] = {}
        self.group = CommitGroup(store)
        self.shared = bool(getattr(store, "shared", False))  # holds decided in the store (PostgreSQL)
        self.assignment_caps: dict[str, int] = {}  # assignment -> each student's cap on it
        self._assignment_accounts: dict[tuple[str, str], Account] = {}

    def cap(self, student: str) -> int:
        own = self.caps.get(student)
        return self.class_cap_nanos if own is None else own

    def _account(self, student: str, window: str) -> Account:
        account = self._accounts.get((student, window))
        if account is None:
            balance = self.cap(student) - self.store.spent(student, window)
            account = Account(id=student, balance_nanos=balance, limiter=SlidingWindow(1, 1.0))
            self._accounts[(student, window)] = account
        return account

    def assignment_account(self, student: str, assignment: str) -> Account:
        """The student's account on an assignment: its cap minus what they spent on it (in a class several
        processes share, what the store has settled is read at each call; holds are this process's)."""
        account = self._assignment_accounts.get((student, assignment))
        if account is None or self.shared:
            balance = self.assignment_caps[assignment] - self.store.assignment_spent(assignment, student)
            if account is None:
                account = Account(id=student, balance_nanos=balance, limiter=SlidingWindow(1, 1.0))
                self._assignment_accounts[(student, assignment)] = account
            else:
                with account.lock:
                    account.balance_nanos = balance
        return account

    def standing(self, student: str) -> tuple[int, int, int]:
        """``(spent, held, cap)`` in nanos for the current window."""
        if self.shared:
            return self.store.standing(student, self.window.key(), self.class_cap_nanos)  # type: ignore[attr-defined,no-any-return]
        account = self._account(student, self.window.key())
        cap = self.cap(student)
        return cap - account.balance_nanos, account.held_nanos, cap

    def available(self, student: str) -> int:
        if self.shared:
            spent, held, cap = self.standing(student)
            return max(0, cap - spent - held)
        return self._account(student, self.window.key()).available()

    def hold(self, student: str, model: str, kind: str, nanos: int, assignment: Optional[str] = None,
             also: Optional[Account] = None) -> Optional[Hold]:
        """Hold ``nanos`` for a request (a row in the store), or None when it does not fit what is left.
        ``assignment``: the one it counts against too, ``also`` the student's account on it, where ``nanos`` is
        held already (it settles with this hold)."""
        window = self.window.key()
        if self.shared:
            row = self.store.hold(student, model, kind, nanos, window, self.class_cap_nanos,  # type: ignore[attr-defined]
                                  assignment)
            if row is None:
                return None
            self._holds[row] = Hold(row, student, window, nanos, None, also)
            return self._holds[row]
        account = self._account(student, window)
        if not account.hold(nanos):
            return None
        try:
            row_id = self.store.open_request(student, model, kind, nanos, window, assignment)
        except BaseException:
            account.settle(nanos, paid=False)
            raise
        hold = Hold(row_id, student, window, nanos, account, also)
        self._holds[row_id] = hold
        return hold

    def settle(self, row_id: int, cost_nanos: int, status: str = "ok", upstream_id: Optional[str] = None) -> bool:
        """Charge ``cost_nanos`` instead of the hold (once: False when already settled or released)."""
        if self.shared:
            _settle(self._holds.pop(row_id, None), True, cost_nanos)
            return bool(self.store.finish_requests([(row_id, status, cost_nanos, upstream_id)]))
        hold = self._holds.pop(row_id, None)
        if hold is None or hold.account is None:
            return False
        _settle(hold, True, cost_nanos)
        self.store.finish_request(row_id, status, cost_nanos, upstream_id)
        return True

    def release(self, row_id: int, status: str = "failed", upstream_id: Optional[str] = None) -> bool:
        """Release the hold, charging nothing (a failure, a refusal upstream, a cancelled job)."""
        if self.shared:
            _settle(self._holds.pop(row_id, None), False)
            return bool(self.store.finish_requests([(row_id, status, 0, upstream_id)]))
        hold = self._holds.pop(row_id, None)
        if hold is None or hold.account is None:
            return False
        _settle(hold, False)
        self.store.finish_request(row_id, status, 0, upstream_id)
        return True

    async def settle_grouped(self, row_id: int, cost_nanos: int, status: str = "ok",
                             upstream_id: Optional[str] = None) -> bool:
        """:meth:`settle`, its row committed with the other requests settled in the same event-loop turn."""
        hold = self._holds.pop(row_id, None)
        if self.shared:
            _settle(hold, True, cost_nanos)
            return await self.group.finish(row_id, status, cost_nanos, upstream_id)
        if hold is None or hold.account is None:
            return False
        _settle(hold, True, cost_nanos)
        await self.group.finish(row_id, status, cost_nanos, upstream_id)
        return True

    async def release_grouped(self, row_id: int, status: str = "failed", upstream_id: Optional[str] = None) -> bool:
        """:meth:`release`, its row committed with the other requests settled in the same event-loop turn."""
        hold = self._holds.pop(row_id, None)
        if self.shared:
            _settle(hold, False)
            return await self.group.finish(row_id, status, 0, upstream_id)
        if hold is None or hold.account is None:
            return False
        _settle(hold, False)
        await self.group.finish(row_id, status, 0, upstream_id)
        return True

    def held(self, row_id: int) -> int:
        hold = self._holds.get(row_id)
        if hold is None and self.shared:  # a row another process opened
            return self.store.held_row(row_id) or 0  # type: ignore[attr-defined,no-any-return]
        return 0 if hold is None else hold.nanos

    def is_open(self, row_id: int) -> bool:
        if self.shared:  # settled by any process: the store says
            return self.store.held_row(row_id) is not None  # type: ignore[attr-defined]
        return row_id in self._holds

    def restore(self, holds: list[OpenHold]) -> list[OpenHold]:
        """After a restart: hold again what was held (jobs); returns those that are jobs to watch.

        A plain request cut off by the stop has an unknown outcome: it is charged at its hold (the worst case),
        so the cap stays hard. A shared store's open holds may be other running processes': there the store
        settles those whose process stopped (``settle_abandoned``) and hands out jobs to watch (``claim_jobs``)."""
        if self.shared:
            return []
        jobs = []
        for open_hold in holds:
            account = self._account(open_hold.student, open_hold.window)
            account.held_nanos += open_hold.hold_nanos
            also = None
            if open_hold.assignment is not None and open_hold.assignment in self.assignment_caps:
                also = self.assignment_account(open_hold.student, open_hold.assignment)
                also.held_nanos += open_hold.hold_nanos
            self._holds[open_hold.row_id] = Hold(open_hold.row_id, open_hold.student, open_hold.window,
                                                 open_hold.hold_nanos, account, also)
            if open_hold.job_id is None:
                self.settle(open_hold.row_id, open_hold.hold_nanos, status=unknown_status("cut off by a stop"))
            else:
                jobs.append(open_hold)
        return jobs

    def set_cap(self, student: str, cap_nanos: Optional[int]) -> None:
        before = self.cap(student)
        self.caps[student] = cap_nanos
        if self.shared:  # the store's row is the cap a hold is checked against
            return
        change = self.cap(student) - before
        for (name, _), account in self._accounts.items():
            if name == student:
                with account.lock:
                    account.balance_nanos += change
