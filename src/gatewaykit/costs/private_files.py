"""Files that hold prompts and answers (the ledger, the response cache) are their owner's only.

Created ``0600`` in folders created ``0700``, whatever the umask (the usual
``022`` made them readable by every user of a shared machine or JupyterHub).
Files and folders that already exist are left as they are: a folder you chose
(your project) keeps its permissions. SQLite gives a database's ``-wal`` and
``-shm`` files the database file's permissions, so they follow.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

__all__ = ["PRIVATE_FILE", "PRIVATE_FOLDER", "create_private_file", "make_private_folder", "write_private_file"]

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def make_private_folder(path: Union[str, os.PathLike]) -> None:
    """Create ``path`` and its missing parents, each ``0700`` (existing folders untouched)."""
    folder = Path(path)
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        try:
            each.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:  # made meanwhile by another process
            pass


def create_private_file(path: Union[str, os.PathLike]) -> None:
    """Create ``path``, empty and ``0600``, unless it exists (its folder must exist)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    os.close(fd)


def write_private_file(path: Union[str, os.PathLike], data: bytes) -> None:
    """Write ``data`` to a new file ``path``, ``0600`` (replaced if it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
