"""Readable, Markdown-rich synthetic answers written from the prompt and a seeded RNG.

Answers have a heading, an introduction, a list of points, a fenced code block,
a table when the prompt asks for one (or for a comparison) and a closing line.
Prompts asking for brevity get a short plain paragraph. Nothing here claims to
be true: the words are arranged from the prompt's own keywords.
"""

from __future__ import annotations

import random
import re

_STOP = set("""a an the and or but if then of to in on at by for with from into about as is are was were be
been being do does did can could should would will shall may might must i you he she it we they me my your our
their this that these those what which who whom whose why how when where please explain tell show give write
describe make let lets list some any all more most very just also like using use need want briefly short
sentence sentences word words one two three four five paragraph paragraphs quick simple simply summary
summarize summarise table compare comparison versus vs between difference differences its it's im i'm
hello hi hey thanks thank""".split())

_ASPECTS = ["Performance", "Simplicity", "Reliability", "Cost", "Tooling", "Security", "Scalability",
            "Observability", "Learning curve", "Ecosystem", "Portability", "Testing"]
_RATINGS = ["High", "Medium", "Low", "Excellent", "Good", "Fair", "Limited", "Strong"]

_INTROS = [
    "**{Topic}** is easiest to understand as a few moving parts that work together.",
    "In short, {topic} is about doing one job predictably and making failure visible.",
    "Here is a practical overview of {topic}, from the core idea to a working example.",
    "{Topic} comes up often; the essentials fit on one screen.",
    "Think of {topic} as a contract: inputs on one side, guarantees on the other.",
    "The quickest way into {topic} is to look at what it changes in everyday work.",
]
_POINTS = [
    "keep the {word} step small and explicit so it is easy to test",
    "measure before optimising; {word} costs are rarely where you expect",
    "make {word} failures loud and retries safe",
    "document the {word} defaults next to the code that relies on them",
    "prefer boring, well-understood {word} tools over clever ones",
    "treat {word} input as untrusted until it has been validated",
    "cache {word} results only when invalidation is obvious",
    "log the {word} decisions you will want to explain later",
    "start with the simplest {word} setup that could possibly work",
    "write down how {word} behaves at the edges: empty, huge and slow",
]
_CLOSINGS = [
    "Start small, check each step, and grow from there.",
    "With these pieces in place, {topic} becomes routine rather than risky.",
    "If you want, I can go deeper into any of these points.",
    "That covers the essentials; the details depend on your setup.",
]
_TIPS = [
    "> **Tip:** try it on a tiny example first; the behaviour is easier to see.",
    "> **Note:** defaults differ between versions, so pin what you depend on.",
    "> **Watch out:** the slow path is usually the one nobody tested.",
]
_LANGUAGES = {"python": "python", "javascript": "javascript", "js": "javascript", "typescript": "typescript",
              "sql": "sql", "bash": "bash", "shell": "bash", "rust": "rust", "go": "go", "golang": "go"}


def keywords(text: str, limit: int = 4) -> list[str]:
    words = re.findall(r"[A-Za-z][A-Za-z0-9+#\-]{2,}", text)
    seen: list[str] = []
    for word in words:
        low = word.lower()
        if low not in _STOP and low not in (w.lower() for w in seen):
            seen.append(word)
        if len(seen) == limit:
            break
    return seen


def topic_of(text: str) -> str:
    words = keywords(text, 3)
    return " ".join(words) if words else "this question"


def wants_table(prompt: str) -> bool:
    return bool(re.search(r"\b(table|compare|comparison|versus|vs\.?|differences?)\b", prompt, re.I))


def brevity(prompt: str) -> int | None:
    """How many sentences a brevity request asks for (None: a full answer)."""
    low = prompt.lower()
    match = re.search(r"\b(one|two|three|a|1|2|3)\s+sentences?\b", low)
    if match:
        return {"one": 1, "a": 1, "1": 1, "two": 2, "2": 2, "three": 3, "3": 3}[match.group(1)]
    if re.search(r"\b(briefly|brief|short answer|tl;?dr|in a word|one word|one line)\b", low):
        return 2
    if re.fullmatch(r"\s*(hi|hello|hey|hallo|good (morning|afternoon|evening))\b.*", low) and len(low) < 40:
        return 2
    return None


def _sentence(rng: random.Random, templates: list[str], topic: str, words: list[str]) -> str:
    text = rng.choice(templates).format(Topic=topic[:1].upper() + topic[1:], topic=topic,
                                        word=(rng.choice(words) if words else "core").lower())
    return text[:1].upper() + text[1:]


def short_answer(prompt: str, rng: random.Random, sentences: int) -> str:
    topic = topic_of(prompt)
    words = keywords(prompt) or ["it"]
    if re.match(r"\s*(hi|hello|hey|hallo|good)\b", prompt, re.I):
        return rng.choice(["Hello! How can I help you today?", "Hi there! What would you like to explore?"])
    parts = [_sentence(rng, _INTROS, topic, words)]
    while len(parts) < sentences:
        parts.append(_sentence(rng, _POINTS, topic, words) + ".")
    return " ".join(parts[:sentences])


