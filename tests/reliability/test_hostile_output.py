"""Hostile model (or gateway) output is inert in every HTML renderer, and huge output stays fast.

Unit-level companion of the notebook layer's browser test: each renderer of
``gatewaykit.notebook.html_views.html`` gets script tags, event handlers and
``javascript:`` URLs in every field that comes from outside, and its HTML must
hold none of them as markup.
"""

from __future__ import annotations

import re
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "notebook"))

from factories import chat, image_result, model, model_list, music_job, video_job  # noqa: E402

from gatewaykit import errors  # noqa: E402
from gatewaykit.notebook.html_views import html as views  # noqa: E402
from gatewaykit.types import Usage  # noqa: E402

EVIL = ('<script>alert(1)</script><img src=x onerror="alert(2)"><svg onload=alert(3)>'
        '<a href="javascript:alert(4)">x</a>[click](javascript:alert(5)) <iframe src="javascript:alert(6)">')
EVIL_URL = "javascript:alert(7)"
ACTIVE_TAGS = {"script", "iframe", "svg", "object", "embed", "form", "style", "link", "meta", "base", "frame"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "poster", "srcset"}


class _Markup(HTMLParser):
    """The real tags and attributes of a fragment (escaped text is data, not markup)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {name: value or "" for name, value in attrs}))


def assert_inert(fragment: str) -> None:
    parser = _Markup()
    parser.feed(fragment)
    parser.close()
    for tag, attrs in parser.tags:
        assert tag not in ACTIVE_TAGS, f"<{tag}> survived"
        assert not [name for name in attrs if name.startswith("on")], f"an on* handler survived on <{tag}>"
        for name in URL_ATTRIBUTES & set(attrs):
            url = re.sub(r"[\x00-\x20\x7f]", "", attrs[name]).lower()
            assert not url.startswith(("javascript:", "vbscript:")), f"{name}={attrs[name]!r} on <{tag}>"
            if tag == "img":
                assert url.startswith("data:image/"), f"<img src={attrs[name]!r}> would load a remote URL"


def _tool_call() -> dict:
    return {"id": "call_1", "type": "function", "function": {"name": EVIL, "arguments": '{"x": "' + EVIL.replace(
        '"', "'") + '"}'}}


RENDERINGS = {
    "chat content": lambda: views.render_chat_html(chat(EVIL)),
    "chat reasoning and refusal": lambda: views.render_chat_html(chat("ok", reasoning=EVIL, refusal=EVIL)),
    "chat tool calls": lambda: views.render_chat_html(chat(None, tool_calls=[_tool_call()])),
    "chat note and model": lambda: views.render_chat_html(chat("ok", model=EVIL), note=EVIL),
    "reasoning": lambda: views.render_reasoning_html(EVIL, open=True),
    "tool calls": lambda: views.render_tool_calls_html(chat(None, tool_calls=[_tool_call()]).choices[0].message.tool_calls),
    "live chat": lambda: views.render_live_chat_html("<p>ok</p>", reasoning=EVIL, model=EVIL, note=EVIL),
    "live chat part": lambda: views.render_live_part_html(["<p>ok</p>"], reasoning=EVIL, footer=[EVIL, EVIL]),
    "usage": lambda: views.render_usage_html(Usage.model_validate({"prompt_tokens": 1, "completion_tokens": 1,
                                                                    "total_tokens": 2, "cost": {"total_cost": 0.1},
                                                                    "note": EVIL})),
    "error": lambda: views.render_error_html(errors.BadRequestError(EVIL, code=EVIL, param=EVIL, type=EVIL)),
    "image grid": lambda: views.render_image_grid_html(image_result(2, revised_prompt=EVIL)),
    "edit": lambda: views.render_edit_html([], image_result(1, revised_prompt=EVIL)),
    "failed video job": lambda: views.render_job_html(video_job("failed", model=EVIL, error={"message": EVIL}),
                                                     hint=EVIL),
    "music job": lambda: views.render_job_html(music_job("in_progress", model=EVIL)),
    "video player": lambda: views.render_video_player_html(EVIL_URL, download_href=EVIL_URL, filename=EVIL),
    "audio player": lambda: views.render_audio_player_html(EVIL_URL, download_href=EVIL_URL, filename=EVIL),
    "models table": lambda: views.render_models_table_html([model().model_copy(update={"id": EVIL})]),
    "model": lambda: views.render_model_html(model().model_copy(update={"id": EVIL, "owned_by": EVIL})),
    "offline banner": lambda: views.render_offline_banner_html(EVIL_URL + EVIL),
    "dashboard": lambda: views.render_jobs_dashboard_html([views.render_job_html(video_job("failed", error={
        "message": EVIL}))], [EVIL]),
}


def test_every_renderer_is_covered():
    """Each public renderer of gatewaykit.notebook.html_views.html is exercised by a case below."""
    covered = {"render_chat_html", "render_reasoning_html", "render_tool_calls_html", "render_live_chat_html",
               "render_usage_html", "render_error_html", "render_image_grid_html", "render_edit_html",
               "render_job_html", "render_video_player_html", "render_audio_player_html",
               "render_models_table_html", "render_model_html", "render_offline_banner_html",
               "render_jobs_dashboard_html", "render_live_part_html"}
    assert set(views.__all__) == covered
    assert model_list().data


@pytest.mark.parametrize("name", list(RENDERINGS))
def test_hostile_text_is_inert(name):
    """Script tags, on* handlers, javascript: URLs and active tags never survive as markup."""
    assert_inert(RENDERINGS[name]())


def test_five_megabyte_answer_renders_in_bounded_time():
    """A 5 MB answer (Markdown with hostile bits) renders its first part quickly, inert, saying what is left out."""
    huge = ("A line of **model output** with <script>x</script> and [l](javascript:y).\n\n" * 70_000)[:5_000_000]
    began = time.monotonic()
    rendered = views.render_chat_html(chat(huge))
    assert time.monotonic() - began < 60  # bounded: unbounded Markdown parsing of 5 MB takes many minutes
    assert_inert(rendered)
    assert "more characters not shown" in rendered and len(rendered) < 1_000_000


def test_five_megabyte_single_line_renders_in_bounded_time():
    """A 5 MB answer with no line breaks (worst case for Markdown inline parsing) renders in bounded time."""
    huge = ("<b onmouseover=x>*nested _emphasis `code* [" * 120_000)[:5_000_000]
    began = time.monotonic()
    rendered = views.render_chat_html(chat(huge))
    assert time.monotonic() - began < 60  # bounded: unbounded Markdown parsing of 5 MB takes many minutes
    assert_inert(rendered)
