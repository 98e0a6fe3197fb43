"""The synthetic model's prose: honest about being offline, and a demonstration of rendering.

It never pretends to answer. Every reply says it comes from the offline model,
restates the question, and (room permitting) shows the Markdown a real answer
would use: a heading, a list, a table when one is asked for, and a code block in
the language the prompt names. The form follows the prompt ("in one sentence",
"three bullet points") and the ``max_tokens`` budget; the wording varies with
the seed, and every sentence is fixed, correct English (no phrases assembled
from prompt words).
"""

from __future__ import annotations

import random

from gatewaykit.emulator.chat.prompt_reading import PromptShape, comparison_columns, read_prompt
from gatewaykit.emulator.chat.tokens import count_tokens

_OPENINGS = [
    "This reply comes from the offline gateway's synthetic model, so it is not a real answer.",
    "I am the offline gateway's synthetic model: I can't answer this, but I can show how an answer renders.",
    "You are talking to the offline gateway, whose synthetic model cannot answer this.",
    "This is synthetic text from the offline gateway; no real model read your message.",
]
_RESTATES = [
    "You wrote: “{q}”",
    "Your message was: “{q}”",
    "The prompt, as received: “{q}”",
]
_QUOTE_INTROS = ["Your message, as received:", "This is what you sent:", "The prompt it received:"]
_FACTS = [
    "The same prompt and seed always give the same reply, so notebooks rerun identically.",
    "Token counts, prices and streaming behave like the real gateway's.",
    "Set an API key to send this prompt to a real model instead.",
    "Nothing in this reply comes from a language model.",
    "The formatting is real Markdown, so you can check how answers render.",
    "Costs here are charged to a pretend balance, not to your account.",
    "Tool calls, JSON output and reasoning traces are synthetic too.",
    "Scripted answers can be loaded with the --script option for a fixed demo.",
    "A real model's reply would differ in both content and length.",
    "This text is for testing layouts, not for learning facts.",
]
_HEADINGS = ["## Offline answer", "## A synthetic reply", "## From the offline model", "## Placeholder answer"]
_LIST_HEADINGS = ["### About this reply", "### What you are seeing", "### Good to know"]
_CLOSINGS = [
    "Connect to a real gateway for a real answer.",
    "With a real key, the same call returns a real model's answer.",
    "Everything above is placeholder content from the offline gateway.",
]
_ONE_SENTENCE = [
    "I'm the offline gateway's synthetic model, so I can't answer “{q}” — a real model can, once a key is set.",
    "This offline, synthetic reply can't answer “{q}”; set an API key to ask a real model.",
    "The offline model does not know the answer to “{q}”, so this one sentence is a placeholder.",
]
_DISPLAY = {"javascript": "JavaScript", "typescript": "TypeScript", "sql": "SQL", "csharp": "C#", "cpp": "C++",
            "html": "HTML", "css": "CSS", "r": "R"}
_TABLE_ROWS = ["Summary", "Strengths", "Weaknesses", "Typical use", "Learning curve", "Tooling"]


def _code(language: str, question: str) -> str:
    """A small, correct program in ``language`` that prints a note about the question."""
    text = "".join(ch for ch in question if ch.isprintable()).replace("\\", "/")[:80]
    dq = text.replace('"', "'")
    bodies = {
        "python": f'question = "{dq}"\nprint(f"Offline placeholder for: {{question}}")',
        "javascript": f'const question = "{dq}";\nconsole.log(`Offline placeholder for: ${{question}}`);',
        "typescript": f'const question: string = "{dq}";\nconsole.log(`Offline placeholder for: ${{question}}`);',
        "sql": "SELECT 'Offline placeholder for: ' || '{}' AS note;".format(text.replace("'", "''")),
        "bash": "question='{}'\necho \"Offline placeholder for: $question\"".format(text.replace("'", "'\\''")),
        "rust": f'fn main() {{\n    let question = "{dq}";\n    println!("Offline placeholder for: {{}}", question);\n}}',
        "go": f'package main\n\nimport "fmt"\n\nfunc main() {{\n\tquestion := "{dq}"\n'
              f'\tfmt.Println("Offline placeholder for:", question)\n}}',
        "java": f'public class Placeholder {{\n    public static void main(String[] args) {{\n'
                f'        System.out.println("Offline placeholder for: {dq}");\n    }}\n}}',
        "csharp": f'Console.WriteLine("Offline placeholder for: {dq}");',
        "ruby": f'question = "{dq}"\nputs "Offline placeholder for: #{{question}}"',
        "r": f'question <- "{dq}"\ncat("Offline placeholder for:", question, "\\n")',
        "julia": f'question = "{dq}"\nprintln("Offline placeholder for: ", question)',
        "cpp": f'#include <iostream>\n\nint main() {{\n    std::cout << "Offline placeholder for: {dq}" << std::endl;\n}}',
        "html": "<p>Offline placeholder for: {}</p>".format(text.replace("&", "&amp;").replace("<", "&lt;")),
        "css": "/* Offline placeholder */\n.answer {\n  font-style: italic;\n}",
    }
    return f"```{language}\n{bodies.get(language, bodies['python'])}\n```"


