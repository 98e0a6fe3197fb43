"""The Cancel buttons' display bundle on ipywidgets 8 (JupyterLab) and 7 (Colab pins 7.7.1)."""

from __future__ import annotations

import pytest

from gatewaykit.notebook.job_views.cancel import _widget_view_bundle

ipywidgets = pytest.importorskip("ipywidgets")
VIEW = "application/vnd.jupyter.widget-view+json"


class Widget7:
    """What an ipywidgets 7 widget offers a display: a model id, no _repr_mimebundle_."""

    model_id = "0123456789abcdef"


def test_ipywidgets_8_widget_uses_its_own_bundle() -> None:
    """A widget with _repr_mimebundle_ is shown through it (the view points at its model)."""
    box = ipywidgets.HBox([ipywidgets.Button(description="Cancel")])
    bundle = _widget_view_bundle(box)
    assert bundle[VIEW]["model_id"] == box.model_id
    box.close()


def test_ipywidgets_7_widget_gets_a_view_bundle_for_its_model() -> None:
    """A widget without _repr_mimebundle_ (ipywidgets 7) gets a version-2 widget view of its model id."""
    assert _widget_view_bundle(Widget7()) == {VIEW: {"version_major": 2, "version_minor": 0,
                                                     "model_id": "0123456789abcdef"}}
