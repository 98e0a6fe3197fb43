"""Markdown html (see the package docstring of gatewaykit.notebook)."""
