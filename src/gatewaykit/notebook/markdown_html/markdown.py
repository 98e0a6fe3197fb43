"""Model text to safe HTML: Markdown with raw HTML escaped, then sanitised.

Model output is untrusted and a notebook output is trusted, so two layers: markdown-it-py with
``html=False`` (raw HTML escaped, links only to safe schemes, images shown as links, never loaded),
then nh3 with an allow-list of the tags Markdown produces (where nh3 is missing, as in Pyodide, the
same allow-list in the standard library: :mod:`.allow_list`). Details: ``docs/internals.md``.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any, Callable

__all__ = [
    "SAFE_SCHEMES", "is_safe_url", "markdown_parser", "remember_render", "render_markdown", "safe_answer_html",
    "sanitize_html", "style_answer",
]  # fmt: skip

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

# How an answer's blocks look, added after sanitising (see style_answer): headings well below the
# notebook's own section titles, and not <h1>..<h6>, which JupyterLab would list in the notebook's
# table of contents; code with a background; spacing after every block. Neutral, semi-transparent
# colours (#rrggbbaa) suit light and dark themes and survive JupyterLab's sanitiser for untrusted output.
# Table cells otherwise keep the front end's own table style (JupyterLab, nbconvert, GitHub, VS Code have one).
_HEADING = '<p class="gk-heading" style="font-weight:600;margin:.9em 0 .35em;font-size:{}">'
HEADING_SIZES = {"1": "1.2em", "2": "1.12em", "3": "1.05em"}
_TAG_STYLES = {
    "<table>": '<table style="border-collapse:collapse;margin:0 0 .8em">',
    "<blockquote>": '<blockquote style="margin:0 0 .8em;padding:0 .8em;border-left:3px solid #8887">',
    "<code>": '<code style="background:#80808026;padding:0 .25em;border-radius:3px">',
    # JupyterLab right-aligns table cells; a Markdown table without alignment reads left to right.
    "<th>": '<th style="text-align:left">',
    "<td>": '<td style="text-align:left">',
}
_STYLED_TAG = re.compile(
    r'<pre><code(?: class="[^"]*")?>|<span class="([\w-]+)">|</?h([1-6])>|<(?:table|th|td|blockquote|code)>'
)

PLAIN_CODE = "gatewaykit_plain_code"  # an ``env`` key: render code blocks without highlighting
_PLAIN_SPAN = re.compile(r"<span>([^<]*)</span>")


def style_answer(fragment: str) -> str:
    """Add our inline styles to sanitised answer HTML (tags Markdown produced; nothing the model wrote)."""
    from gatewaykit.notebook.markdown_html.code_highlight import CODE_BLOCK_STYLE, token_style

    def restyle(match: "re.Match[str]") -> str:
        tag = match.group(0)
        if match.group(1) is not None:  # a highlighted token
            css = token_style(match.group(1))
            return f'<span style="{css}">' if css else "<span>"
        level = match.group(2)
        if level is not None:
            return "</p>" if tag[1] == "/" else _HEADING.format(HEADING_SIZES.get(level, "1em"))
        if tag.startswith("<pre>"):
            # The <code> inside: no inline-code background (JupyterLab's would box every line).
            return f'<pre style="{CODE_BLOCK_STYLE}"><code style="background:none;padding:0">'
        return _TAG_STYLES[tag]

    styled = _STYLED_TAG.sub(restyle, fragment)
    return _PLAIN_SPAN.sub(r"\1", styled) if "<span>" in styled else styled


def is_safe_url(url: str) -> bool:
    """True for http(s)/mailto URLs and scheme-less (relative or ``#anchor``) ones."""
    # Browsers ignore control characters and whitespace inside a scheme ("java\tscript:").
    cleaned = "".join(ch for ch in url if ch > " " and ch != "\x7f")
    match = _SCHEME.match(cleaned)
    if match is None:
        return not cleaned.startswith("//")  # protocol-relative URLs load remote content
    return match.group(1).lower() in SAFE_SCHEMES


@lru_cache(maxsize=1)
def markdown_parser() -> Any:
    """The shared MarkdownIt instance: CommonMark + tables + strikethrough, raw HTML off, safe links only."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = is_safe_url  # type: ignore[method-assign]

    def image_as_link(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = html.escape(token.content or "image")
        if not is_safe_url(src):
            return alt
        return f'<a href="{html.escape(src, quote=True)}">[image: {alt}]</a>'

    md.add_render_rule("image", image_as_link)
    _add_answer_styles(md)
    return md


def _add_answer_styles(md: Any) -> None:
    """Code blocks through Pygments (token classes; colours come in :func:`style_answer`)."""
    from gatewaykit.notebook.markdown_html.code_highlight import highlight_code

    def code(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        # A streaming answer's open block is shown plain: it is highlighted once, when it is finished.
        language = token.info if token.type == "fence" and not env.get(PLAIN_CODE) else ""
        return f"<pre><code>{highlight_code(token.content, language, env)}</code></pre>\n"

    md.add_render_rule("fence", code)
    md.add_render_rule("code_block", code)


@lru_cache(maxsize=1)
def _cleaner() -> Callable[[str], str]:
    try:
        import nh3
    except ImportError:  # Python in a browser page (Pyodide) has no nh3: the same rules, in the standard library
        from gatewaykit.notebook.markdown_html.allow_list import allow_list_cleaner

        return allow_list_cleaner(_TAGS, _ATTRIBUTES, is_safe_url, "noopener noreferrer nofollow")
    options: dict[str, Any] = {
        "tags": _TAGS,
        "attributes": _ATTRIBUTES,
        "url_schemes": set(SAFE_SCHEMES),
        "link_rel": "noopener noreferrer nofollow",
        "filter_style_properties": {"text-align"},
    }
    cleaner = getattr(nh3, "Cleaner", None)  # nh3 >= 0.2.18: built once, about half the cost per call
    if cleaner is not None:
        return cleaner(**options).clean
    return lambda fragment: nh3.clean(fragment, **options)


def sanitize_html(fragment: str) -> str:
    """Keep only the tags and attributes Markdown produces; drop anything active."""
    return _cleaner()(fragment)


def safe_answer_html(fragment: str) -> str:
    """Rendered Markdown to what is shown: sanitised, then given the answer's styles."""
    return style_answer(_cleaner()(fragment))


_RECENT_LIMIT = 4
_recent: dict[str, str] = {}  # text -> its sanitised HTML, for the last few renders


def remember_render(text: str, sanitised_html: str) -> None:
    """Record ``render_markdown(text)``'s result, computed elsewhere from the same parser and sanitiser."""
    _recent.pop(text, None)
    _recent[text] = sanitised_html
    while len(_recent) > _RECENT_LIMIT:
        try:
            del _recent[next(iter(_recent))]
        except (KeyError, RuntimeError, StopIteration):  # another thread trimmed it first
            break


def render_markdown(text: str) -> str:
    """Untrusted Markdown to sanitised HTML (code blocks, tables, headings, lists)."""
    if not text:
        return ""
    cached = _recent.get(text)
    if cached is None:
        cached = safe_answer_html(markdown_parser().render(text))
        remember_render(text, cached)
    return cached
