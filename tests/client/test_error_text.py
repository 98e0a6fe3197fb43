"""Errors read as Python: endpoints named as client calls, and the short notebook traceback."""

import pytest

import gatewaykit as gk
from gatewaykit.error_text import python_call, short_traceback, speak_python
from gatewaykit.errors import error_from_response


@pytest.mark.parametrize(
    ("method", "path", "call"),
    [
        ("GET", "/v1/models", "client.models.list()"),
        ("GET", "/v1/videos/vid_1", "client.videos.retrieve('vid_1')"),
        ("DELETE", "/v1/videos/vid_1", "client.videos.delete('vid_1')"),
        ("POST", "/v1/videos", "client.videos.create(...)"),
        ("GET", "/v1/audio/generations/aud_2", "client.music.retrieve('aud_2')"),
        ("POST", "/v1/images/edits", "client.images.edit(...)"),
        ("POST", "/v1/chat/completions", "client.chat.completions.create(...)"),
    ],
)
def test_endpoints_map_to_client_calls(method, path, call):
    """Each endpoint the client uses is named as the call that makes it."""
    assert python_call(method, path) == call


def test_a_gateway_message_naming_an_endpoint_speaks_python():
    """'List models with GET /v1/models' from the gateway reads 'client.models.list()' on the error."""
    error = error_from_response(400, {"error": {"message": "No such model. List models with GET /v1/models.",
                                                "code": "model_not_found", "param": "model"}})
    assert error.message == "No such model. List models with client.models.list()."
    assert "GET /v1/models" in error.body["error"]["message"]  # the gateway's own words stay in body


def test_text_without_an_endpoint_is_unchanged():
    """Messages that name no endpoint pass through as they are."""
    assert speak_python("width must be from 256 to 2048 (got 10)") == "width must be from 256 to 2048 (got 10)"


def test_short_traceback_names_error_message_parameter_and_the_callers_line(client):
    """The short view: error class, message, parameter, the user's line and the %tb hint; no library frames."""
    try:
        client.images.generate(model="image-pixels", prompt="a fox", width=999, height=256)
    except gk.BadRequestError as error:
        lines = short_traceback(error)
    text = "\n".join(lines)
    assert "BadRequestError" in lines[0] and "(got 999)" in text and "parameter: width" in text
    assert "client.images.generate(" in text and "%tb" in lines[-1]
    assert "validation.py" not in text and len(lines) <= 6


def test_the_second_render_is_the_full_traceback(client):
    """After the short view, asking again (%tb) gives the full traceback with library frames."""
    try:
        client.images.generate(model="image-pixels", prompt="a fox", width=999, height=256)
    except gk.BadRequestError as error:
        short_traceback(error)
        full = "\n".join(error._render_traceback_())
    assert full.startswith("Traceback") and "validation.py" in full
