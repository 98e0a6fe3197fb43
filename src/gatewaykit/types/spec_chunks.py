"""Streamed chunks of the spec's exact shape, built without a second look.

Validating hundreds of identical chunks through pydantic is most of what a stream costs:
:func:`spec_chunk` builds the chunk pydantic would build when a decoded chunk has exactly the spec's
shape, and gives None otherwise (the caller then validates it the tolerant way): the fast path
changes the speed, never the result (``tests/client/test_spec_chunks.py``). Details: ``docs/internals.md``.
"""

from __future__ import annotations

from typing import Any, Optional, TypeVar

from pydantic import BaseModel
from pydantic_core import from_json

from gatewaykit.types.chat import ChatCompletionChunk, ChunkChoice, Delta

__all__ = ["REVIEWED_VALIDATORS", "SpecChunkReader", "spec_chunk"]

M = TypeVar("M", bound=BaseModel)

REVIEWED_VALIDATORS = {
    "ChatCompletionChunk": {"_null_fields"},  # null id/object/created/choices: refused (not str/int/list)
    "ChunkChoice": {"_null_fields"},  # null index/delta: refused (not int/dict)
    "Delta": {"_reasoning_content"},  # reasoning_content: refused (not a text key)
}

_new = object.__new__
# The slots pydantic's own model_construct fills, set through their descriptors (no attribute lookup).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_CHUNK_KEYS = frozenset(ChatCompletionChunk.model_fields)
_CHOICE_KEYS = frozenset({"index", "finish_reason", "delta", "logprobs"})
_TEXT_KEYS = frozenset({"role", "content", "reasoning", "refusal"})  # the delta keys whose value is a str or null
_DELTA_DEFAULTS = {name: None for name in Delta.model_fields}
_DEFAULT_OBJECT = ChatCompletionChunk.model_fields["object"].default


def _built(cls: type[M], fields: dict[str, Any], fields_set: set[str], extra: dict[str, Any]) -> M:
    """What ``cls.model_validate`` returns for input it would not change."""
    instance = _new(cls)
    _set_dict(instance, fields)
    _set_fields_set(instance, fields_set)
    _set_extra(instance, extra)
    _set_private(instance, None)
    return instance


def _choice(raw: Any) -> Optional[ChunkChoice]:
    if type(raw) is not dict or not raw.keys() <= _CHOICE_KEYS:
        return None
    get = raw.get
    index = get("index", 0)
    finish_reason = get("finish_reason")
    delta = get("delta")
    if (
        type(index) is not int
        or (finish_reason is not None and type(finish_reason) is not str)
        or get("logprobs") is not None
        or type(delta) is not dict
        or not delta.keys() <= _TEXT_KEYS
    ):
        return None
    for value in delta.values():
        if value is not None and type(value) is not str:
            return None
    fields = _DELTA_DEFAULTS.copy()
    fields.update(delta)
    built_delta = _built(Delta, fields, set(delta), {})
    return _built(
        ChunkChoice, {"index": index, "finish_reason": finish_reason, "delta": built_delta, "logprobs": None}, set(raw), {}
    )


def spec_chunk(payload: Any) -> Optional[ChatCompletionChunk]:
    """The chunk of a decoded event of the spec's exact shape; None for any other shape (validate it then)."""
    if type(payload) is not dict:
        return None
    get = payload.get
    id_ = get("id", "")
    object_ = get("object", _DEFAULT_OBJECT)
    created = get("created", 0)
    model = get("model")
    raw_choices = get("choices", ())
    if (
        type(id_) is not str
        or type(object_) is not str
        or type(created) is not int
        or (model is not None and type(model) is not str)
        or type(raw_choices) not in (list, tuple)
        or get("usage") is not None
    ):
        return None
    extra: dict[str, Any] = {}
    if not payload.keys() <= _CHUNK_KEYS:
        if "error" in payload:
            return None  # an error object, or a chunk carrying one: the tolerant reader decides
        extra = {key: value for key, value in payload.items() if key not in _CHUNK_KEYS}
    choices = []
    for raw in raw_choices:
        choice = _choice(raw)
        if choice is None:
            return None
        choices.append(choice)
    fields = {"id": id_, "object": object_, "created": created, "model": model, "choices": choices, "usage": None}
    return _built(ChatCompletionChunk, fields, set(payload), extra)


_SCALARS = (str, int, float, bool, type(None))
_GIVE_UP_AFTER = 8  # refusals in a row after which a stream is read by the tolerant reader alone


def _plain_text(text: str) -> bool:
    """A JSON string literal of ``text`` has one spelling: ``"text"`` (nothing to escape)."""
    return '"' not in text and "\\" not in text and text.isprintable()


