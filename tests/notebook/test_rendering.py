"""mimebundle(): every gateway object displays with HTML and a text/plain fallback."""

import pytest
from factories import HOSTILE, chat, image_result, model, model_list, music_job, usage, video_job

from gatewaykit.errors import JobFailedError, RateLimitError
from gatewaykit.notebook.html_views import rendering
from gatewaykit.notebook.html_views.rendering import mimebundle
from gatewaykit.types import ChatCompletionChunk, ToolCall, Usage


def test_chat_completion_renders_markdown_with_footer():
    """A chat completion shows rendered Markdown and a footer with model, tokens and cost."""
    bundle = chat("Hello **world**")._repr_mimebundle_()
    html = bundle["text/html"]
    assert "<strong>world</strong>" in html
    assert "chat-mini" in html and "12 in + 30 out tokens" in html and "$0.000123" in html


def test_chat_text_plain_has_answer_and_footer():
    """The text/plain fallback carries the answer and a footer line."""
    plain = mimebundle(chat("Hello"))["text/plain"]
    assert plain.startswith("Hello\n— chat-mini")
    assert "$0.000123" in plain


def test_chat_reasoning_is_collapsed():
    """The reasoning trace is inside a closed <details>."""
    html = mimebundle(chat("A", reasoning="step one, step two"))["text/html"]
    assert '<details class="gk-reasoning" style' in html
    assert "step one, step two" in html


def test_chat_tool_calls_are_listed_with_pretty_arguments():
    """Tool calls show the function name and indented JSON arguments."""
    call = ToolCall.model_validate({"id": "t1", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}})
    completion = chat(None, tool_calls=[call.model_dump()], finish_reason="tool_calls")
    bundle = mimebundle(completion)
    assert "get_weather" in bundle["text/html"]
    assert "&quot;city&quot;: &quot;Paris&quot;" in bundle["text/html"]
    assert "finish: tool_calls" in bundle["text/html"]
    assert 'tool call: get_weather({"city": "Paris"})' in bundle["text/plain"]


def test_chat_hostile_content_is_inert():
    """Hostile model output renders with no script element, event handler or javascript: href."""
    html = mimebundle(chat(HOSTILE))["text/html"]
    assert "<script" not in html
    assert "<img" not in html
    assert 'href="javascript' not in html
    assert "&lt;script&gt;" in html


def test_hostile_reasoning_and_tool_arguments_are_escaped():
    """Reasoning and tool arguments are escaped too, not only the answer."""
    call = {"id": "t", "function": {"name": "<script>x</script>", "arguments": "<img src=x onerror=y>"}}
    html = mimebundle(chat("ok", reasoning="<script>r</script>", tool_calls=[call]))["text/html"]
    assert "<script" not in html and "<img" not in html


def test_chat_html_is_deterministic():
    """The same completion always gives byte-identical HTML (no ids, no times)."""
    assert mimebundle(chat("x"))["text/html"] == mimebundle(chat("x"))["text/html"]


def test_empty_content_with_length_finish_says_so():
    """An empty answer cut by max_tokens shows '(no content)' and the finish reason."""
    html = mimebundle(chat("", finish_reason="length"))["text/html"]
    assert "(no content)" in html and "finish: length" in html


def test_chunk_has_text_plain_only():
    """A single streamed chunk shows as short text."""
    chunk = ChatCompletionChunk.model_validate({"model": "m", "choices": [{"index": 0, "delta": {"content": "hi"}}]})
    assert mimebundle(chunk) == {"text/plain": "ChatCompletionChunk('m', 'hi')"}


def test_single_image_renders_inline_png():
    """An image result shows the image as a data:image/png URI and a footer."""
    bundle = mimebundle(image_result(1))
    assert bundle["text/html"].count('<img src="data:image/png;base64,') == 1
    assert "image-pixels" in bundle["text/html"] and "$0.04<" in bundle["text/html"]
    assert bundle["text/plain"] == "ImageResult(image-pixels, 4x3, 1 image, $0.04)"


def test_several_images_render_as_grid():
    """Several images render inside one flex grid."""
    html = mimebundle(image_result(3))["text/html"]
    assert html.count("<img ") == 3 and "gk-image-grid" in html


def test_revised_prompt_caption_is_escaped():
    """A revised prompt is shown as an escaped caption."""
    html = mimebundle(image_result(1, revised_prompt="<script>x</script>"))["text/html"]
    assert "<script" not in html and "&lt;script&gt;" in html


def test_model_list_renders_table():
    """A model list shows as a table with one row per model."""
    bundle = mimebundle(model_list())
    assert bundle["text/html"].count("<tr>") == 3
    assert "up to 14 images" in bundle["text/html"]
    assert "chat-mini" in bundle["text/plain"] and "image-tiers" in bundle["text/plain"]


def test_model_renders_parameters():
    """A single model shows its parameters with values and default."""
    html = mimebundle(model())["text/html"]
    assert "resolution" in html and "1K, 2K" in html


def test_usage_renders_tokens_and_cost():
    """Usage shows tokens, reasoning tokens and cost."""
    bundle = mimebundle(Usage.model_validate(usage(reasoning=7)))
    assert "7 reasoning" in bundle["text/html"]
    assert bundle["text/plain"] == "Usage(12 in + 30 out tokens · 7 reasoning · $0.000123)"


