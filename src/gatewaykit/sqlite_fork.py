"""No thread of this process is inside SQLite when ``fork()`` copies it.

SQLite's own mutexes (its allocator's, its list of open files') are not reset in
a forked child: one that a thread held at the instant of ``fork()`` stays locked
there, and the child's first ``sqlite3.connect`` waits for it forever (a
``multiprocessing`` fork pool's worker that records a ledger row, hung). Every
object of gatewaykit that talks to SQLite from more than one thread (the
ledger's database store and its writer thread, a ``map``/``batch`` checkpoint,
the classroom's store) makes each SQLite call holding its ``_lock`` and is
registered here with :func:`guard`: just before ``fork()`` the forking thread
takes every registered lock, so a call in progress finishes first and none
starts; the parent releases them after; the child gets new locks (its copies
are held).
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any

__all__ = ["FORK_WAIT", "guard"]

FORK_WAIT = 15.0
"""Seconds ``fork()`` waits for one SQLite call in progress (a commit may wait 10 s for another process's lock);
past it the fork goes ahead without that lock rather than never."""

_GUARDED: "weakref.WeakSet[Any]" = weakref.WeakSet()
_HELD: list[threading.Lock] = []  # the locks the forking thread holds until fork() returns


def guard(owner: Any) -> None:
    """Have ``fork()`` wait for ``owner``'s SQLite calls: each is made holding ``owner._lock`` (a
    ``threading.Lock``, replaced by a new one in a forked child)."""
    _GUARDED.add(owner)


def _before_fork() -> None:
    for owner in list(_GUARDED):
        lock = getattr(owner, "_lock", None)
        if lock is not None and lock.acquire(timeout=FORK_WAIT):  # stuck past FORK_WAIT: fork anyway
            _HELD.append(lock)


def _after_fork_in_parent() -> None:
    while _HELD:
        _HELD.pop().release()


def _after_fork_in_child() -> None:
    _HELD.clear()  # copies of the parent's locks, held: replaced below
    for owner in list(_GUARDED):
        owner._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)  # fmt: skip
