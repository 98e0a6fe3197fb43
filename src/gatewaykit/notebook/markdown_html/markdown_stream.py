"""Markdown for a growing text: finished blocks rendered once, a cheap preview in between.

A streamed answer only grows at the end, so :class:`IncrementalMarkdown` keeps the sanitised HTML of
the blocks later text cannot change and parses only the open tail again; :meth:`~IncrementalMarkdown.preview`
shows new text escaped inside the tail without parsing, and no line that may start a new block is
shown before it is parsed. :meth:`~IncrementalMarkdown.complete` gives exactly ``render_markdown(text)``.
When a block counts as finished: ``docs/internals.md``.
"""

from __future__ import annotations

import html
import re
from typing import Any, Optional

from gatewaykit.notebook.markdown_html.code_highlight import HIGHLIGHTED
from gatewaykit.notebook.markdown_html.markdown import PLAIN_CODE, markdown_parser, remember_render, render_markdown, safe_answer_html

__all__ = ["IncrementalMarkdown"]

_NEWLINE = re.compile(r"\r\n?|\n")  # the line breaks markdown-it's normalize step recognises
# Where appended text goes in the tail's HTML: inside a trailing code block, else before the
# trailing block-level closing tags (never inside inline tags such as </em> or </a>).
_INSERT_AT = re.compile(
    r"(?:</code></pre>\s*)?(?:</(?:p|li|ul|ol|td|th|tr|tbody|thead|table|blockquote|h[1-6])>\s*)*\Z"
)
# A line that may start a block other than a paragraph (matched at the line's start).
_BLOCK_START = re.compile(r"[ \t]*(?:[-*+>#|`~=_]|\d{1,9}(?:[.)]|$))", re.M)
# A last, unfinished line that is only a block marker so far ("-", "1.", "##", "```"): held back by a parse.
_BARE_MARKER = re.compile(r"[ \t]*(?:[-*+>#|`~=_]+|\d{1,9}[.)]?)[ \t]*\Z")
_FINAL_AFTER_BLANK = frozenset(
    {"paragraph_open", "heading_open", "hr", "table_open", "blockquote_open", "fence"}
)


