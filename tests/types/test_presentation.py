"""Core objects display through the presentation registry: rich with the notebook layer, text/plain without."""

from __future__ import annotations

import pytest

import gatewaykit as gk
from gatewaykit import presentation


@pytest.fixture
def saved_renderer():
    saved = presentation._renderer
    yield
    presentation.register_renderer(saved)


def test_a_core_type_renders_rich_without_naming_the_notebook_layer() -> None:
    """A Model shows HTML: the composition root loads the notebook renderer on the first display."""
    bundle = gk.Model(id="chat-mini", object="model")._repr_mimebundle_()
    assert "text/html" in bundle and "chat-mini" in bundle["text/plain"]


def test_without_a_renderer_objects_show_as_text(saved_renderer) -> None:
    """With no registered renderer a type, an error and the ledger each show text/plain only."""
    presentation.register_renderer(None)
    for shown in (gk.Model(id="chat-mini", object="model"), gk.BadRequestError("bad"), gk.Ledger()):
        assert list(shown._repr_mimebundle_()) == ["text/plain"]


def test_a_failing_renderer_falls_back_to_text(saved_renderer) -> None:
    """A renderer that raises never breaks the cell: the object shows its repr."""

    def broken(obj):
        raise RuntimeError("display bug")

    presentation.register_renderer(broken)
    error = gk.NotFoundError("no such job")
    assert error._repr_mimebundle_() == {"text/plain": repr(error)}
