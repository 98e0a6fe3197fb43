"""The keys file: a CSV (``student,key``) every key the classroom issues is appended to, readable by its owner
only (0600). A reissued student's new key is a later line than the old one: the last line for a student is the
key that works."""

from __future__ import annotations

import csv
import os

__all__ = ["append_keys"]


def append_keys(path: str, keys: list[tuple[str, str]]) -> None:
    """Append ``(student, key)`` rows (a header first when the file is new); the file is made 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", newline="", encoding="utf-8") as handle:
        if os.name == "posix" and os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)  # a keys file made before, readable by others: not any more
        writer = csv.writer(handle, lineterminator="\n")  # not csv's \r\n: `cut -d, -f2` would keep a \r on each key
        if handle.tell() == 0:
            writer.writerow(["student", "key"])
        writer.writerows(keys)
