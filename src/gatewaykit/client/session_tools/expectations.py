"""``gk.expect``: expectations as data, scorers of ``client.evaluate`` that name themselves.

``gk.expect.contains(text)``, ``.regex(pattern)``, ``.json_schema(schema)``,
``.max_cost(usd)``, ``.max_latency(seconds)`` each return an
:class:`Expectation`: a scorer whose column reads what it checks
(``contains('Paris')``, ``max_cost($0.001)``...; ``name=`` renames it) and
whose score is a bool. They sit in ``scorers=[...]`` beside plain functions
and ``gk.judge``. Text checks read a chat answer (a media output is that
cell's scorer error); ``max_cost`` reads what the cell cost (for a cell from
the checkpoint, the cassette or the cache, what it cost when it was sent) and
``max_latency`` its seconds.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Optional

__all__ = ["Expectation", "ExpectationFactory", "expect"]


class Expectation:
    """A scorer that checks one thing of a cell (see the module docstring); build it with ``gk.expect``."""

    def __init__(self, name: str, check: Callable[[Any], bool], reads_text: bool = True) -> None:
        self.name = name
        self._check = check
        self.reads_text = reads_text

    def score(self, cell: Any) -> bool:
        """True when the cell meets the expectation (raises when it cannot be checked: that cell's error)."""
        if self.reads_text and cell.kind != "chat":
            raise TypeError(f"{self.name} reads a chat answer; this cell's output is {cell.kind}")
        return bool(self._check(cell))

    def __call__(self, output: Any, case: Any) -> Any:
        raise TypeError(f"{self.name} scores inside client.evaluate(..., scorers=[...]) (it reads the whole cell)")

    def __repr__(self) -> str:
        return f"expect.{self.name}"


def _name(given: Optional[str], default: str) -> str:
    if given is None:
        return default
    if not isinstance(given, str) or not given.strip():
        raise ValueError(f"expect: name= is the score column's name, a non-empty string, not {given!r}")
    return given


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _limit(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"expect.{what}(...) takes a number from 0, not {value!r}")
    return float(value)


class ExpectationFactory:
    """``gk.expect``: the expectations (each returns an :class:`Expectation`)."""

    def contains(self, text: str, *, case_sensitive: bool = True, name: Optional[str] = None) -> Expectation:
        """The answer contains ``text`` (``case_sensitive=False`` ignores case)."""
        if not isinstance(text, str) or not text:
            raise ValueError(f"expect.contains(...) takes the text to find, a non-empty string, not {text!r}")
        wanted = text if case_sensitive else text.casefold()
        label = f"contains({_short(text)})" if case_sensitive else f"icontains({_short(text)})"

        def check(cell: Any) -> bool:
            answer = cell.text if case_sensitive else cell.text.casefold()
            return wanted in answer

        return Expectation(_name(name, label), check)

    def regex(self, pattern: str, *, flags: int = 0, name: Optional[str] = None) -> Expectation:
        """``re.search(pattern, answer)`` finds a match."""
        try:
            compiled = re.compile(pattern, flags)
        except (re.error, TypeError) as exc:
            raise ValueError(f"expect.regex({pattern!r}): not a regular expression ({exc})") from None
        return Expectation(_name(name, f"regex({_short(pattern)})"), lambda cell: compiled.search(cell.text) is not None)

    def json_schema(self, schema: dict[str, Any], *, name: Optional[str] = None) -> Expectation:
        """The answer is JSON (a fenced ```json block counts) valid against ``schema`` (needs ``jsonschema``)."""
        try:
            import jsonschema
        except ImportError:  # pragma: no cover - jsonschema comes with the notebook extra
            raise ImportError("expect.json_schema needs the jsonschema package: pip install jsonschema") from None
        if not isinstance(schema, dict):
            raise ValueError(f"expect.json_schema(...) takes a JSON Schema as a dict, not {type(schema).__name__}")
        try:
            validator_class = jsonschema.validators.validator_for(schema)
            validator_class.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"expect.json_schema(...): not a valid JSON Schema ({exc.message})") from None
        validator = validator_class(schema)
        title = schema.get("title") if isinstance(schema.get("title"), str) else None

        def check(cell: Any) -> bool:
            text = cell.text.strip()
            fenced = re.fullmatch(r"```(?:json)?\s*\n(.*)\n```", text, re.S)
            try:
                value = json.loads(fenced.group(1) if fenced else text)
            except ValueError:
                return False
            return validator.is_valid(value)

        return Expectation(_name(name, f"json_schema({title})" if title else "json_schema"), check)

    def max_cost(self, usd: float, *, name: Optional[str] = None) -> Expectation:
        """The cell cost at most ``usd`` (what it cost when sent; an unknown cost is that cell's error)."""
        limit = _limit(usd, "max_cost")

        def check(cell: Any) -> bool:
            cost = cell.paid_cost
            if cost is None:
                raise ValueError("this cell's cost is not known")
            return cost <= limit

        return Expectation(_name(name, f"max_cost(${limit:g})"), check, reads_text=False)

    def max_latency(self, seconds: float, *, name: Optional[str] = None) -> Expectation:
        """The cell's request took at most ``seconds``."""
        limit = _limit(seconds, "max_latency")

        def check(cell: Any) -> bool:
            if cell.latency_s is None:
                raise ValueError("this cell's latency is not known")
            return cell.latency_s <= limit

        return Expectation(_name(name, f"max_latency({limit:g}s)"), check, reads_text=False)

    def __repr__(self) -> str:
        return "gk.expect (contains, regex, json_schema, max_cost, max_latency)"


expect = ExpectationFactory()
