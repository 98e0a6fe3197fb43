"""The write-behind thread: commits queued ledger rows off the caller's thread.

One daemon thread per process, started with the first queued write. A store
with changes is *scheduled*; the thread commits each scheduled store's queue in
one transaction (see :mod:`gatewaykit.costs.database_store`); at exit every
queue is committed in the exiting thread (in a multiprocessing child, which
leaves through ``os._exit``, by a multiprocessing finalizer).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from typing import Any, Optional

__all__ = ["flush_all", "schedule"]

_COALESCE = 0.001
"""Seconds the thread waits after waking, so a burst of rows shares one transaction."""

_SWITCH_INTERVAL = 0.001
"""The interpreter's switch interval from a wake-up until the queues are committed (see :func:`_prompt_gil`)."""

_condition = threading.Condition()
_scheduled: dict[int, Any] = {}  # id(store) -> store (a strong reference until written)
_in_hand: list[Any] = []  # the stores the thread is writing now
_thread: Optional[threading.Thread] = None
_idle = False  # the thread waits for work (a schedule() wakes it)
_normal_interval: Optional[float] = None  # the switch interval to restore (None: not shortened)


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
            _prompt_gil()
            _condition.notify()


def _run() -> None:
    global _idle
    while True:
        with _condition:
            while not _scheduled:
                _restore_gil()
                _idle = True
                _condition.wait()
            _idle = False
        _prompt_gil()  # (already, when schedule() woke us)
        time.sleep(_COALESCE)
        with _condition:
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


def _prompt_gil() -> None:
    """Shorten the interpreter's switch interval until the thread has committed what is queued.

    SQLite releases the GIL around every statement step, and the thread waits for
    it when it wakes and after its short sleep; each time it must get the GIL back
    from a caller's thread that may be computing (the next cell), which takes up
    to the switch interval (5 ms by default): a commit of a few rows could take
    50 ms or more, and a SIGKILL in that time loses them (against the bound
    ``database_store.DURABLE_WITHIN`` promises). :func:`_restore_gil` puts the
    interval back when the queues are empty, unless someone else changed it.
    """
    global _normal_interval
    if _normal_interval is None:
        current = sys.getswitchinterval()
        if current > _SWITCH_INTERVAL:
            _normal_interval = current
            sys.setswitchinterval(_SWITCH_INTERVAL)


def _restore_gil() -> None:
    global _normal_interval
    if _normal_interval is not None:
        if sys.getswitchinterval() == _SWITCH_INTERVAL:  # nobody changed it meanwhile
            sys.setswitchinterval(_normal_interval)
        _normal_interval = None


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
    _restore_gil()
    _idle = False
    _condition = threading.Condition()  # the parent's thread is gone, and its lock with it
    _scheduled.clear()  # the parent commits its own queues
    _in_hand.clear()
    _thread = None


atexit.register(flush_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
