"""The session tools: what a working session does with many calls at once.

Its place: above the resources and the core (it uses their results and the
core's ``Display`` seam), below ``clients.py``, which offers each tool as a
client method, and below the conversation layer; it never imports a resource.

- ``comparison`` (``client.compare``: one prompt, several models, side by
  side) and ``comparison_runs`` (its concurrent runs, shown through the
  core's ``ComparisonView``);
- ``gallery`` (``gk.gallery()``: every image, video and song this session made);
- ``batch`` (``map`` / ``batch``: many requests, bounded concurrency,
  :class:`BatchResult`);
- ``checkpoint``, ``checkpoint_values`` and ``call_fingerprint``: a batch that
  resumes where it stopped (results kept as JSON, each call known by a fingerprint).
"""
