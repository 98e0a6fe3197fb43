"""Session tools (see the package docstring of gatewaykit.client)."""