class SpecChunkReader:
    """One stream's reader of chunks of the spec's exact shape; None for any other (read it the tolerant way).

    Two paths, each giving exactly what pydantic would:

    * a chunk whose text repeats the previous text chunk's but for the text
      (a known prefix, one plain string literal, a known suffix: the common case
      from the second chunk on) is built from that chunk's fields, with no JSON
      decoded and nothing checked again: replacing one string token by another
      changes that value only;
    * any other is decoded and checked field by field (:func:`spec_chunk`); when
      it has one choice with plain text, its prefix and suffix become the
      template (checked once by decoding it with other text in that place).

    After eight events in a row that are not of the spec's shape (a foreign
    server's stream: ``reasoning_content`` deltas, nulls...), the reader stops
    decoding events for the rest of the stream (which then costs what it did
    before the fast path); a chunk repeating the template is still built.
    """

    __slots__ = ("_prefix", "_suffix", "_start", "_cut", "_template", "_used", "_unused", "_refused",
                 "text", "index", "_text_only")  # fmt: skip

    def __init__(self) -> None:
        # After each read: the text of a chunk that repeats a template of text alone (one choice, a delta of
        # "content" only, no finish_reason, extras or usage) but for its text, else None. Such a chunk adds
        # nothing to an assembly that had the template chunk but its text (to choice ``index``).
        self.text: Optional[str] = None
        self.index = 0
        self._text_only = False
        self._prefix: Optional[str] = None  # the template's text up to its text's opening quote, that quote included
        self._suffix = ""  # from the text's closing quote on
        self._start = 0  # len(prefix): where the text starts
        self._cut = 0  # len(suffix): how far from the end the text stops
        self._template: tuple[Any, ...] = ()
        self._used = False
        self._unused = 0  # templates learned in a row that no chunk repeated: past 3, stop learning
        self._refused = 0  # events refused in a row: past 8, a foreign server's stream: stop trying

    def read(self, data: str) -> Optional[ChatCompletionChunk]:
        prefix = self._prefix
        if prefix is not None and data.startswith(prefix) and data.endswith(self._suffix):
            start, end = self._start, len(data) - self._cut
            text = data[start:end]
            # _plain_text, inlined; end < start: the two quotes were one
            if end >= start and '"' not in text and "\\" not in text and text.isprintable():
                self._used = True
                self.text = text if self._text_only else None
                # Inlined (this runs for nearly every chunk): what _built does, for the delta, choice and chunk.
                chunk_fields, chunk_set, extra, choice_fields, choice_set, delta_fields, delta_set = self._template
                fields = delta_fields.copy()
                fields["content"] = text
                delta = _new(Delta)
                _set_dict(delta, fields)
                _set_fields_set(delta, delta_set.copy())
                _set_extra(delta, {})
                _set_private(delta, None)
                fields = choice_fields.copy()
                fields["delta"] = delta
                choice = _new(ChunkChoice)
                _set_dict(choice, fields)
                _set_fields_set(choice, choice_set.copy())
                _set_extra(choice, {})
                _set_private(choice, None)
                fields = chunk_fields.copy()
                fields["choices"] = [choice]
                chunk = _new(ChatCompletionChunk)
                _set_dict(chunk, fields)
                _set_fields_set(chunk, chunk_set.copy())
                _set_extra(chunk, extra.copy())
                _set_private(chunk, None)
                return chunk
        self.text = None
        if self._refused >= _GIVE_UP_AFTER:
            return None
        try:
            built = spec_chunk(from_json(data))
        except ValueError:  # not JSON, or JSON only the standard library reads (a lone surrogate escape)
            built = None
        if built is None:
            self._refused += 1
            return None
        self._refused = 0
        if self._unused < 3:
            self._learn(data, built)
        return built

    def _learn(self, data: str, chunk: ChatCompletionChunk) -> None:
        if len(chunk.choices) != 1:
            return
        choice = chunk.choices[0]
        text = choice.delta.content
        extra = chunk.__pydantic_extra__ or {}
        if text is None or not _plain_text(text) or any(type(value) not in _SCALARS for value in extra.values()):
            return  # nested extras would be shared between chunks: not repeated
        literal = f'"{text}"'
        start = data.find(literal)
        if start < 0 or data.find(literal, start + 1) >= 0:
            return  # written with escapes, or not only in its own place
        prefix, suffix = data[:start], data[start + len(literal) :]
        other = text + "~"
        try:
            probe = spec_chunk(from_json(f'{prefix}"{other}"{suffix}'))
        except ValueError:
            return
        if probe is None or len(probe.choices) != 1 or probe.choices[0].delta.content != other:
            return  # the literal found was not the content's own
        self._unused = 0 if self._used or self._prefix is None else self._unused + 1
        self._used = False
        self._prefix, self._suffix = prefix + '"', '"' + suffix
        self._start, self._cut = len(prefix) + 1, len(suffix) + 1
        delta = choice.delta
        self.index = choice.index
        self._text_only = (
            delta.__pydantic_fields_set__ == {"content"} and choice.finish_reason is None and not extra
        )  # (a chunk of the spec's shape has no usage nor logprobs)
        self._template = (  # copies: the caller may change the chunk it was given
            dict(chunk.__dict__), set(chunk.__pydantic_fields_set__), dict(extra),
            dict(choice.__dict__), set(choice.__pydantic_fields_set__),
            dict(delta.__dict__), set(delta.__pydantic_fields_set__),
        )  # fmt: skip
