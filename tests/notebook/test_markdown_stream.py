"""Incremental Markdown for live streams: same final HTML as a whole render, sanitised previews."""

import random

import pytest
from factories import HOSTILE

from gatewaykit.notebook.markdown_html import markdown as markdown_module
from gatewaykit.notebook.markdown_html.markdown import markdown_parser, render_markdown, safe_answer_html
from gatewaykit.notebook.markdown_html.markdown_stream import IncrementalMarkdown

SAMPLES = {
    "blocks": "# Title\n\nFirst para.\n\n```\ncode\n\nstill code\n```\n\n1. one\n2. two\n\nLast *para*.\n",
    "loose list": "- a\n- b\n\n- c\n\n  continued\n\nafter\n",
    "ordered lists": "3. three\n4. four\n\ntext\n\n7. seven\n\n   8. nested?\n",
    "nested list": "- outer\n  - inner *x*\n\n    more inner\n- outer 2\n\n## Next\n",
    "fence in list": "- item\n\n  ```\n  a\n\n  b\n  ```\n\n```\nreal\n\nfence\n```\n\nend\n",
    "tilde and unclosed": "~~~~ py\nx\n\n~~~\ny\n~~~~\n\n```\nnever closed\n\nstill\n",
    "indented code": "para\n\n    code 1\n\n    code 2\n\nafter\n",
    "tables": "| a | b |\n|---|--:|\n| 1 | 2 |\n\ntext\nh1 | h2\n--|--\nc | d\n\n| x |\n|-|-|\n",
    "table lookahead": "para\nh1 | h2\n|-|-|-\nmore\n\nx\ny | z\n|-|-\n",
    "setext and hr": "Heading\n===\n\npara\n---\n\n---\n\npara\n-\n\n#x\npara\n#\n",
    "quotes": "> quote *a*\n> more\n\n> second\nlazy\n\n>\n\ntext\n",
    "crlf": "line one\r\n\r\n- a\r\n- b\r\n\r\npara\rnext\r\r\n# h\r\n",
    "hostile": HOSTILE + "\n\n" + HOSTILE + "\n\n```\n<script>alert(1)</script>\n```\n",
    "references": "see [the docs][d] and [x]\n\n[d]: https://example.org/docs\n\nmore [d]\n",
}


def fresh_render(text):
    return safe_answer_html(markdown_parser().render(text))


def stream(text, seed):
    """Feed ``text`` in random pieces, alternating parses and previews; return the final HTML."""
    rng = random.Random(seed)
    md, end = IncrementalMarkdown(), 0
    while end < len(text):
        end = min(len(text), end + rng.randint(1, 12))
        (md.render if rng.random() < 0.4 else md.preview)(text[:end])
    return md.complete(text)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_complete_equals_a_whole_render(name):
    """However the text arrived, the final HTML equals rendering the whole text at once."""
    text = SAMPLES[name]
    for seed in range(25):
        assert stream(text, seed) == fresh_render(text), seed


def test_complete_equals_a_whole_render_char_by_char():
    """Parsing after every single character (every prefix) still ends with the whole-text HTML."""
    # Without the reference definitions (which make complete() render the whole text) and with
    # the unclosed code fence last (it swallows everything after it).
    names = sorted(set(SAMPLES) - {"references", "tilde and unclosed"}) + ["tilde and unclosed"]
    text = "\n\n".join(SAMPLES[name] for name in names)
    md = IncrementalMarkdown()
    for end in range(1, len(text) + 1):
        md.render(text[:end])
    assert md.complete(text) == fresh_render(text)


def test_complete_is_remembered_by_render_markdown(monkeypatch):
    """After complete(), render_markdown of the same text returns it without parsing again."""
    text = SAMPLES["blocks"]
    md = IncrementalMarkdown()
    md.render(text[:20])
    html = md.complete(text)
    monkeypatch.setattr(markdown_module, "markdown_parser", lambda: pytest.fail("parsed again"))
    assert render_markdown(text) == html


class CountingParser:
    """The shared parser, recording the text of every parse."""

    def __init__(self):
        self.inner, self.parsed = markdown_parser(), []
        self.options, self.renderer = self.inner.options, self.inner.renderer

    def parse(self, text, env):
        self.parsed.append(text)
        return self.inner.parse(text, env)


def test_finished_blocks_are_not_parsed_again():
    """A paragraph followed by a blank line is final: later parses start after it."""
    parser = CountingParser()
    md = IncrementalMarkdown(parser)
    md.render("para one\n\npara")
    md.render("para one\n\npara two")
    assert parser.parsed[-1] == "para two"


