"""The live chat renderer behind :func:`gatewaykit.notebook.chat_views.live.render_stream` (how it works: see that module).

:class:`LiveChatRenderer` turns chunks into display messages on a sink: the
finished parts of the answer once each, the open tail throttled by time and by
bytes, the complete static answer at the end.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

from gatewaykit.client.core.assembly import ChatAssembler
from gatewaykit.notebook.html_views import html as views
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.markdown_html.markdown_stream import IncrementalMarkdown
from gatewaykit.notebook.html_views.rendering import chat_text, mimebundle
from gatewaykit.notebook.cell_output.sinks import DisplaySink
from gatewaykit.types import ChatCompletion, ChatCompletionChunk

__all__ = [
    "FREEZE_BYTES", "FRONTEND_BYTES_PER_SECOND", "MARKDOWN_BUDGET_PER_TOKEN", "MARKDOWN_INTERVAL", "TAIL_FACTOR",
    "TAIL_SLACK", "UPDATE_INTERVAL", "LiveChatRenderer",
]  # fmt: skip

UPDATE_INTERVAL = 1 / 15  # seconds between live updates (at most ~15 per second)
FRONTEND_BYTES_PER_SECOND = 400_000  # long answers update less often: each update resends it all
MARKDOWN_INTERVAL = 0.25  # seconds between parses of the open block (sooner when a block ended)
MARKDOWN_BUDGET_PER_TOKEN = 4e-6  # CPU seconds per received token that re-parsing the open block may use
FREEZE_BYTES = 600  # finished blocks move into an output of their own once this much HTML has finished
TAIL_FACTOR = 2.0  # tail updates may resend this many times the bytes of the answer so far...
TAIL_SLACK = 4_000  # ... plus this many, so a short answer updates freely


class LiveChatRenderer:
    """Feeds chunks into a sink: ``start()``, ``feed(chunk)`` per chunk, ``finish(completion)``.

    ``assembly`` is the stream's own :class:`~gatewaykit.client.core.assembly.ChatAssembler`
    (``ChatStream.assembly``): the renderer reads it for the model and the
    partial answer and never assembles the chunks again. Without one (any plain
    iterable of chunks) the renderer keeps an assembly of its own.

    ``replayed``: the stream is an answer the client's cassette replayed; the status line and the
    final footer say so (not charged) instead of the recorded cost.
    """

    def __init__(
        self,
        sink: DisplaySink,
        *,
        model: Optional[str] = None,
        interval: float = UPDATE_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        assembly: Optional[ChatAssembler] = None,
        replayed: bool = False,
    ) -> None:

        self.sink = sink
        self.model = model
        self.interval = interval
        self.replayed = replayed
        self._clock = clock
        self._content: list[str] = []  # pieces since the last update
        self._reasoning: list[str] = []
        self._text = ""  # the answer so far, joined at each update
        self._reasoning_text = ""
        self._tools = False
        self._dirty = False
        self._last = 0.0
        self._wait = interval
        self._markdown = IncrementalMarkdown()
        self._parsed_at = float("-inf")  # clock time of the last parse of the open block
        self._credit = 0.0  # CPU seconds the next parses of the open block may spend
        self._own_assembly = assembly is None
        self._assembler = ChatAssembler() if assembly is None else assembly
        self.updates = 0
        # Several outputs (when the sink can open more): finished parts sent once, the last one the open tail.
        self._split = callable(getattr(sink, "open", None))
        self._outputs: list[DisplaySink] = [sink]
        self._frozen_html = 0  # characters of the finished blocks' HTML already in outputs of their own
        self._frozen_text = 0  # characters of the answer those outputs hold
        self._reasoning_frozen = False  # the reasoning sits, collapsed, in the first output
        self._received = 0  # characters of answer and reasoning received
        self._tail_sent = 0  # bytes of tail updates sent so far
        self._tail_size = 0  # bytes of the last tail bundle
        self._parts_sent = 0  # bytes of the finished parts sent (each once)
        self._newline = False  # a line break arrived since the last look for finished blocks
        self._offline: Optional[str] = None  # "synthetic" / "scripted" from the first chunk ("" when not offline)

    @property
    def parses(self) -> int:
        """How many times the open block was parsed as Markdown (the rest were cheap previews)."""
        return self._markdown.parses

    def start(self) -> None:
        self._last = self._clock()
        note = "waiting for the first token…"
        self.sink.show(self._tail_bundle(note) if self._split else self._bundle(note=note))

    def feed(self, chunk: ChatCompletionChunk) -> None:
        if self._own_assembly:
            self._assembler.add(chunk)
        if self._offline is None:  # the offline gateway marks every chunk; the first one tells
            extra = chunk.model_extra or {}
            self._offline = views.offline_content(extra) or ""
        choices = chunk.choices
        if choices:
            delta = choices[0].delta
            if delta.content:
                self._content.append(delta.content)
                self._received += len(delta.content)
                if "\n" in delta.content:
                    self._newline = True  # a block may have ended: worth a look even when the tail is over budget
                self._credit += MARKDOWN_BUDGET_PER_TOKEN
                self._dirty = True
            if delta.reasoning:
                self._reasoning.append(delta.reasoning)
                self._received += len(delta.reasoning)
                self._dirty = True
            if delta.tool_calls:
                self._tools = self._dirty = True
        if self._dirty:
            now = self._clock()
            if now - self._last >= self._wait:
                if self._affordable():
                    self._last = now
                    self.flush()
                elif self._split and self._newline and self._block_may_have_ended():
                    # Over the budget for the tail, but finished blocks can move out of it (sent once).
                    self._last = now
                    self._dirty = False
                    self._wait = self.interval * self._flush_parts(self._note(), tail_update=False)

    def _affordable(self) -> bool:
        """Whether resending the open tail now keeps the bytes sent within the budget."""
        if not self._split:
            return True
        # The next tail is about as large as the last one (new text mostly moves into finished parts).
        so_far = max(self._parts_sent, self._received)  # the answer's HTML in finished parts, or its text
        return self._tail_sent + self._tail_size <= TAIL_FACTOR * so_far + TAIL_SLACK

    def _block_may_have_ended(self) -> bool:
        self._newline = False
        self._take_pieces()
        return self._markdown.block_may_have_ended(self._text)

    def _note(self) -> str:
        return "calling a tool…" if self._tools and not self._text and not self._content else "streaming…"

    def flush(self) -> None:
        """Send the current state now (normally called by :meth:`feed` when due)."""
        self._dirty = False
        self.updates += 1
        if self._split:
            self._wait = self.interval * self._flush_parts(self._note())
            return
        bundle = self._bundle(note=self._note())
        self._wait = max(self.interval, len(bundle["text/html"]) / FRONTEND_BYTES_PER_SECOND)
        self.sink.update(bundle)

    def _take_pieces(self) -> None:
        if self._content:
            self._text += "".join(self._content)
            self._content.clear()
        if self._reasoning:
            self._reasoning_text += "".join(self._reasoning)
            self._reasoning.clear()

    def _flush_parts(self, note: str, tail_update: bool = True) -> int:
        """Split mode: move finished blocks into an output of their own, update the tail; messages sent.

        ``tail_update=False``: only when enough finished blocks can move out (the tail is then shown anew).
        """
        self._take_pieces()
        parts = self._answer_parts() if self._text else ("",)
        done = parts[0]
        fresh = len(done) - self._frozen_html
        starts_answer = bool(self._reasoning_text) and not self._reasoning_frozen and bool(self._text)
        if fresh < FREEZE_BYTES and not starts_answer:
            if not tail_update:
                self._dirty = True  # what arrived is not shown yet
                return 0
            self._outputs[-1].update(self._tail_bundle(note, parts))
            return 1
        done_chars = self._markdown.done_chars
        block = {
            "text/plain": self._text[self._frozen_text : done_chars] or "…",
            "text/html": views.render_live_part_html(
                (done[self._frozen_html :],), reasoning="" if self._reasoning_frozen else self._reasoning_text
            ),
        }
        self._outputs[-1].update(block)
        self._parts_sent += len(block["text/html"]) + len(block["text/plain"])
        self._frozen_html, self._frozen_text, self._reasoning_frozen = len(done), done_chars, True
        tail = self.sink.open()  # type: ignore[attr-defined]
        self._outputs.append(tail)
        tail.show(self._tail_bundle(note, parts))
        return 2

    def _tail_bundle(self, note: str, parts: tuple[str, ...] = ("",)) -> dict[str, Any]:
        """The open tail: finished blocks not yet in an output of their own, the open block, a status line."""
        unfrozen = parts[0][self._frozen_html :] if len(parts[0]) > self._frozen_html else ""
        model = self.model or self._assembler.model
        offline = f"{self._offline} (offline gateway)" if self._offline else ""
        replayed = style.replayed_note() if self.replayed else ""
        bundle = {
            "text/plain": self._text[self._frozen_text :] or f"({note})",
            "text/html": views.render_live_part_html(
                (unfrozen, *parts[1:]),
                reasoning="" if self._reasoning_frozen else self._reasoning_text,
                footer=[model or "", offline, replayed, note],
            ),
        }
        self._tail_size = len(bundle["text/html"]) + len(bundle["text/plain"])
        self._tail_sent += self._tail_size
        return bundle

    def _answer_parts(self) -> tuple[str, ...]:
        """The answer's HTML fragments: parsed when due and affordable, else the cheap preview."""
        markdown, text = self._markdown, self._text
        if not markdown.unrendered(text):
            return markdown.preview_parts(text)
        now = self._clock()
        if markdown.block_may_have_ended(text):
            # Finishing a block is work every block needs once, whatever the budget says.
            self._parsed_at = now
            return markdown.render_parts(text)
        # A new line held back from the preview (a list item, a heading) is worth a parse whatever the budget.
        if now - self._parsed_at >= MARKDOWN_INTERVAL and (self._credit > 0 or markdown.holds_back(text)):
            started = time.perf_counter()
            parts = markdown.render_parts(text)
            self._credit -= time.perf_counter() - started
            self._parsed_at = now
            return parts
        return markdown.preview_parts(text)

    def _bundle(self, note: str) -> dict[str, Any]:
        self._take_pieces()
        text = self._text
        model = self.model or self._assembler.model
        return {
            "text/plain": text or f"({note})",
            "text/html": views.render_live_chat_html(
                self._answer_parts() if text else (),
                reasoning=self._reasoning_text,
                model=model,
                note=note,
                offline=self._offline,
                replayed=self.replayed,
            ),
        }

    def partial(self) -> ChatCompletion:
        """What arrived so far, assembled into a completion."""
        completion = self._assembler.result()
        if completion.model is None and self.model is not None:
            completion.model = self.model
        return completion

    def finish(self, completion: ChatCompletion, note: str = "") -> None:
        """Replace the live view with the complete, static answer."""
        self._complete_markdown(completion)
        if note or self.replayed:  # what the completion's own display cannot know: said in its footer
            bundle = {
                "text/plain": chat_text(completion, note, replayed=self.replayed),
                "text/html": views.render_chat_html(completion, note=note, replayed=self.replayed),
            }
        else:
            bundle = mimebundle(completion)
        self._show_final(bundle)

    def _show_final(self, bundle: dict[str, Any]) -> None:
        """Empty every part shown while streaming, then make the first output the whole, static view."""
        for part in self._outputs[1:]:
            part.update({})
        del self._outputs[1:]
        self.sink.update(bundle)

    def _complete_markdown(self, completion: ChatCompletion) -> None:
        """Finish the incremental render of the answer, so displaying ``completion`` reuses it."""
        self._text += "".join(self._content)
        self._content.clear()
        choices = completion.choices or []
        if self._text and len(choices) == 1 and choices[0].message.content == self._text:
            self._markdown.complete(self._text)

    def interrupted(self) -> ChatCompletion:
        """The user stopped the stream: keep what arrived as static output; return it."""
        partial = self.partial()
        self.finish(partial, note="interrupted: partial answer")
        return partial

    def broke_off(self, error: Any) -> None:
        """The stream broke off (StreamInterruptedError): keep the partial text with a note."""
        self.finish(self.partial(), note=f"stream interrupted: {error.message}")

    def done(self, result: Any) -> ChatCompletion:
        """Show the final answer (``result`` of ``stream.final()``, or what was assembled) and return it."""
        completion = result if isinstance(result, ChatCompletion) else self.partial()
        self.finish(completion)
        from gatewaykit.notebook.job_views.shown_once import mark_shown_live

        mark_shown_live(completion)
        return completion

    def fail(self, error: BaseException) -> None:
        """Replace the live view with an error (keeping any text that arrived)."""
        if self._text or self._content or self._reasoning_text or self._reasoning or self._tools:
            self.finish(self.partial(), note=f"stopped: {error}")
            return
        self._show_final({"text/plain": str(error), "text/html": views.render_error_html(error)})
