"""Live views of the session tools: ``client.compare``'s grid and ``map``/``batch`` progress.

Its place: above ``chat_views/`` (a chat column streams through the live chat
renderer) and everything under it; below ``widgets/`` and ``displays/``.
The finished objects render through ``html_views/`` (``comparison_html``,
``batch_html``, ``gallery_html``).

- ``comparison_live``: :class:`LiveComparisonView`, the grid at once, each
  column filled as its model answers;
- ``batch_view``: :class:`LiveBatchProgress`, then a static summary.
"""
