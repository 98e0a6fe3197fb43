"""The OpenAPI document (filled in below)."""


def build_document() -> dict:
    return {"openapi": "3.1.0", "info": {"title": "Multi-modal Generation Gateway (offline)", "version": "1.0.0"},
            "paths": {}}