def _table(shape: PromptShape, rng: random.Random) -> str:
    columns = comparison_columns(shape.text) or ["Option A", "Option B"]
    lines = [f"| Aspect | {columns[0]} | {columns[1]} |", "|---|---|---|"]
    for row in rng.sample(_TABLE_ROWS, 3):
        lines.append(f"| {row} | (offline placeholder) | (offline placeholder) |")
    return "\n".join(lines)


def _bullets(rng: random.Random, count: int, numbered: bool) -> str:
    facts = rng.sample(_FACTS, min(count, len(_FACTS)))
    while len(facts) < count:
        facts.append(f"Placeholder point {len(facts) + 1}, added because the prompt asked for {count}.")
    return "\n".join(f"{i}. {fact}" if numbered else f"- {fact}" for i, fact in enumerate(facts, 1))


def _sentences(shape: PromptShape, rng: random.Random, count: int) -> str:
    if count == 1:
        return rng.choice(_ONE_SENTENCE).format(q=shape.quoted)
    parts = [rng.choice(_OPENINGS), rng.choice(_RESTATES).format(q=shape.quoted.rstrip(".")) + "."]
    parts += rng.sample(_FACTS, min(count - 2, len(_FACTS)))
    return " ".join(parts[:count])


def _full(shape: PromptShape, rng: random.Random, *, code: bool, table: bool) -> str:
    blocks = [rng.choice(_HEADINGS), rng.choice(_OPENINGS) + " " + rng.choice(_QUOTE_INTROS), "> " + shape.quoted]
    blocks += [rng.choice(_LIST_HEADINGS), _bullets(rng, shape.bullets or rng.randint(3, 4), rng.random() < 0.4)]
    if table:
        blocks += ["### A table, for layout", _table(shape, rng)]
    if code:
        language = shape.language or "python"
        blocks += [f"### {_DISPLAY.get(language, language.capitalize())} code, for layout", _code(language, shape.text)]
    blocks.append(rng.choice(_CLOSINGS))
    return "\n\n".join(blocks)


def answer(prompt: str, rng: random.Random, max_tokens: int | None = None) -> str:
    """The synthetic reply to ``prompt``: the fullest form that fits ``max_tokens`` (the shortest otherwise)."""
    shape = read_prompt(prompt)
    if shape.greeting:
        return rng.choice(["Hello! I'm the offline gateway's synthetic model; ask me anything to see how an "
                           "answer renders.", "Hi! This is the offline gateway. Its synthetic model replies with "
                           "placeholder text, so you can try the API without a key."])
    if shape.sentences:
        return _sentences(shape, rng, shape.sentences)
    if shape.bullets and not shape.wants_code and not shape.table:
        return rng.choice(_OPENINGS) + "\n\n" + _bullets(rng, shape.bullets, False)
    forms = [_full(shape, rng, code=True, table=shape.table),
             _full(shape, rng, code=shape.wants_code, table=shape.table),
             _sentences(shape, rng, 4), _sentences(shape, rng, 1)]
    for form in forms:
        if max_tokens is None or count_tokens(form) <= max_tokens:
            return form
    return forms[-1]


_TRACE = [
    "This is a synthetic reasoning trace: the offline model does not reason about the question.",
    "The question is “{q}”.",
    "I cannot answer it, so I will say that plainly instead of guessing.",
    "{form}",
    "A heading and a short list show how Markdown renders.",
    "{code}",
    "The reply has to fit within the token budget, so shorter forms are preferred when it is tight.",
    "The same prompt and seed must give the same reply.",
    "I will restate the question so the reader can see what was received.",
    "A closing line will point to a real gateway for a real answer.",
    "I should not invent facts, numbers or names.",
    "The plan is settled; now write the reply.",
]
EFFORT_STEPS = {"low": 2, "medium": 5, "high": 10}


def reasoning_trace(prompt: str, rng: random.Random, effort: str) -> str:
    """A trace that only describes what the synthetic model will do (never a fake chain of thought)."""
    shape = read_prompt(prompt)
    form = (f"The prompt asks for {shape.sentences} sentence{'s' if shape.sentences > 1 else ''}, so the reply "
            "will have exactly that many." if shape.sentences else
            f"The prompt asks for {shape.bullets} points, so the list will have {shape.bullets} items."
            if shape.bullets else "No particular length is asked for, so a full demonstration fits.")
    code = (f"The prompt names {shape.language}, so any code block will be {shape.language}." if shape.language
            else "No programming language is named, so a code block, if any, will be Python.")
    steps = [step.format(q=shape.quoted, form=form, code=code) for step in _TRACE]
    count = EFFORT_STEPS.get(effort, 5)
    picked = sorted(rng.sample(range(2, len(steps) - 1), min(count - 2, len(steps) - 3))) if count > 2 else []
    middle = [steps[i] for i in picked]  # in plan order, so the trace reads as one line of thought
    chosen = [steps[0], steps[1]] + middle + ([steps[-1]] if count >= 5 else [])
    return "\n\n".join(chosen)
