"""Several real classroom processes on one PostgreSQL database, in front of one real offline gateway process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional

import httpx
from classroom_fixtures import ADMIN, TEACHER_ACCOUNTS, TEACHER_KEY, auth

__all__ = ["ClassroomProcess", "GatewayProcess", "ADMIN_TOKEN"]

ADMIN_TOKEN = "admin-shared-class-token"


class GatewayProcess:
    """``python -m gatewaykit.emulator`` with the teacher's account (instant answers)."""

    def __init__(self, *args: str) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
            json.dump(TEACHER_ACCOUNTS, file)
        self.accounts_file = file.name
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--accounts", self.accounts_file,
             "--time-scale", "0", "--admin-token", ADMIN, "--seed", "1", *args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if ": http://" not in line:
            self.close()
            raise AssertionError(f"the gateway process did not start; it printed {line!r}")
        self.base_url = line.split(": ", 1)[1].strip()
        self._drain = threading.Thread(target=self.process.stdout.read, daemon=True)
        self._drain.start()

    def spent(self) -> float:
        answer = httpx.get(f"{self.base_url}/_emulator/accounts", headers=auth(ADMIN))
        answer.raise_for_status()
        return {a["id"]: a for a in answer.json()["accounts"]}["teacher"]["spent_usd"]  # type: ignore[no-any-return]

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(60)
        if hasattr(self, "_drain"):
            self._drain.join(30)
        if self.process.stdout is not None:
            self.process.stdout.close()
        os.unlink(self.accounts_file)


class ClassroomProcess:
    """``python -m gatewaykit.classroom --db postgresql://...`` in a process of its own (started, not yet read:
    :meth:`ready` reads its start lines)."""

    def __init__(self, gateway: GatewayProcess, db_url: str, folder: Path, name: str, *more: str,
                 env: Optional[dict[str, str]] = None, admin_token: Optional[str] = ADMIN_TOKEN) -> None:
        self.keys_file = folder / f"{name}.keys.csv"
        token = ["--admin-token", admin_token] if admin_token else []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gatewaykit.classroom", "--upstream", gateway.base_url, "--db", db_url,
             "--port", "0", *token, "--keys-out", str(self.keys_file), *more],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "SVC_API_KEY": TEACHER_KEY, **(env or {})})
        self.lines: list[str] = []
        self.base_url = ""

    def ready(self) -> "ClassroomProcess":
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if line.startswith("classroom on "):
                self.base_url = line.split("classroom on ")[1].split()[0]
                break
        if not self.base_url:
            raise AssertionError(f"the classroom did not start: {''.join(self.lines)} "
                                 f"{self.process.stderr.read() if self.process.stderr else ''}")
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()
        return self

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def keys(self) -> dict[str, str]:
        if not self.keys_file.exists():
            return {}
        rows = self.keys_file.read_text().splitlines()[1:]
        return dict(row.split(",", 1) for row in rows)  # type: ignore[misc]

    def admin(self, method: str, path: str, body: Any = None) -> httpx.Response:
        return httpx.request(method, f"{self.base_url}/_classroom/{path}", json=body, headers=auth(ADMIN_TOKEN),
                             timeout=30)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> str:
        """Stop it (SIGTERM); everything it printed, on both streams."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)
        drainer = getattr(self, "_drainer", None)
        if drainer is not None:
            drainer.join(30)
        elif self.process.stdout is not None:
            self.lines.append(self.process.stdout.read())
        err = self.process.stderr.read() if self.process.stderr else ""
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return "".join(self.lines) + err
