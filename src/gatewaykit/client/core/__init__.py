"""Core (see the package docstring of gatewaykit.client)."""
