"""The resources: ``client.chat``, ``.images``, ``.videos``, ``.music``, ``.models``, ``.jobs``.

Its place: above ``client/core/`` (every creating call goes through its
request pipeline and flows), below the session tools and ``clients.py``, which
composes the resources into ``Client`` and ``AsyncClient``.

- ``chat`` (its fields written once in ``chat_fields``; ``structured`` and
  ``structured_calls`` for ``response_format=`` a pydantic model), ``images``,
  ``videos``, ``music``, ``models`` (``model_choice``: ``models.pick()``),
  ``pending_jobs`` (``client.jobs``);
- ``job_flows``: a job created, polled (one :class:`PollSchedule`), downloaded
  and cancelled, shared by videos and music;
- ``quoting``: each resource's ``quote()``; ``media_inputs``: images handed in
  (``image_part``); ``session_media``: what this session made (the gallery
  reads it); ``awaitable_surface``: the async resources' types;
- ``session_seam``: the seam ``chat.session()`` builds through (the
  conversation layer is plugged in by the composition root, never imported here).
"""
