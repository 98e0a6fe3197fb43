"""Scripted answers: a teacher writes the replies to their demo's prompts.

The first entry whose ``match`` fits the last user message decides: a case-insensitive substring, or
``re:`` and a regular expression whose groups fill ``$1``, ``$2``...; it gives one of ``content``,
``tool_call`` or ``json``. Matching uses the ``regex`` engine, which releases the GIL and stops after
``seconds`` of CPU time (:class:`ScriptMatchTimeout`), so a pattern that backtracks without end costs
only its own request a 400. The file format: ``docs/offline-gateway.md``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex


_KINDS = ("content", "tool_call", "json")


@dataclass(frozen=True)
class ScriptedAnswer:
    """One entry's reply with its ``$n`` references filled in."""

    content: str | None = None
    tool_call: dict[str, Any] | None = None   # {"name": str, "arguments": JSON-encoded str}


class ScriptMatchTimeout(Exception):
    """Matching one script entry's ``re:`` pattern against a message took longer than allowed."""

    def __init__(self, index: int, line: int | None, match: str, seconds: float) -> None:
        where = f"answers[{index}]" + (f" (line {line})" if line else "")
        super().__init__(
            f"The gateway's --script entry {where} with match {match!r} took longer than {seconds:g} s on this "
            "message, so the gateway stopped matching it. Change that pattern so it backtracks less (anchor it; "
            "one '.*' instead of several; a class such as '[^?]*' instead of '.*'), or send a shorter message.")
        self.index, self.line = index, line


@dataclass(frozen=True)
class _Entry:
    match: str
    regex: Any  # a compiled ``regex`` pattern (it takes timeout=), or None for a plain substring
    kind: str
    answer: Any
    line: int | None = None


def _fill(value: Any, groups: tuple[str | None, ...]) -> Any:
    if isinstance(value, str):
        return re.sub(r"\$(\d)", lambda m: (groups[int(m.group(1)) - 1] or "") if 0 < int(m.group(1)) <= len(groups)
                      else m.group(0), value)
    if isinstance(value, list):
        return [_fill(v, groups) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, groups) for k, v in value.items()}
    return value


def _match_lines(text: str) -> list[int]:
    """The line of each ``"match"`` key in a script's JSON text (entries have one each, in order)."""
    return [text.count("\n", 0, found.start()) + 1 for found in re.finditer(r'"match"\s*:', text)]


class Script:
    """A parsed script file; :meth:`answer_for` gives the scripted reply to a user message, or None."""

    def __init__(self, data: Any, source: str = "script", text: str | None = None) -> None:
        """``text``: the file's JSON text, so errors can give an entry's line number."""
        lines = _match_lines(text) if text is not None else []
        if not isinstance(data, dict) or not isinstance(data.get("answers"), list):
            raise ValueError(f'{source}: a script is a JSON object {{"answers": [...]}}')
        self.entries: list[_Entry] = []
        for i, entry in enumerate(data["answers"]):
            where = f"{source}: answers[{i}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("match"), str) or not entry["match"]:
                raise ValueError(f'{where} needs a non-empty "match" string')
            kinds = [k for k in _KINDS if k in entry]
            if len(kinds) != 1:
                raise ValueError(f'{where} needs exactly one of "content", "tool_call" or "json"')
            kind, answer = kinds[0], entry[kinds[0]]
            if kind == "content" and not isinstance(answer, str):
                raise ValueError(f'{where}.content must be a string')
            if kind == "tool_call" and not (isinstance(answer, dict) and isinstance(answer.get("name"), str)
                                            and answer["name"] and isinstance(answer.get("arguments", {}), dict)):
                raise ValueError(f'{where}.tool_call must be {{"name": str, "arguments": {{...}}}}')
            compiled = None
            line_number = lines[i] if i < len(lines) else None
            if entry["match"].startswith("re:"):
                try:
                    re.compile(entry["match"][3:], re.IGNORECASE)  # the documented syntax: Python's re
                    compiled = regex.compile(entry["match"][3:], regex.IGNORECASE | regex.VERSION0)
                except (re.error, regex.error) as exc:
                    raise ValueError(f"{where}.match is not a valid regular expression: {exc}") from None
            self.entries.append(_Entry(entry["match"], compiled, kind, answer, line_number))

    def answer_for(self, message: str, seconds: float | None = None) -> ScriptedAnswer | None:
        """The first matching entry's answer, or None; ``seconds`` bounds all regex matching together
        (:class:`ScriptMatchTimeout` names the entry that ran out of time). They are seconds of the process's
        CPU time, the clock ``regex`` checks: on a busy machine the wall time is longer, never the work."""
        deadline = None if seconds is None else time.process_time() + seconds  # the clock ``regex`` uses
        for index, entry in enumerate(self.entries):
            if entry.regex is not None:
                left = None if deadline is None else deadline - time.process_time()
                try:
                    if left is not None and left <= 0:
                        raise TimeoutError
                    found = entry.regex.search(message, timeout=left, concurrent=True)
                except TimeoutError:
                    raise ScriptMatchTimeout(index, entry.line, entry.match, seconds or 0.0) from None
                if not found:
                    continue
                groups = found.groups()
            elif entry.match.casefold() in message.casefold():
                groups = ()
            else:
                continue
            answer = _fill(entry.answer, groups)
            if entry.kind == "content":
                return ScriptedAnswer(content=answer)
            if entry.kind == "json":
                return ScriptedAnswer(content=json.dumps(answer, indent=2, ensure_ascii=False))
            return ScriptedAnswer(tool_call={"name": answer["name"],
                                             "arguments": json.dumps(answer.get("arguments", {}), ensure_ascii=False)})
        return None

    def __len__(self) -> int:
        return len(self.entries)


def load_script(source: Any) -> Script:
    """A :class:`Script` from a dict, a JSON file path or a Script; ValueError says what is wrong."""
    if isinstance(source, Script):
        return source
    if isinstance(source, (str, Path)):
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read script file {str(source)!r}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ValueError(f"script file {str(source)!r} is not UTF-8 text: save it as UTF-8 JSON") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"script file {str(source)!r} is not valid JSON: {exc}") from None
        return Script(data, source=f"script file {str(source)!r}", text=text)
    if isinstance(source, dict):
        return Script(source)
    raise ValueError(f"script must be a dict or a path to a JSON file, not {type(source).__name__}")