def _code_block(prompt: str, rng: random.Random, words: list[str]) -> str:
    language = "python"
    for token in re.findall(r"[a-z]+", prompt.lower()):
        if token in _LANGUAGES:
            language = _LANGUAGES[token]
            break
    name = re.sub(r"[^a-z0-9]+", "_", (words[0] if words else "task").lower()).strip("_") or "task"
    number = rng.randint(2, 9)
    bodies = {
        "python": f"def {name}(items):\n    \"\"\"Process each item and keep the ones that pass.\"\"\"\n"
                  f"    kept = [item for item in items if item]\n    return kept[:{number}]\n\n\n"
                  f"print({name}([1, 0, 2, 3]))",
        "javascript": f"function {name}(items) {{\n  return items.filter(Boolean).slice(0, {number});\n}}\n\n"
                      f"console.log({name}([1, 0, 2, 3]));",
        "typescript": f"export function {name}(items: number[]): number[] {{\n"
                      f"  return items.filter(Boolean).slice(0, {number});\n}}",
        "sql": f"SELECT {name}, COUNT(*) AS total\nFROM events\nGROUP BY {name}\n"
               f"ORDER BY total DESC\nLIMIT {number};",
        "bash": f"#!/usr/bin/env bash\nset -euo pipefail\nfor i in $(seq 1 {number}); do\n"
                f"  echo \"{name} step $i\"\ndone",
        "rust": f"fn {name}(items: &[i32]) -> Vec<i32> {{\n"
                f"    items.iter().copied().filter(|x| *x != 0).take({number}).collect()\n}}",
        "go": f"func {name}(items []int) []int {{\n\tout := []int{{}}\n\tfor _, x := range items {{\n"
              f"\t\tif x != 0 {{\n\t\t\tout = append(out, x)\n\t\t}}\n\t}}\n\treturn out\n}}",
    }
    return f"```{language}\n{bodies[language]}\n```"


def _table(prompt: str, rng: random.Random, words: list[str]) -> str:
    match = re.search(r"([\w+#.\-]+)\s+(?:vs\.?|versus|and|or)\s+([\w+#.\-]+)", prompt, re.I)
    if match and match.group(1).lower() not in _STOP and match.group(2).lower() not in _STOP:
        columns = [match.group(1), match.group(2)]
    else:
        columns = (words + ["Option A", "Option B"])[:2] if len(words) >= 2 else ["Option A", "Option B"]
    aspects = rng.sample(_ASPECTS, 4)
    lines = [f"| Aspect | {columns[0]} | {columns[1]} |", "|---|---|---|"]
    for aspect in aspects:
        lines.append(f"| {aspect} | {rng.choice(_RATINGS)} | {rng.choice(_RATINGS)} |")
    return "\n".join(lines)


def full_answer(prompt: str, rng: random.Random) -> str:
    topic = topic_of(prompt)
    words = keywords(prompt) or ["core"]
    title = topic[:1].upper() + topic[1:]
    blocks = [f"## {title}", _sentence(rng, _INTROS, topic, words)]
    heading = rng.choice(["### Key points", "### What matters", "### In practice", "### The essentials"])
    points = rng.sample(_POINTS, rng.randint(3, 5))
    aspects = rng.sample(_ASPECTS, len(points))
    if rng.random() < 0.5:
        items = [f"- **{a}**: {p.format(word=rng.choice(words).lower())}." for a, p in zip(aspects, points)]
    else:
        items = [f"{i}. {p.format(word=rng.choice(words).lower()).capitalize()}."
                 for i, p in enumerate(points, 1)]
    blocks += [heading, "\n".join(items)]
    if wants_table(prompt):
        blocks += ["### Comparison", _table(prompt, rng, words)]
    blocks += [rng.choice(["### Example", "### A small example", "### Try it"]), _code_block(prompt, rng, words)]
    if rng.random() < 0.6:
        blocks.append(rng.choice(_TIPS))
    blocks.append(_sentence(rng, _CLOSINGS, topic, words))
    return "\n\n".join(blocks)


def answer(prompt: str, rng: random.Random) -> str:
    sentences = brevity(prompt)
    if sentences is not None:
        return short_answer(prompt, rng, sentences)
    return full_answer(prompt, rng)


_STEPS = [
    "The user is asking about {topic}; first I should pin down what they actually need.",
    "Key terms here: {words}. Each one suggests a part of the answer.",
    "A short overview first, then concrete points, then an example seems right.",
    "I should check the edge cases: empty input, very large input, and failures.",
    "Is there an ambiguity? The wording could mean a definition or a how-to; covering both briefly is safest.",
    "A code sample will make the idea concrete; keep it small and runnable.",
    "Let me double-check the ordering of the points so that each builds on the previous one.",
    "Trade-offs matter here: simplicity against flexibility, speed against safety.",
    "I should avoid overclaiming and keep statements general where details depend on the setup.",
    "Formatting: a heading, a list and a code block will render well in Markdown.",
    "One more pass: is anything missing that a newcomer would trip over?",
    "Good, the structure is settled; now write the answer.",
]
EFFORT_STEPS = {"low": 2, "medium": 5, "high": 10}


def reasoning_trace(prompt: str, rng: random.Random, effort: str) -> str:
    topic = topic_of(prompt)
    words = ", ".join(keywords(prompt)) or "none in particular"
    count = EFFORT_STEPS.get(effort, 5)
    middle = _STEPS[1:-1]
    chosen = [_STEPS[0]] + rng.sample(middle, min(count - 1, len(middle)))
    if count >= 5:
        chosen.append(_STEPS[-1])
    return "\n\n".join(step.format(topic=topic, words=words) for step in chosen[: max(count, 2)])
