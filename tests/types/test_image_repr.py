"""Reprs of image answers stay readable."""

import gatewaykit as gk


def test_image_data_repr_truncates_base64():
    """A large b64_json is shortened in repr and str, with its length, so tracebacks stay readable."""
    data = gk.ImageData(b64_json="A" * 100_000, url="data:image/png;base64," + "B" * 5000)
    text = repr(data)
    assert "<100,000 chars>" in text and "<5,022 chars>" in text
    assert len(text) < 600
    assert len(repr(gk.ImageResult(data=[data]))) < 300


def test_image_data_keeps_the_full_value():
    """Truncation is display-only: the field still holds every byte."""
    data = gk.ImageData(b64_json="A" * 1000)
    assert len(data.b64_json) == 1000
