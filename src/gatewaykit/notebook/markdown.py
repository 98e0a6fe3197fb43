"""Model text to safe HTML: Markdown with raw HTML escaped, then sanitised.

Model output is untrusted. JupyterLab trusts the outputs of cells the user
ran, so a ``<script>`` that reached an output would run; ``ipywidgets.HTML``
writes straight into ``innerHTML``. Two layers keep that from happening:

1. markdown-it-py with ``html=False``: raw HTML in the text is escaped, not
   passed through; links are kept only for ``http``, ``https``, ``mailto``
   and in-page/relative targets (``javascript:`` and ``data:`` become text).
   Images are shown as links rather than loaded: a model (or a prompt
   injection) could otherwise make the browser fetch an attacker's URL.
2. nh3 (ammonia) with an allow-list of the tags Markdown produces, as
   defence in depth.

:class:`IncrementalMarkdown` renders a growing text cheaply for live views:
finished blocks are rendered once and kept; only the open tail is re-rendered.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any, Callable

__all__ = ["IncrementalMarkdown", "SAFE_SCHEMES", "is_safe_url", "render_markdown"]

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.\-]*):")

_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "del", "s",
    "code", "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody",
    "tr", "th", "td", "span",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
    "code": {"class"},
    "span": {"class"},
}


def is_safe_url(url: str) -> bool:
    """True for http(s)/mailto URLs and scheme-less (relative or ``#anchor``) ones."""
    # Browsers ignore control characters and whitespace inside a scheme ("java\tscript:").
    cleaned = "".join(ch for ch in url if ch > " " and ch != "\x7f")
    match = _SCHEME.match(cleaned)
    if match is None:
        return not cleaned.startswith("//")  # protocol-relative URLs load remote content
    return match.group(1).lower() in SAFE_SCHEMES


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = is_safe_url

    def image_as_link(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = html.escape(token.content or "image")
        if not is_safe_url(src):
            return alt
        return f'<a href="{html.escape(src, quote=True)}">[image: {alt}]</a>'

    md.add_render_rule("image", image_as_link)
    return md


def sanitize_html(fragment: str) -> str:
    """Keep only the tags and attributes Markdown produces; drop anything active."""
    import nh3

    return nh3.clean(
        fragment,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes=set(SAFE_SCHEMES),
        link_rel="noopener noreferrer nofollow",
        filter_style_properties={"text-align"},
    )


def render_markdown(text: str) -> str:
    """Untrusted Markdown to sanitised HTML (code blocks, tables, headings, lists)."""
    if not text:
        return ""
    return sanitize_html(_parser().render(text))


class IncrementalMarkdown:
    """Renders successive, growing versions of one text, re-rendering only the open tail.

    A block is finished at a blank line outside a fenced code block; finished
    blocks are rendered once. The split can differ from a whole-text render in
    small ways (a loose list shows as two lists), so the final view of a stream
    renders the complete text once with :func:`render_markdown`.
    """

    def __init__(self, render: Callable[[str], str] = render_markdown) -> None:
        self._render = render
        self._done_html = ""
        self._done_end = 0  # text[:_done_end] is rendered into _done_html
        self._scan_pos = 0  # start of the first line not scanned yet
        self._fence: str | None = None  # the opening fence while inside a code block

    def render(self, text: str) -> str:
        """HTML for ``text``, which must extend the text of the previous call."""
        boundary = self._scan(text)
        if boundary > self._done_end:
            self._done_html += self._render(text[self._done_end : boundary])
            self._done_end = boundary
        tail = text[self._done_end :]
        return self._done_html + self._render(tail) if tail.strip() else self._done_html

    def _scan(self, text: str) -> int:
        boundary = self._done_end
        pos = self._scan_pos
        while True:
            end = text.find("\n", pos)
            if end < 0:
                break
            line = text[pos:end]
            stripped = line.lstrip(" ")
            indent = len(line) - len(stripped)
            if self._fence is None:
                if not stripped.strip():
                    boundary = end + 1
                elif indent <= 3 and stripped[:3] in ("```", "~~~"):
                    marker = stripped[0]
                    self._fence = marker * (len(stripped) - len(stripped.lstrip(marker)))
            elif indent <= 3 and stripped.startswith(self._fence) and not stripped.strip(self._fence[0]).strip():
                self._fence = None
            pos = end + 1
        self._scan_pos = pos
        return boundary
