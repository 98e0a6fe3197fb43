"""Live job views: progress for video and music jobs, a blocking ``job.wait()``, Cancel.

Its place: above ``cell_output/`` and the pure HTML (``html_views/``); below the
chat, comparison and widget views, which use ``shown_once`` and the progress card.

- ``job_progress`` (``show_progress``: polls, then turns into players),
  ``job_wait`` (``wait_with_progress``: what ``job.wait()`` runs in a kernel),
  ``cancel`` (the Cancel buttons), ``wait_interrupted`` (the stop button: a note and one dim line);
- ``shown_once``: a streamed answer or a waited-for job is not shown twice in its cell.
"""
