"""The widget-based tools: the chat box, the playground and the confirmation card (ipywidgets).

Its place: below ``displays/`` (the kernel display asks through the confirm
card), above the live views they embed (chat, jobs) and everything under them.

- ``chat_box`` (``gk.chat_ui()``) and ``message_input`` (Enter sends, Shift+Enter
  is a new line);
- ``playground`` (``gk.playground()``), ``playground_fields`` (its form as data),
  ``playground_widgets``, ``playground_quote``;
- ``confirm_card``: a quote with Confirm / Cancel before a request over ``confirm_over``.
"""
