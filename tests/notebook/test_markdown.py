"""The sanitising Markdown renderer."""

import pytest
from factories import HOSTILE

from gatewaykit.notebook.markdown_html.markdown import is_safe_url, render_markdown


def test_script_tag_is_escaped_as_text():
    """A <script> in model text comes out as visible text, not an element."""
    out = render_markdown("a <script>alert(1)</script> b")
    assert "<script" not in out
    assert "&lt;script&gt;" in out


def test_img_onerror_is_escaped():
    """Raw <img onerror> never becomes an element with an event handler."""
    out = render_markdown('<img src=x onerror="alert(1)">')
    assert "<img" not in out
    assert "&lt;img" in out


def test_javascript_link_is_not_a_link():
    """A javascript: link is left as text, with no href."""
    out = render_markdown("[click](javascript:alert(1))")
    assert "href" not in out


@pytest.mark.parametrize("url", ["javascript:x", "JAVASCRIPT:x", "java\tscript:x", " javascript:x", "data:text/html,x", "vbscript:x", "//evil.example/x"])
def test_unsafe_urls_are_rejected(url):
    """Unsafe or obfuscated schemes and protocol-relative URLs are refused."""
    assert not is_safe_url(url)


@pytest.mark.parametrize("url", ["https://a.b/c", "http://a.b", "mailto:x@y.z", "#anchor", "relative/path"])
def test_safe_urls_are_kept(url):
    """http(s), mailto and relative URLs are allowed."""
    assert is_safe_url(url)


def test_https_link_gets_rel_noopener():
    """Allowed links are kept and marked rel=noopener noreferrer nofollow."""
    out = render_markdown("[ok](https://example.org/a)")
    assert 'href="https://example.org/a"' in out
    assert "noopener" in out


def test_images_render_as_links_not_loads():
    """Markdown images become links, so model output cannot make the browser fetch a URL."""
    out = render_markdown("![alt](https://evil.example/track.png)")
    assert "<img" not in out
    assert 'href="https://evil.example/track.png"' in out


def test_tables_code_headings_and_lists_render():
    """The Markdown people expect from a chat answer renders to the usual tags."""
    text = "# H\n\n- a\n- b\n\n```python\nx = 1 < 2\n```\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n"
    out = render_markdown(text)
    for tag in ('class="gk-heading"', "<ul>", "<pre style=", "<table style=", 'style="text-align:right"'):
        assert tag in out
    assert "&lt;" in out and "1" in out


def test_hostile_payload_has_no_active_content():
    """The combined hostile payload renders with no script, handler or javascript: URL."""
    out = render_markdown(HOSTILE)
    assert "<script" not in out and "<img" not in out and "javascript:" not in out.split("[click](")[0]
    assert 'href="javascript' not in out


def test_answer_headings_are_smaller_than_notebook_titles_and_not_h_tags():
    """A `#` in an answer is a modest bold line, not an <h1> the notebook's table of contents would list."""
    out = render_markdown("# Big title\n\ntext")
    assert "<h1" not in out
    size = float(out.split("font-size:")[1].split("em")[0])
    assert 1.0 <= size <= 1.25


def test_code_blocks_are_highlighted_with_inline_colours():
    """A fenced Python block gets a background and coloured keyword spans (inline styles, hex colours)."""
    out = render_markdown("```python\ndef f():\n    return 'x'\n```\n")
    assert '<pre style="background:' in out
    assert '<span style="color:#859900">def</span>' in out
    assert 'class="' not in out.split("<pre")[1]  # classes turned into inline styles


def test_code_in_an_unknown_language_is_plain_escaped_text():
    """An unknown language name leaves the code unhighlighted and escaped."""
    out = render_markdown("```nosuchlang\n<b>x</b>\n```\n")
    assert "&lt;b&gt;x&lt;/b&gt;" in out and "<span" not in out
