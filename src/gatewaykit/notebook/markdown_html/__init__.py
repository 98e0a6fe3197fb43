"""Model text to safe HTML: Markdown with raw HTML escaped and sanitised, code highlighted.

Its place: the bottom of ``notebook/``; it imports no other notebook package.

- ``markdown``: a whole answer; ``markdown_stream``: a growing answer (finished
  blocks rendered once); ``code_highlight``: Pygments with inline styles.
"""
