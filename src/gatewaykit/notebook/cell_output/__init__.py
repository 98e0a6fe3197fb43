"""Where notebook output goes: the kernel, the cell that started a thread, a sink; clicks while a cell blocks.

Its place: below every live view (they publish through it), above the pure
HTML (``html_views/``); it imports IPython only when it is already loaded.

- ``kernel``: threads that publish to the cell that started them, ``in_kernel``;
- ``sinks``: a live view's ``show`` / ``update`` target;
- ``widget_events``: widget events handled while a cell blocks (a working Cancel);
- ``quiet_stops``: a Cancel on the confirmation card, or the stop button during a wait, ends its cell with one
  dim line, not an error box.
"""
