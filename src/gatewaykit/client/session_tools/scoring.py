"""Scorers of an evaluation: plain functions ``(output, case) -> bool | float | dict``, and ``gk.judge``.

A bool or a number is the score, a dict one score per key; a scorer that raises leaves its error in
that cell only (``gk.expect``'s expectations read the whole cell and name their own columns).
:class:`Judge` (``gk.judge(model=, rubric=)``) asks a chat model for a JSON verdict (``score`` 0 to 1
and a ``reason``) in at most ``max_tokens`` (1024: a verdict's cost is bounded and quoted in full), with
its model, temperature and seed pinned so a re-run can be answered from the cache or a checkpoint.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Callable, Iterable, Optional

from gatewaykit.client.session_tools.expectations import Expectation

__all__ = ["Judge", "apply_score", "plain_score", "judge", "mean_score", "named_scorers", "scorer_output"]

_VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reason": {"type": "string"},
    },
    "required": ["score", "reason"],
    "additionalProperties": False,
}
#: The longest verdict a judge writes by default (its reasoning included, on a reasoning model).
VERDICT_MAX_TOKENS = 1024
_INSTRUCTIONS = (
    "You grade one output of an AI model against a rubric. Answer only with JSON: "
    '{"score": a number from 0 (fails the rubric) to 1 (fully meets it), "reason": one sentence}.'
)


class Judge:
    """An LLM judge (see the module docstring); build it with :func:`judge`."""

    def __init__(self, model: str, rubric: str, *, name: str = "judge", temperature: float = 0.0, seed: int = 0,
                 max_tokens: int = VERDICT_MAX_TOKENS) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError("judge(model=...) needs a chat model id, e.g. judge(model='chat-mini', rubric='...')")
        if not isinstance(rubric, str) or not rubric.strip():
            raise ValueError("judge(rubric=...) needs the rubric: what a good output does, in words")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"judge(name=...) names the score column: an identifier, not {name!r}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"judge(max_tokens=...) bounds the verdict: a whole number from 1, not {max_tokens!r}")
        self.model, self.rubric, self.name, self.max_tokens = model, rubric, name, max_tokens
        self.temperature, self.seed = float(temperature), int(seed)

    @property
    def pinned(self) -> dict[str, Any]:
        """What makes a verdict repeatable: the model, the temperature, the seed."""
        return {"model": self.model, "temperature": self.temperature, "seed": self.seed}

    @property
    def fingerprint(self) -> str:
        """Changes when anything that shapes the verdict does (the checkpoint keys verdicts by it)."""
        text = json.dumps({**self.pinned, "rubric": self.rubric, "name": self.name}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def request(self, output: Any, case: dict[str, Any], kind: str) -> dict[str, Any]:
        """The chat request (keywords of ``chat.completions.create``) that grades ``output``."""
        facts = [f"Rubric: {self.rubric}", f"Prompt given to the model: {case['prompt']}"]
        if "expected" in case:
            facts.append(f"Expected: {case['expected']}")
        content: Any
        if kind == "chat":
            facts.append(f"Output to grade:\n{output}")
            content = "\n\n".join(facts)
        elif kind == "image":
            facts.append("Output to grade: the image(s) below.")
            content = [{"type": "text", "text": "\n\n".join(facts)}] + [
                {"type": "image_url", "image_url": {"url": _image_uri(item)}} for item in (output.data or [])[:4]
            ]
        else:
            facts.append(f"Output to grade: a {kind} job, status {getattr(output, 'status', '?')}, "
                         f"{getattr(output, 'seconds', '?')} s (you cannot hear or see it).")  # fmt: skip
            content = "\n\n".join(facts)
        return {
            **self.pinned,
            "max_tokens": self.max_tokens,
            "messages": [{"role": "system", "content": _INSTRUCTIONS}, {"role": "user", "content": content}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "verdict", "strict": True, "schema": _VERDICT_SCHEMA}},
        }

    def verdict(self, completion: Any) -> dict[str, Any]:
        """``{"score": float, "reason": str}`` from the judge's answer; ValueError when it is not one."""
        choice = completion.choices[0]
        text = choice.message.content or ""
        try:
            answer = json.loads(text)
            score = float(answer["score"])
        except (ValueError, TypeError, KeyError) as exc:
            cut = (f"; its answer was cut at max_tokens={self.max_tokens} (give judge(max_tokens=) more)"
                   if choice.finish_reason == "length" else "")
            raise ValueError(
                f"the judge {self.model!r} did not answer a verdict ({exc}){cut}: {text[:120]!r}"
            ) from None
        if not math.isfinite(score) or not 0 <= score <= 1:
            raise ValueError(f"the judge {self.model!r} gave a score outside 0..1: {score!r}")
        return {"score": score, "reason": str(answer.get("reason", ""))}

    def __call__(self, output: Any, case: Any) -> Any:
        raise TypeError(
            f"{self!r} scores inside client.evaluate(..., scorers=[...]) (it needs the client to ask its model)"
        )

    def __repr__(self) -> str:
        temperature = int(self.temperature) if self.temperature.is_integer() else self.temperature
        return f"judge(model={self.model!r}, temperature={temperature}, seed={self.seed}, name={self.name!r})"


