"""The allow-list sanitiser used where nh3 is not installed (a browser page's Pyodide) keeps what nh3 keeps."""

from __future__ import annotations

import pytest

from gatewaykit.notebook.markdown_html import markdown as md
from gatewaykit.notebook.markdown_html.allow_list import allow_list_cleaner

FALLBACK = allow_list_cleaner(md._TAGS, md._ATTRIBUTES, md.is_safe_url, "noopener noreferrer nofollow")
ANSWERS = [
    "# Title\n\nSome **bold**, `code`, ~~gone~~ and [a link](https://example.org \"t\").\n\n> quoted\n\n1. one\n2. two",
    "| a | b |\n|:-|-:|\n| 1 | 2 |\n\n```python\nprint('<b>')\n```",
    "<script>alert(1)</script> [x](javascript:alert(1)) ![i](https://evil.example/p.png) <img src=x onerror=alert(1)>",
]
HOSTILE = [
    '<a href="javascript:alert(1)" onclick="steal()">y</a>',
    '<p>ok<script>document.cookie</script><style>body{display:none}</style></p>',
    '<span class="k" style="color:red">k</span><iframe src="https://evil.example"></iframe>',
    '<td style="text-align:left;background:url(x)">c</td><a href=" java\tscript:alert(1)">z</a>',
]


@pytest.mark.parametrize("text", ANSWERS)
def test_rendered_answers_come_out_as_nh3_gives_them(text: str) -> None:
    """For Markdown the parser renders, the fallback's HTML is nh3's, byte for byte."""
    rendered = md.markdown_parser().render(text)
    assert FALLBACK(rendered) == md._cleaner()(rendered)


@pytest.mark.parametrize("fragment", HOSTILE)
def test_nothing_active_passes(fragment: str) -> None:
    """Scripts, styles, frames, event handlers and javascript: links are gone; text stays escaped."""
    cleaned = FALLBACK(fragment).lower()
    for active in ("<script", "<style", "<iframe", "onclick", "onerror", "javascript", "background", "color:red"):
        assert active not in cleaned
