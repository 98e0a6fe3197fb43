"""The client core: one request from keyword to typed response, shared by every resource.

Below the resources, above ``transports/`` and ``api_request``; it never imports a resource, a session
tool, the conversation layer, the notebook layer or the offline gateway (import-linter contracts).
The request pipeline, options, checks, flows (retries, polling), streams and the ``Display`` Protocol
live here. The module map: ``docs/internals.md``.
"""
