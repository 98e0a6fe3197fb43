"""Marks notebooks/ as a package so its conftest.py is imported as notebooks.conftest, not as a second top-level `conftest` (tests import names from tests/conftest.py)."""
