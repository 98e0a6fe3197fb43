"""Cell output (see the package docstring of gatewaykit.notebook)."""
