"""The write-behind thread: commits queued ledger rows off the caller's thread.

One daemon thread per process commits each scheduled store's queue in one transaction; at exit (in a
multiprocessing child, by a finalizer) every queue is committed. It never sleeps nor changes the switch
interval: what bounds a commit's delay is how few times the thread gives up the GIL, so a usual commit
is one wake-up and one SQLite statement. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Any, Optional

__all__ = ["flush_all", "schedule"]

_condition = threading.Condition()
_scheduled: dict[int, Any] = {}  # id(store) -> store (a strong reference until written)
_in_hand: list[Any] = []  # the stores the thread is writing now
_thread: Optional[threading.Thread] = None
_idle = False  # the thread waits for work (a schedule() wakes it)


def schedule(store: Any) -> None:
    """Have the thread commit ``store``'s queue soon (``store.write_queued()``)."""
    global _thread
    if id(store) in _scheduled:  # already due: the thread takes its queue after this change was queued
        return
    with _condition:
        _scheduled[id(store)] = store
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_run, name="gatewaykit-ledger-writer", daemon=True)
            _thread.start()
            _flush_at_multiprocessing_exit()
        if _idle:
            _condition.notify()


def _run() -> None:
    global _idle
    while True:
        with _condition:
            while not _scheduled:
                _idle = True
                _condition.wait()
            _idle = False
            stores = list(_scheduled.values())
            _scheduled.clear()
            _in_hand[:] = stores  # flush_all() waits for these too (each store's lock)
        for store in stores:
            try:
                store.write_queued()  # a failed write is kept on the store and warned by its next flush()
            except Exception:  # noqa: BLE001 - the database cannot be reopened: the caller's flush() says why
                pass
        with _condition:
            _in_hand.clear()


def flush_all() -> None:
    """Commit every queue in this thread (at exit), after any write the thread is making."""
    with _condition:
        stores = list(_scheduled.values()) + list(_in_hand)
        _scheduled.clear()
    for store in stores:
        store.write_queued()  # takes the store's lock: waits for the thread's write to commit


def _flush_at_multiprocessing_exit() -> None:
    """A multiprocessing child ends with ``os._exit`` (no ``atexit``): flush through its finalizers."""
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util.Finalize(None, flush_all, exitpriority=100)


def _after_fork_in_child() -> None:
    global _condition, _thread, _idle
    _idle = False
    _condition = threading.Condition()  # the parent's thread is gone, and its lock with it
    _scheduled.clear()  # the parent commits its own queues
    _in_hand.clear()
    _thread = None


atexit.register(flush_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
