"""The resources: ``client.chat``, ``.images``, ``.videos``, ``.music``, ``.models``, ``.jobs``.

Above ``client/core/`` (every creating call goes through its request pipeline and flows), below the
session tools and ``clients.py``, which composes them into ``Client`` and ``AsyncClient``.
The module map: ``docs/internals.md``.
"""
