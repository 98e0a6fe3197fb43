"""Checkpoints store data, not code, and notice a changed call (issue 19, items 7 and 16).

Item 7: results were pickled, so a tampered checkpoint file ran code when the
same ``client.map(..., checkpoint=)`` was re-run. Item 16: results were keyed by
item only, so another function or model on the same file silently returned
the old results. The gateway is the real offline gateway.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk
from gatewaykit.client.session_tools.checkpoint import Checkpoint, item_keys

PROMPTS = ["Name a river.", "Name a mountain."]
MODEL = "chat-mini"


class _Payload:
    """What an attacker pickles: unpickling it creates ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


def _legacy_checkpoint(path: Path, marker: Path) -> None:
    """A checkpoint in the old pickle format whose one stored result runs code when unpickled."""
    import pickle

    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE results (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
        blob = pickle.dumps(_Payload(marker))
        connection.execute("INSERT INTO results VALUES (?, ?)", (item_keys(PROMPTS)[0], blob))


def _asker(client: gk.Client, sent: list[str]) -> Any:
    def ask(prompt: str) -> Any:
        sent.append(prompt)
        return client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}])

    return ask


def test_a_pickle_checkpoint_is_refused_and_never_unpickled(client: gk.Client, tmp_path: Path) -> None:
    """An old-format (pickle) checkpoint is a ConfigurationError saying why; its payload never runs; nothing is sent."""
    path, marker, sent = tmp_path / "run.sqlite", tmp_path / "owned", []
    _legacy_checkpoint(path, marker)
    with pytest.raises(gk.ConfigurationError, match="pickles .* can run any code, so it is not read"):
        client.map(_asker(client, sent), PROMPTS, checkpoint=path)
    assert not marker.exists() and sent == []


def test_a_tampered_row_is_never_code_and_runs_again(client: gk.Client, tmp_path: Path) -> None:
    """A row rewritten to a pickle or to an unknown type is not used: the item runs again, with a warning."""
    path, marker, sent = tmp_path / "run.sqlite", tmp_path / "owned", []
    ask = _asker(client, sent)
    first = client.map(ask, PROMPTS, checkpoint=path)
    import pickle

    with sqlite3.connect(path) as connection:
        keys = item_keys(PROMPTS)
        connection.execute("UPDATE results SET value = ? WHERE key = ?", (pickle.dumps(_Payload(marker)), keys[0]))
        connection.execute("UPDATE results SET value = ? WHERE key = ?", ('{"$type": "os.system", "data": "id"}', keys[1]))
    with pytest.warns(gk.CheckpointWarning, match=r"2 stored result\(s\) could not be read"):
        again = client.map(ask, PROMPTS, checkpoint=path)
    assert not marker.exists() and sent == PROMPTS * 2 and again.ok and len(again) == len(first)


def test_results_come_back_as_their_types(client: gk.Client, tmp_path: Path) -> None:
    """Completions, images, jobs (still bound: content() works) and JSON values (tuples too) are rebuilt as stored."""
    path = tmp_path / "run.sqlite"
    made: list[str] = []

    def make(kind: str) -> Any:
        made.append(kind)
        if kind == "chat":
            return client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Hi"}])
        if kind == "image":
            return client.images.generate(model="image-pixels", prompt="a lighthouse", width=256, height=256)
        if kind == "video":
            return client.videos.create(model="video-range", prompt="waves", duration=2).wait(timeout=60)
        return {"n": 1, "pair": (1, "a"), "$odd": [None, 2.5, True]}

    kinds = ["chat", "image", "video", "json"]
    first = client.map(make, kinds, checkpoint=path).raise_first()
    again = client.map(make, kinds, checkpoint=path)
    assert made == kinds and [type(result) for result in again] == [type(result) for result in first]
    assert [r.model_dump() for r in again[:3]] == [r.model_dump() for r in first[:3]] and again[3] == first[3]
    assert again[2].content()[4:8] == b"ftyp" and isinstance(again[1].images[0].size, tuple)


def test_the_file_holds_json_not_pickles(client: gk.Client, tmp_path: Path) -> None:
    """Every stored value is JSON text (readable, diffable, no code)."""
    path = tmp_path / "run.sqlite"
    client.map(_asker(client, []), PROMPTS, checkpoint=path)
    with sqlite3.connect(path) as connection:
        values = [row[0] for row in connection.execute("SELECT value FROM results")]
    assert len(values) == 2 and all(json.loads(value)["$type"] == "ChatCompletion" for value in values)


# -- item 16: a changed call is noticed ---------------------------------------------------------


def test_another_function_on_the_same_checkpoint_runs_again_with_a_warning(client: gk.Client, tmp_path: Path) -> None:
    """map(g, items) on a checkpoint written by map(f, items) warns and calls g for every item."""
    path = tmp_path / "run.sqlite"
    client.map(lambda prompt: prompt.upper(), PROMPTS, checkpoint=path)
    with pytest.warns(gk.CheckpointWarning, match=r"2 stored result\(s\) were made by a different call"):
        again = client.map(lambda prompt: prompt.lower(), PROMPTS, checkpoint=path)
    assert list(again) == [prompt.lower() for prompt in PROMPTS]


def test_the_same_call_reuses_its_results_without_a_warning(client: gk.Client, tmp_path: Path) -> None:
    """The same function (with a list it fills) re-run: stored results come back, nothing is sent, no warning."""
    path, sent = tmp_path / "run.sqlite", []
    ask = _asker(client, sent)
    first = client.map(ask, PROMPTS, checkpoint=path)
    again = client.map(ask, PROMPTS, checkpoint=path)
    assert sent == PROMPTS and [r.id for r in again] == [r.id for r in first]


def test_a_changed_model_global_runs_again(client: gk.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The function reads the global MODEL; changing it makes the stored results another call's."""
    path, sent = tmp_path / "run.sqlite", []
    ask = _asker(client, sent)
    client.map(ask, PROMPTS, checkpoint=path)
    monkeypatch.setattr(f"{__name__}.MODEL", "chat-reasoner")
    with pytest.warns(gk.CheckpointWarning, match="different call"):
        again = client.map(ask, PROMPTS, checkpoint=path)
    assert sent == PROMPTS * 2 and {r.model for r in again} != {"chat-mini"}


def test_a_changed_partial_model_runs_again(client: gk.Client, tmp_path: Path) -> None:
    """map(partial(ask, model=...)) with another model re-runs; with the same model it does not."""
    path, sent = tmp_path / "run.sqlite", []

    def ask(prompt: str, model: str) -> Any:
        sent.append(model)
        return client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}])

    client.map(functools.partial(ask, model="chat-mini"), PROMPTS, checkpoint=path)
    client.map(functools.partial(ask, model="chat-mini"), PROMPTS, checkpoint=path)
    with pytest.warns(gk.CheckpointWarning, match="different call"):
        client.map(functools.partial(ask, model="chat-reasoner"), PROMPTS, checkpoint=path)
    assert sent == ["chat-mini"] * 2 + ["chat-reasoner"] * 2
    assert len(Checkpoint(path).load(item_keys(PROMPTS))) == 2
