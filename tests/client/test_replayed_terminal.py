"""In a terminal, an answer replayed from a cassette is followed by one stderr line saying it was not charged.

A cassette is recorded against the shared offline gateway through the terminal
display (whose output is kept for comparison), then replayed with no gateway and
no key through a fresh terminal display.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk
from gatewaykit.client.terminal_display import TerminalDisplay
from gatewaykit.money import format_usd

PROMPT = "Say hello to the terminal, replayed."


def ask_twice(client: gk.Client) -> gk.ChatCompletion:
    """chat.ask(), then a conversation turn (the session streams through the display's turn view)."""
    answer = client.chat.ask(PROMPT, model="chat-mini")
    client.chat.session(model="chat-mini")(PROMPT)
    return answer


@pytest.fixture
def recorded(emulator: Any, keys: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Any, Any]:
    """The cassette, the fresh answer, and what the fresh run wrote (stdout, stderr)."""
    path = tmp_path / "terminal.jsonl"
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, cassette=path, cassette_mode="record",
                   ledger=gk.Ledger(), display=TerminalDisplay()) as client:  # fmt: skip
        answer = ask_twice(client)
    return path, answer, capsys.readouterr()


def test_a_fresh_answer_writes_only_its_text(recorded: tuple[Path, Any, Any]) -> None:
    """Answered by the gateway: the text on stdout, nothing on stderr."""
    _path, answer, fresh = recorded
    assert fresh.out == (answer.content + "\n") * 2 and fresh.err == ""


def test_a_replayed_answer_says_so_on_stderr(
    recorded: tuple[Path, Any, Any], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replayed: the same text on stdout, and after each answer one stderr line, the ledger's words."""
    path, answer, fresh = recorded
    monkeypatch.delenv("SVC_API_KEY", raising=False)
    monkeypatch.delenv("SVC_BASE_URL", raising=False)
    with gk.Client(cassette=path, cassette_mode="replay", ledger=gk.Ledger(), display=TerminalDisplay()) as client:
        ask_twice(client)
        notes = {row["note"] for row in client.ledger.rows}
    replayed = capsys.readouterr()
    line = f"gatewaykit: replayed from a cassette: not charged (recorded cost {format_usd(answer.usage.total_cost)})\n"
    assert replayed.out == fresh.out
    assert replayed.err == line * 2
    assert notes == {line[len("gatewaykit: "):].strip()}  # the display and the ledger row say the same


def test_a_cached_answer_says_so_on_stderr(emulator: Any, keys: Any, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Answered from the response cache: the same text on stdout, and after each answer one stderr line, the
    ledger's words (what the kept answer saved). In the first run the ask is paid (no line); the turn after it
    sends the same body, so the cache answers it (one line)."""

    def client() -> gk.Client:
        return gk.Client(api_key=keys.acme, base_url=emulator.base_url, cache=tmp_path / "cache", ledger=gk.Ledger(),
                         display=TerminalDisplay())  # fmt: skip

    with client() as first:
        answer = ask_twice(first)
    fresh = capsys.readouterr()
    with client() as second:
        ask_twice(second)
        notes = {row["note"] for row in second.ledger.rows}
    cached = capsys.readouterr()
    line = f"gatewaykit: cached: not sent, not charged (saved {format_usd(answer.usage.total_cost)})\n"
    assert fresh.err == line and cached.out == fresh.out
    assert cached.err == line * 2
    assert notes == {line[len("gatewaykit: "):].strip()}  # the display and the ledger row say the same
