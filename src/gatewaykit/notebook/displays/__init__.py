"""The notebook layer's displays: the client's ``Display`` Protocol in a kernel and in marimo.

Its place: the top of ``notebook/`` (beside ``magics.py``); the composition root
(``gatewaykit/_wiring.py``) chooses one, and nothing in the notebook layer
imports it back. Everything below it is what it shows.

- ``kernel_display``: :class:`KernelDisplay` (``chat.ask()`` -> a live stream,
  ``job.wait()`` -> the progress card, ``confirm_over`` -> the confirm card,
  ``client.compare`` and ``map``/``batch`` -> their live views);
- ``marimo_display``: :class:`MarimoDisplay`, the same in a marimo notebook or app;
- ``banner``: the offline gateway's notice; ``warning_card``: an unknown
  keyword as a card, not a red stderr box.
"""
