"""Pure HTML views of every gateway object: data in, a string out (no IPython, no I/O, no clocks).

Its place: near the bottom of ``notebook/``, above ``markdown_html/`` only;
every live view, widget and display renders through it.

- ``rendering``: ``mimebundle(obj)``, registered with :mod:`gatewaykit.presentation`
  (how answers, jobs, errors, sessions and the ledger show themselves);
- ``html`` (answers, errors, catalog), ``media_html`` (image grids, players, job
  cards), ``players``, ``parameter_html``;
- one renderer per kind: ``conversation_html``, ``comparison_html``,
  ``gallery_html`` (+ ``thumbnails``), ``batch_html``, ``ledger_html`` (the
  ledger's table and chart);
- ``style``: the shared inline look, escaping and number formats.
"""