def test_tokens_served_from_the_prompt_cache_are_said_beside_the_input():
    """They bill at the cache-read rate: a cost under tokens x the input price is explained where it is shown."""
    cached = Usage.model_validate({**usage(), "prompt_tokens": 456, "prompt_tokens_details": {"cached_tokens": 256}})
    bundle = mimebundle(cached)
    assert "456 in (256 from the prompt cache) + 30 out tokens" in bundle["text/html"]
    assert bundle["text/plain"].startswith("Usage(456 in (256 from the prompt cache) + 30 out tokens · $")
    none_cached = Usage.model_validate({**usage(), "prompt_tokens_details": {"cached_tokens": 0}})
    assert "prompt cache" not in mimebundle(none_cached)["text/plain"]


def test_queued_job_shows_state_without_timings():
    """A queued video job shows its state, size and length, with no elapsed time."""
    bundle = mimebundle(video_job("queued"))
    assert 'data-status="queued"' in bundle["text/html"]
    assert "720p" in bundle["text/html"] and "elapsed" not in bundle["text/html"]
    assert bundle["text/plain"] == "VideoJob('video_1', video-tiers, queued, 720p, 4s)"


def test_failed_job_shows_gateway_message():
    """A failed job shows the gateway's error message, escaped."""
    bundle = mimebundle(music_job("failed", error={"message": "synth <b>broke</b>"}))
    assert "synth &lt;b&gt;broke&lt;/b&gt;" in bundle["text/html"]
    assert "error: synth <b>broke</b>" in bundle["text/plain"]


def test_completed_job_without_client_shows_note_not_traceback():
    """A completed job that cannot fetch its content shows a note instead of failing."""
    job = video_job("completed", videos=[{"url": "https://example.org/v.mp4", "content_type": "video/mp4"}])
    html = mimebundle(job)["text/html"]
    assert "media not embedded" in html and 'href="https://example.org/v.mp4"' in html


def test_rendering_bug_falls_back_to_text(monkeypatch):
    """If a renderer raises, the bundle is plain text instead of an error."""

    def broken(obj):
        raise RuntimeError("bug")

    monkeypatch.setattr(rendering.views, "render_chat_html", broken)
    bundle = mimebundle(chat("x"))
    assert list(bundle) == ["text/plain"]


@pytest.mark.parametrize(
    "error",
    [RateLimitError("slow down <script>", status=429), JobFailedError("render <img src=x onerror=y> failed")],
)
def test_errors_render_escaped(error):
    """Errors display their class and message, escaped."""
    bundle = error._repr_mimebundle_()
    assert type(error).__name__ in bundle["text/html"]
    assert "<script" not in bundle["text/html"] and "<img" not in bundle["text/html"]
    assert bundle["text/plain"] == str(error)


def test_huge_answer_display_is_capped_but_content_is_whole():
    """A multi-megabyte answer shows its first part and a note; the object keeps every character."""
    from gatewaykit.notebook.html_views.html import MAX_DISPLAY_CHARS

    text = "word " * 400_000
    completion = chat(text)
    bundle = mimebundle(completion)
    assert "more characters not shown" in bundle["text/html"]
    assert "more characters not shown" in bundle["text/plain"]
    assert len(bundle["text/plain"]) < MAX_DISPLAY_CHARS + 500
    assert completion.content == text


def test_model_table_ids_never_wrap_and_counts_are_singular_for_one():
    """Model ids carry white-space:nowrap on the code chip itself, and an edit limit of 1 reads '1 image'."""
    from gatewaykit.notebook.html_views.html import render_models_table_html
    from gatewaykit.types import Model

    one = Model.model_validate({"id": "image-aspect", "object": "model", "input_modalities": ["text", "image"],
                                "output_modalities": ["image"], "edit": {"supported": True, "max_reference_images": 1}})
    html = render_models_table_html([one])
    assert "white-space:nowrap\">image-aspect</code>" in html
    assert "up to 1 image<" in html and "1 images" not in html


def test_html_carries_the_export_alignment_style_once():
    """Every object's HTML starts with the style that lines outputs up in nbconvert's HTML; a re-wrap adds none."""
    from gatewaykit.notebook.html_views.style import EXPORT_ALIGNMENT, aligned_in_exports

    bundle = mimebundle(video_job("in_progress"))
    assert bundle["text/html"].startswith(EXPORT_ALIGNMENT + '<div class="gk-job')
    assert aligned_in_exports(bundle)["text/html"].count("gk-export-alignment") == 2  # class + its own selector
    assert aligned_in_exports({"text/plain": "x"}) == {"text/plain": "x"}


def test_export_alignment_only_matches_nbconvert_pages():
    """The style's rules all start with body.jp-Notebook, which only nbconvert's exported page has."""
    import re

    from gatewaykit.notebook.html_views.style import EXPORT_ALIGNMENT

    rules = re.findall(r"([^{}]+)\{[^}]*\}", EXPORT_ALIGNMENT.split(">", 1)[1].rsplit("<", 1)[0])
    assert rules and all(selector.strip().startswith("body.jp-Notebook ") for selector in rules)
