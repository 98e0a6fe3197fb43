"""Displays (see the package docstring of gatewaykit.notebook)."""
