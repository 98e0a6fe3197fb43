"""The conversation layer: chat sessions with history, tool loops and transcripts.

Built on the *public* client (it sends through ``client.chat.completions``),
so it sits above the HTTP core and the core never imports it; the composition
root (``gatewaykit._wiring``) plugs :class:`ChatSession` into
``client.chat.session()``.

- ``session``: :class:`ChatSession` / :class:`AsyncChatSession`, the drivers of a turn;
- ``state``: what both drivers share (history, defaults, cost, undo, parse);
- ``tool_loop``: one turn as a sans-I/O generator (ask, run tools, ask again, up to ``max_steps``);
- ``tools``: plain Python functions as tools (pydantic builds the schema; approval; results as text);
- ``transcript``: Markdown / HTML / JSON export and ``from_markdown``.
"""

from gatewaykit.client.conversation.session import AsyncChatSession, ChatSession, show_live, show_live_async
from gatewaykit.client.conversation.tool_loop import Turn, TurnEvent

__all__ = ["AsyncChatSession", "ChatSession", "Turn", "TurnEvent", "show_live", "show_live_async"]
