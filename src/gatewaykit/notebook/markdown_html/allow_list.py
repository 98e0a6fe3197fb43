"""The allow-list sanitiser where nh3 is not installed (Python in a browser page: nh3 has no Pyodide wheel).

The same rules as nh3 is given in :mod:`.markdown`: only the listed tags and attributes; ``href`` only
with a safe scheme; links get ``rel``; a ``style`` only as ``text-align``. Everything is rebuilt from what
the standard library's HTML parser read, so nothing passes through as written: text and attribute values
are escaped again, an unknown tag disappears (its text stays, escaped), and the contents of ``script``
and ``style`` elements go with them. Its input is markdown-it-py's output with raw HTML off (already
escaped): this is the second layer, as nh3 is.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Callable

__all__ = ["allow_list_cleaner"]

_DROP_WITH_CONTENT = frozenset({"script", "style", "template", "iframe", "object", "noscript", "textarea", "title"})
_VOID = frozenset({"br", "hr"})
_TEXT_ALIGN = re.compile(r"^\s*text-align\s*:\s*(left|right|center|justify)\s*;?\s*$", re.IGNORECASE)


class _Rebuild(HTMLParser):
    def __init__(self, tags: set[str], attributes: dict[str, set[str]], url_ok: Callable[[str], bool],
                 link_rel: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.url_ok, self.link_rel = tags, attributes, url_ok, link_rel
        self.out: list[str] = []
        self.open: list[str] = []
        self.dropping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROP_WITH_CONTENT:
            self.dropping += 1
            return
        if self.dropping or tag not in self.tags:
            return
        kept = []
        for name, value in attrs:
            if name not in self.attributes.get(tag, ()) or value is None:
                continue
            if name == "href" and not self.url_ok(value):
                continue
            if name == "style":
                match = _TEXT_ALIGN.match(value)
                if match is None:
                    continue
                value = f"text-align:{match.group(1).lower()}"
            kept.append(f' {name}="{html.escape(value, quote=True)}"')
        if tag == "a":
            kept.append(f' rel="{self.link_rel}"')
        self.out.append(f"<{tag}{''.join(kept)}>")
        if tag not in _VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self.open and self.open[-1] == tag:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP_WITH_CONTENT:
            self.dropping = max(0, self.dropping - 1)
            return
        if self.dropping or tag not in self.open:
            return
        while self.open:  # close what was left open inside it, so the output stays well nested
            inner = self.open.pop()
            self.out.append(f"</{inner}>")
            if inner == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self.dropping:
            self.out.append(html.escape(data, quote=False))

    def result(self) -> str:
        self.close()
        return "".join(self.out) + "".join(f"</{tag}>" for tag in reversed(self.open))


def allow_list_cleaner(tags: set[str], attributes: dict[str, set[str]], url_ok: Callable[[str], bool],
                       link_rel: str) -> Callable[[str], str]:
    """A function that keeps only ``tags`` and ``attributes`` of an HTML fragment (see the module)."""

    def clean(fragment: str) -> str:
        parser = _Rebuild(tags, attributes, url_ok, link_rel)
        parser.feed(fragment)
        return parser.result()

    return clean
