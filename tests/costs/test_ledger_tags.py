"""Tags: ``with ledger.tag("x"):`` marks rows recorded inside the block."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from gatewaykit.costs import Ledger
from ledger_records import records  # noqa: F401  (fixture)


def test_rows_inside_block_are_tagged(records):
    """A row recorded in the block carries the tag; one outside does not."""
    ledger = Ledger()
    with ledger.tag("experiment-3"):
        ledger.record(records.chat_ok())
    ledger.record(records.chat_ok())
    assert [r["tags"] for r in ledger.rows] == [("experiment-3",), ()]


def test_tags_nest(records):
    """Nested blocks accumulate tags, in order, without duplicates."""
    ledger = Ledger()
    with ledger.tag("a"), ledger.tag("b", "a"):
        ledger.record(records.chat_ok())
    assert ledger.rows[0]["tags"] == ("a", "b")


def test_tags_are_per_ledger(records):
    """Tagging one ledger does not tag rows of another."""
    first, second = Ledger(), Ledger()
    with first.tag("x"):
        second.record(records.chat_ok())
    assert second.rows[0]["tags"] == ()


def test_asyncio_tasks_keep_their_own_tags(records):
    """Concurrent tasks each record with the tags of their own context."""
    ledger = Ledger()

    async def run(name: str) -> None:
        with ledger.tag(name):
            await asyncio.sleep(0.01)
            ledger.record(records.chat_ok())

    async def main() -> None:
        await asyncio.gather(*(run(f"t{i}") for i in range(20)))

    asyncio.run(main())
    assert sorted(r["tags"][0] for r in ledger.rows) == sorted(f"t{i}" for i in range(20))


def test_thread_in_copied_context_inherits_tags(records):
    """A thread run in a copy of the context inherits the tags; a plain thread does not."""
    ledger = Ledger()
    with ledger.tag("outer"):
        context = contextvars.copy_context()
        threads = [
            threading.Thread(target=context.run, args=(ledger.record, records.chat_ok())),
            threading.Thread(target=ledger.record, args=(records.chat_ok(),)),
        ]
        for thread in threads:
            thread.start()
            thread.join()
    assert [r["tags"] for r in ledger.rows] == [("outer",), ()]


def test_empty_tag_is_refused():
    """An empty tag name is a ValueError."""
    with pytest.raises(ValueError):
        with Ledger().tag(""):
            pass


def test_rows_of_one_tag_are_the_tagged_rows_as_the_full_read_gives_them(records):
    """``rows_as_recorded(tag)`` (how evaluate, compare and the playground settle a cell) is the full read
    filtered by the tag: the same dicts, in order, nested tags included, nothing else."""
    ledger = Ledger()
    ledger.record(records.chat_ok())
    with ledger.tag("grid"):
        ledger.record(records.chat_ok())
        with ledger.tag("grid-3"):
            ledger.record(records.chat_ok())
    ledger.record(records.chat_ok())
    everything = ledger.rows_as_recorded()
    for tag in ("grid", "grid-3", "other"):
        assert ledger.rows_as_recorded(tag) == [row for row in everything if tag in row["tags"]]
    assert len(ledger.rows_as_recorded("grid")) == 2 and len(ledger.rows_as_recorded("grid-3")) == 1
