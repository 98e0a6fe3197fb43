"""Resources (see the package docstring of gatewaykit.client)."""
