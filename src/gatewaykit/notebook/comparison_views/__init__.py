"""Comparison views (see the package docstring of gatewaykit.notebook)."""