def test_a_list_stays_open_across_a_blank_line():
    """A list followed by a blank line is not final: a later item makes it loose."""
    md = IncrementalMarkdown()
    md.render("- a\n- b\n\n")
    assert md.complete("- a\n- b\n\n- c\n") == fresh_render("- a\n- b\n\n- c\n")


def test_preview_does_not_parse():
    """preview() shows new text without parsing it."""
    parser = CountingParser()
    md = IncrementalMarkdown(parser)
    md.render("Hello **wor")
    md.preview("Hello **world** and more")
    assert len(parser.parsed) == 1


def test_preview_appends_escaped_text_inside_the_last_paragraph():
    """New text goes into the open paragraph, escaped, not after it."""
    md = IncrementalMarkdown()
    md.render("Hello *wor")
    out = md.preview("Hello *world* <b>x</b>")
    assert out.count("<p>") == 1 and out.endswith("ld* &lt;b&gt;x&lt;/b&gt;</p>\n")


def test_preview_appends_inside_an_open_code_block():
    """In an unclosed code fence, new text continues the <pre><code> block."""
    md = IncrementalMarkdown()
    md.render("```python\nx = 1\n")
    out = md.preview("```python\nx = 1\ny = 2 < 3\n")
    assert out.endswith("x = 1\ny = 2 &lt; 3\n</code></pre>\n")


def test_preview_after_emphasis_stays_outside_the_inline_tag():
    """Appended text goes before the list item's closing tag, not inside a trailing <em>."""
    md = IncrementalMarkdown()
    md.render("- item *em*")
    out = md.preview("- item *em* tail")
    assert "</em> tail</li>" in out


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>window.__pwned = 1</script>",
        '<img src=x onerror="window.__pwned = 1">',
        "[click](javascript:window.__pwned=1)",
        '"><script>alert(1)</script>',
    ],
)
@pytest.mark.parametrize("before", ["", "Some *text* ", "```\ncode ", "- item *em* ", "| a |\n|---|\n| b "])
def test_hostile_text_arriving_in_the_tail_stays_inert(before, hostile):
    """Hostile text in the unparsed tail is escaped in previews and in parsed renders."""
    md = IncrementalMarkdown()
    md.render(before)
    for end in range(1, len(hostile) + 1):
        for out in (md.preview(before + hostile[:end]), md.preview(before + hostile[:end] + "\n\n")):
            assert "<script" not in out and "<img" not in out and 'href="javascript' not in out
    out = md.render(before + hostile)
    assert "<script" not in out and "<img" not in out and 'href="javascript' not in out


def test_empty_tail_preview_is_a_paragraph():
    """Text after a finished block, before any parse, shows as an escaped paragraph."""
    md = IncrementalMarkdown()
    md.render("done\n\n")
    assert md.preview("done\n\n<i>new</i>").endswith("<p>&lt;i&gt;new&lt;/i&gt;</p>")


def test_preview_holds_back_a_list_item_after_a_finished_paragraph():
    """A new line '- item' is not shown as a literal dash in a paragraph before it is parsed."""
    md = IncrementalMarkdown()
    md.render("Intro.\n\n")
    out = md.preview("Intro.\n\n- Set an API key")
    assert "- Set" not in out and "Set an API" not in out
    assert "<li>Set an API key</li>" in md.render("Intro.\n\n- Set an API key")


def test_preview_does_not_run_a_second_bullet_into_the_first():
    """A second list item waits for a parse instead of joining the first item's text."""
    md = IncrementalMarkdown()
    md.render("- synthetic too.")
    out = md.preview("- synthetic too.\n- A real model's reply")
    assert "A real model" not in out and out.count("<li>") == 1


def test_a_parse_holds_back_a_bare_list_marker():
    """A last line that is only '-' or '1' is not shown as text: it may become a list item."""
    for marker in ("-", "1", "2.", "##"):
        md = IncrementalMarkdown()
        out = md.render("Intro.\n\n" + marker)
        assert out == md.render("Intro.\n\n") and marker not in out.replace("<p>Intro.</p>", "")
        assert md.complete("Intro.\n\n" + marker + " x\n") == render_markdown("Intro.\n\n" + marker + " x\n")


def test_preview_still_continues_a_line_and_shows_code():
    """Text that continues the open line, and new lines inside a code block, still show at once."""
    md = IncrementalMarkdown()
    md.render("- item one")
    assert "item one and more</li>" in md.preview("- item one and more")
    md = IncrementalMarkdown()
    md.render("```\nx = 1\n")
    assert "- y" in md.preview("```\nx = 1\n- y\n")