def judge(model: str, rubric: str, *, name: str = "judge", temperature: float = 0.0, seed: int = 0,
          max_tokens: int = VERDICT_MAX_TOKENS) -> Judge:
    """A scorer that asks ``model`` to grade each output against ``rubric`` (a 0..1 score in at most ``max_tokens``;
    pinned, cached)."""
    return Judge(model, rubric, name=name, temperature=temperature, seed=seed, max_tokens=max_tokens)


def _image_uri(item: Any) -> str:
    if getattr(item, "b64_json", None):
        return f"data:image/png;base64,{item.b64_json}"
    return str(getattr(item, "url", "") or "")


def named_scorers(scorers: Any) -> list[tuple[str, Callable[..., Any]]]:
    """``(name, scorer)`` pairs: a function's ``__name__`` (a lambda: ``score_<n>``), a judge's ``name``."""
    if callable(scorers):
        scorers = [scorers]
    if isinstance(scorers, (str, bytes)) or not isinstance(scorers, Iterable):
        raise TypeError(f"evaluate(scorers=...) takes a list of functions (output, case) -> score, not {scorers!r}")
    named: list[tuple[str, Callable[..., Any]]] = []
    for index, scorer in enumerate(scorers):
        if not callable(scorer):
            raise TypeError(f"evaluate(scorers=...): item {index} is {type(scorer).__name__}, not a function")
        if isinstance(scorer, Expectation):
            name = scorer.name  # it names itself: contains('Paris'), max_cost($0.01)...
        else:
            name = scorer.name if isinstance(scorer, Judge) else getattr(scorer, "__name__", "")
            if not isinstance(name, str) or not name.isidentifier():
                name = f"score_{index + 1}"
        named.append((name, scorer))
    names = [name for name, _ in named]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"evaluate(scorers=...): two scorers are named {', '.join(map(repr, repeated))}; "
                         "each name is a column (give a judge its own name=)")  # fmt: skip
    return named


def numeric_scores(values: Any) -> list[float]:
    """The numeric scores among ``values`` as floats (bools as 0/1; None, NaN and other values left out)."""
    return [float(v) for v in values if isinstance(v, (bool, int, float)) and not (isinstance(v, float) and math.isnan(v))]


def mean_score(values: Any) -> Optional[float]:
    """The mean of the numeric scores among ``values`` (:func:`numeric_scores`), or None."""
    numbers = numeric_scores(values)
    return math.fsum(numbers) / len(numbers) if numbers else None


def scorer_output(cell: Any) -> Any:
    """What a scorer receives as ``output``: the text of a chat answer, the result object otherwise."""
    return cell.text if cell.kind == "chat" else cell.result


def plain_score(cell: Any, name: str, scorer: Any) -> None:
    """Score ``cell`` with a scorer that sends nothing: an expectation (reads the cell), or a function."""
    if isinstance(scorer, Expectation):
        apply_score(cell, name, scorer.score(cell))
    else:
        apply_score(cell, name, scorer(scorer_output(cell), cell.case))


def apply_score(cell: Any, name: str, value: Any) -> None:
    """Put a scorer's value into the cell (a dict as ``name.key`` columns); a wrong type is that score's error."""
    if isinstance(value, dict):
        for key, item in value.items():
            apply_score(cell, f"{name}.{key}", item)
        return
    if value is None or isinstance(value, (bool, int, float)):
        cell.scores[name] = value
        return
    cell.score_errors[name] = TypeError(f"a scorer returns a bool, a number or a dict, not {type(value).__name__}")


def verdict_score(cell: Any, judge_: Judge, verdict: Optional[dict[str, Any]]) -> None:
    """A judge's verdict into the cell: its score under the judge's name, its reason kept beside it."""
    if verdict is not None:
        cell.scores[judge_.name] = verdict["score"]
        cell.reasons[judge_.name] = verdict.get("reason", "")
