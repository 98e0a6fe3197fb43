"""The client core: one request from keyword to typed response, shared by every resource.

Its place: below the resources (``client/resources/``), which build their calls
from it, and above ``transports/`` and ``api_request``, through which it sends;
it never imports a resource, a session tool, the conversation layer, the
notebook layer or the offline gateway (import-linter contracts in pyproject.toml).

- ``options``: :class:`ClientOptions`, ``Client(...)``'s keywords written once
  (the constructor, the pickle and ``repr`` read them); ``config``: the resolved
  connection and the offline gateway provider (a seam); ``pickling``: what a
  pickled client carries;
- ``base``: what the sync and async clients share, doing no I/O (settings,
  headers, the catalog cache, one billable call); ``key_fingerprint``: the
  one-way key id the ledger keeps;
- ``request_pipeline``: every creating call's path, top to bottom (normalise ->
  check against the spec and the catalog -> encode -> price and record ->
  confirm -> send); ``validation``, ``parameter_names`` and ``model_names`` are
  its checks, ``recording`` its hand-over to the ledger, ``confirmation`` the
  ``confirm_over`` question;
- ``flows``: multi-step behaviour as generators (retries, job polling) with a
  sync and an async driver;
- ``sse``, ``assembly`` and ``streaming``: a stream decoded and assembled into
  a typed answer;
- ``display`` and ``comparison_view``: the :class:`Display` Protocol (and the
  view of a running comparison) the core shows its work through; the
  implementations live above (``client/terminal_display.py``, the notebook layer).
"""
