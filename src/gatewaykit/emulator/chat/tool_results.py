"""The synthetic answer after tool results: it states what each tool returned and adds nothing."""

from __future__ import annotations

import json
from typing import Any


def text_of(content: Any) -> str:
    """The text of a message's content (a string, or the text parts of a list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text") or "" for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def tool_reply(messages: list[dict[str, Any]]) -> str:
    """The answer after tool results: it states what each tool returned (the offline model adds nothing)."""
    results = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.append(message)
    results.reverse()
    names = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict) and isinstance(call.get("function"), dict) and isinstance(call.get("id"), str):
                names[call["id"]] = call["function"].get("name")
    lines = []
    for message in results:
        content = text_of(message.get("content")).strip()
        name = names.get(message.get("tool_call_id")) or "tool"
        try:
            data = json.loads(content)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict) and data:
            lines.append(f"The `{name}` tool returned:")
            lines += [f"- **{key}**: {value if isinstance(value, str) else json.dumps(value)}"
                      for key, value in list(data.items())[:12]]
            lines.append("")
        elif isinstance(data, (int, float, str)) and not isinstance(data, bool) or (data is None and content):
            shown = content if data is None else str(data)
            conclusion = f", so the answer is **{shown[:500]}**" if len(results) == 1 else ""
            lines += [f"The `{name}` tool returned **{shown[:500]}**{conclusion}.", ""]
        else:
            lines += [f"The `{name}` tool returned: {content[:500]}", ""]
    whose = "the tool's result" if len(results) == 1 else "the tools' results"
    lines.append(f"(The offline model only repeats {whose}; it adds no knowledge of its own.)")
    return "\n".join(lines)
