"""Live chat views: a streamed answer, a conversation turn, the chat box's turns.

Its place: above ``job_views/`` (a shown answer is marked with ``shown_once``),
``cell_output/`` and the pure HTML below; below ``comparison_views/``,
``widgets/`` and ``displays/``.

- ``live`` (``render_stream``: what ``chat.ask()`` shows in a kernel) and
  ``live_renderer`` (chunks -> throttled display messages);
- ``turn_view``: one conversation turn live (each request, tool call and result);
- ``chat_view``: how the chat box shows a turn and its static transcript.
"""