class IncrementalMarkdown:
    """Renders successive, growing versions of one text (each call's text extends the last)."""

    def __init__(self, parser: Any = None) -> None:
        self._md = parser if parser is not None else markdown_parser()
        self._done_html = ""  # sanitised HTML of text[:_done_end]
        self._done_end = 0
        self._tail_html = ""  # sanitised HTML of text[_done_end:_tail_end]
        self._tail_end = 0
        self._insert_at = 0  # where preview() puts text[_tail_end:] into _tail_html
        self._highlighted = 0  # characters of code highlighted in finished blocks
        self._references = False  # a link reference definition was seen: complete() renders whole
        self.parses = 0  # how many times the tail was parsed

    def render(self, text: str) -> str:
        """Sanitised HTML for ``text``, with the open tail parsed as Markdown now."""
        return "".join(self.render_parts(text))

    def render_parts(self, text: str) -> tuple[str, ...]:
        """:meth:`render` as fragments to join (saves copying a long answer twice)."""
        self._render_tail(text)
        return (self._done_html, self._tail_html)

    def preview(self, text: str) -> str:
        """Sanitised HTML for ``text`` without parsing: new text escaped into the last block."""
        return "".join(self.preview_parts(text))

    def preview_parts(self, text: str) -> tuple[str, ...]:
        """:meth:`preview` as fragments to join."""
        extra = text[self._tail_end : self._shown_end(text)]
        if not extra:
            return (self._done_html, self._tail_html)
        escaped = html.escape(extra, quote=True)
        if not self._tail_html:
            return (self._done_html, "<p>", escaped, "</p>")
        cut = self._insert_at
        return (self._done_html, self._tail_html[:cut], escaped, self._tail_html[cut:])

    def _shown_end(self, text: str) -> int:
        """Where preview() stops: before the first new line that may start a block (inside code: the end)."""
        if self._tail_html[self._insert_at :].startswith("</code></pre>"):
            return len(text)
        position = self._tail_end
        while position < len(text):
            if (position == 0 or text[position - 1] in "\r\n") and _BLOCK_START.match(text, position):
                return position
            newline = _NEWLINE.search(text, position)
            if newline is None:
                break
            position = newline.end()
        return len(text)

    def holds_back(self, text: str) -> bool:
        """True when preview() leaves out part of ``text`` (a new block waits for a parse)."""
        return self._shown_end(text) < len(text)

    @property
    def done_chars(self) -> int:
        """Characters of the text whose blocks are final (their HTML is the first of the parts)."""
        return self._done_end

    def unrendered(self, text: str) -> int:
        """Characters of ``text`` that arrived after the last parse (shown escaped by preview)."""
        return len(text) - self._tail_end

    def block_may_have_ended(self, text: str) -> bool:
        """True when text since the last parse contains a blank line (a block may be final)."""
        return text.find("\n\n", max(self._tail_end - 1, 0)) >= 0

    def complete(self, text: str) -> str:
        """The final HTML, identical to ``render_markdown(text)`` (and remembered by it)."""
        if self._references:
            return render_markdown(text)
        self._render_tail(text, final=True)
        if self._references:
            return render_markdown(text)
        result = self._done_html + self._tail_html
        remember_render(text, result)
        return result

    def _render_tail(self, text: str, *, final: bool = False) -> None:
        if not final:  # an unfinished last line that is only a marker waits: "-" is not yet a list
            last_line = max(text.rfind("\n"), text.rfind("\r")) + 1
            if last_line >= self._done_end and _BARE_MARKER.match(text, last_line):
                text = text[:last_line]
        tail = text[self._done_end :]
        self._tail_end = len(text)
        if not tail.strip():
            self._tail_html = ""
            self._insert_at = 0
            return
        self.parses += 1
        env: dict[str, Any] = {}
        tokens = self._md.parse(tail, env)
        env[HIGHLIGHTED] = self._highlighted  # the answer's code highlighted so far (it has a budget)
        if env.get("references"):
            self._references = True
        cut = _final_blocks(tail, tokens)
        if cut is not None:
            token_index, char_offset = cut
            done = self._md.renderer.render(tokens[:token_index], self._md.options, env) if token_index else ""
            self._highlighted = env[HIGHLIGHTED]
            if done:
                self._done_html += safe_answer_html(done)
            self._done_end += char_offset
            tokens = tokens[token_index:]
        # The open tail is parsed again and again: its code is highlighted only once it is final.
        open_env = env if final else {**env, PLAIN_CODE: True}
        rendered = self._md.renderer.render(tokens, self._md.options, open_env) if tokens else ""
        self._tail_html = safe_answer_html(rendered) if rendered else ""
        match = _INSERT_AT.search(self._tail_html)
        self._insert_at = match.start() if match else len(self._tail_html)


def _line_starts(tail: str) -> list[int]:
    """Offsets where each line of ``tail`` starts; a line counts only once its break has arrived."""
    starts = [0]
    for match in _NEWLINE.finditer(tail):
        if match.group() == "\r" and match.end() == len(tail):
            break  # a lone "\r" at the end may still become "\r\n"
        starts.append(match.end())
    return starts  # starts[i + 1] exists <=> line i is complete


def _is_blank(tail: str, starts: list[int], line: int) -> bool:
    return not tail[starts[line] : starts[line + 1]].strip(" \t\r\n")


def _final_blocks(tail: str, tokens: list[Any]) -> Optional[tuple[int, int]]:
    """``(token index, character offset)`` up to which the tail's blocks are final, or None."""
    blocks = [(index, token) for index, token in enumerate(tokens) if token.level == 0 and token.nesting >= 0 and token.map]
    if not blocks:
        return None
    starts = _line_starts(tail)
    complete = len(starts) - 1  # lines 0 .. complete - 1 have their line break
    following = len(tokens)  # token index of the block after the one looked at
    for number in range(len(blocks) - 1, -1, -1):
        index, token = blocks[number]
        start, end = token.map
        # After this block and a complete blank line, if its kind cannot continue past one.
        if token.type in _FINAL_AFTER_BLANK and end < complete and _is_blank(tail, starts, end):
            return following, starts[end + 1]
        # Before this block, if no later text can merge its first line into the block before.
        if number and start < complete and (_is_blank(tail, starts, start - 1) or start + 1 < complete):
            return index, starts[start]
        following = index
    return None
