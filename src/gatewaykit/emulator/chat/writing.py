"""The synthetic model's prose: honest about being offline, and a demonstration of rendering.

It never pretends to answer. Every reply says it comes from the offline model,
restates the question, and (room permitting) shows the Markdown a real answer
would use: a heading, a list of what a real answer to this kind of prompt would
do, a table when one is asked for, and a code block only when the prompt asks
for code (in the language it names). The form follows the prompt ("in one sentence",
"three bullet points") and the ``max_tokens`` budget; the wording varies with
the seed, and every sentence is fixed, correct English (no phrases assembled
from prompt words, except the plain subject of "a sentence about X").
"""

from __future__ import annotations

import random
import re

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
_COVER_HEADINGS = ["### What a real answer would do", "### What a real model would write here",
                   "### Where a real answer would go"]
#: What a real answer to each kind of prompt would do (verb phrases: they read as bullets and after "would").
_COVER = {
    "yes_no": ["Say yes or no in its first words.", "Show the check or the evidence behind it.",
               "Mention any case in which the answer changes.", "Stop there: a yes-or-no question needs little more."],
    "explain": ["Start with a one-line definition.", "Describe how it works, one step at a time.",
                "Give a small, concrete example.", "Point out a common misunderstanding.",
                "Suggest where to read more."],
    "how_to": ["List the steps in the order you take them.", "Say what you need before you start.",
               "Warn where people usually go wrong.", "Say how to check that it worked."],
    "suggest": ["Offer a few options, each with a reason.", "Ask about budget, time or taste where they matter.",
                "Say which option it would pick, and why.", "Mention what to book or check in advance."],
    "creative": ["Write the piece itself, in the form you asked for.", "Keep to the tone and length you asked for.",
                 "Leave out any explanation unless you asked for one."],
    "summarise": ["Pick out the main points.", "Keep the original meaning without adding opinions.",
                  "Fit the length you asked for."],
    "compare": ["Set the options side by side.", "Say where each one is stronger.", "End with when to choose which."],
    "code": ["Give working code, in the language you asked for.", "Explain what each part of the code does.",
             "Show how to run it and what it prints.", "Mention an edge case the code handles."],
    "image": ["Say what the picture shows: objects, people, the setting.", "Read out any text in it.",
              "Answer your question about it directly."],
    "other": ["Answer your message directly.", "Add the detail or context that matters.",
              "Say where it is unsure.", "Keep to the length you asked for."],
}
_KIND_PATTERNS = [
    ("code", r"\b(write|show|give|implement|code|create)\b.*\b(code|function|script|snippet|program|class|"
             r"method|regex|query|algorithm)\b"),
    ("creative", r"\b(poem|haiku|story|limerick|joke|song|lyrics|slogan|tagline)\b"),
    ("summarise", r"\b(summari[sz]e|summary|tl;?dr)\b"),
    ("compare", r"\b(compare|comparison|versus|vs\.?|difference between)\b"),
    ("how_to", r"^(how (do|can|should) (i|we|you)|how to)\b|\bsteps? to\b"),
    ("suggest", r"\b(suggest|recommend|ideas?|plan|what should|where should|tips?)\b"),
    ("yes_no", r"^(is|are|can|does|do|did|should|will|was|were|has|have|could|would)\b"),
    ("explain", r"\b(explain|what (is|are)|why|how does|how do .* work|describe|tell me about|"
                r"one sentence about|about)\b"),
]
_COUNT_WORDS = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|short|few)"
_ABOUT_SENTENCES = [
    "The offline gateway can't tell you anything about {s}: set an API key and a real model will write this "
    "sentence.",
    "This placeholder stands where a real sentence about {s} would go, because no real model read your message.",
    "Nothing true about {s} comes from the offline model, so read this as a stand-in for the sentence you asked for.",
    "With an API key, a real model would write the sentence about {s} you asked for; offline, you get this "
    "synthetic one.",
    "The offline model writes no facts about {s}, so this sentence only shows where a real one would appear.",
]


def prompt_kind(shape: PromptShape) -> str:
    """What kind of answer the prompt asks for (a question to explain, a plan, code...), by its wording."""
    if shape.wants_code and shape.language:
        return "code"
    low = " ".join(shape.text.lower().split())
    return next((kind for kind, pattern in _KIND_PATTERNS if re.search(pattern, low)), "other")


def subject_of(text: str) -> str | None:
    """What the prompt is about, when it says so plainly ("one sentence about volcanoes" → "volcanoes")."""
    line = " ".join(text.split())
    match = re.search(r"\b(?:about|explain|describe|summari[sz]e|what (?:is|are))\s+(.+?)(?:[.?!;:]|$)", line,
                      re.I)
    if not match:
        return None
    subject = re.sub(rf"\s*\b(?:in|with|as|using)\s+{_COUNT_WORDS}\s+\w+(\s+\w+)?$", "", match.group(1))
    subject = re.sub(r"^(?:in\s+\w+\s+(?:short\s+)?sentences?\s+)?", "", subject, flags=re.I).strip(" ,")
    return subject if 2 <= len(subject) <= 60 else None


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


def _bullets(rng: random.Random, count: int, numbered: bool, kind: str | None = None) -> str:
    facts = list(_COVER[kind][:count]) if kind else rng.sample(_FACTS, min(count, len(_FACTS)))
    while len(facts) < count:
        facts.append(f"Placeholder point {len(facts) + 1}, added because the prompt asked for {count}.")
    return "\n".join(f"{i}. {fact}" if numbered else f"- {fact}" for i, fact in enumerate(facts, 1))


_ITEM_NOUNS = {"tips": "tip", "reasons": "reason", "ideas": "idea", "steps": "step", "examples": "example",
               "facts": "fact", "ways": "way", "items": "item"}


def _placeholders(shape: PromptShape) -> str:
    """The list a prompt asked for ("three tips for X"), each item saying a real one would stand there."""
    match = re.search(r"\b(tips|reasons|ideas|steps|examples|facts|ways|items)\b", shape.text.lower())
    noun = _ITEM_NOUNS[match.group(1)] if match else "point"
    count = shape.bullets or 3
    about = subject_of(shape.text)
    topic = f" about {about}" if about else ""
    forms = ["{N} {i} of {n}: a real {noun}{topic} would stand here.",
             "{N} {i} of {n}: placeholder text from the offline gateway.",
             "{N} {i} of {n}: with an API key, a real model writes this one."]
    return "\n".join("- " + forms[min(i - 1, 1) if i < count or count == 1 else 2].format(
        N=noun.capitalize(), i=i, n=count, noun=noun, topic=topic) for i in range(1, count + 1))


def _would(point: str) -> str:
    return "A real answer would " + point[0].lower() + point[1:]


def _sentences(shape: PromptShape, rng: random.Random, count: int) -> str:
    subject = subject_of(shape.text)
    if count == 1:
        if subject:
            return rng.choice(_ABOUT_SENTENCES).format(s=subject)
        return rng.choice(_ONE_SENTENCE).format(q=shape.quoted)
    parts = [rng.choice(_OPENINGS), rng.choice(_RESTATES).format(q=shape.quoted.rstrip(".")) + "."]
    parts += [_would(point) for point in _COVER[prompt_kind(shape)]]
    return " ".join(parts[:count])


def _full(shape: PromptShape, rng: random.Random, *, code: bool, table: bool) -> str:
    kind = prompt_kind(shape)
    blocks = [rng.choice(_HEADINGS), rng.choice(_OPENINGS) + " " + rng.choice(_QUOTE_INTROS), "> " + shape.quoted]
    points = _COVER[kind]
    blocks += [rng.choice(_COVER_HEADINGS), _bullets(rng, min(len(points), rng.randint(3, 4)), kind == "how_to", kind)]
    if table:
        blocks += ["### A table, for layout", _table(shape, rng)]
    if code:
        language = shape.language or "python"
        blocks += [f"### {_DISPLAY.get(language, language.capitalize())} code, for layout", _code(language, shape.text)]
    blocks.append(rng.choice(_CLOSINGS))
    return "\n\n".join(blocks)


def image_answer(prompt: str, rng: random.Random) -> str:
    """What follows an image's size and colours: what a real vision model would add, by the prompt."""
    shape = read_prompt(prompt)
    return "\n\n".join([f"A real vision model, asked “{shape.quoted}”, would:",
                         _bullets(rng, 3, False, "image"), rng.choice(_CLOSINGS)])


def answer(prompt: str, rng: random.Random, max_tokens: int | None = None) -> str:
    """The synthetic reply to ``prompt``: the fullest form that fits ``max_tokens`` (the shortest otherwise).

    A code block only when the prompt asks for code; the points say what a real answer to this kind of
    prompt would do (a yes-or-no question, an explanation, a plan...), so answers differ with the prompt."""
    shape = read_prompt(prompt)
    if shape.greeting:
        return rng.choice(["Hello! I'm the offline gateway's synthetic model; ask me anything to see how an "
                           "answer renders.", "Hi! This is the offline gateway. Its synthetic model replies with "
                           "placeholder text, so you can try the API without a key."])
    if shape.sentences:
        return _sentences(shape, rng, shape.sentences)
    if shape.bullets and not shape.wants_code and not shape.table:
        return rng.choice(_OPENINGS) + "\n\n" + _placeholders(shape)
    forms = [_full(shape, rng, code=shape.wants_code, table=shape.table),
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
    code = (f"The prompt names {shape.language}, so the code block will be {shape.language}." if shape.language
            else "The prompt asks for code without naming a language, so the code block will be Python."
            if shape.wants_code else "The prompt does not ask for code, so the reply has no code block.")
    steps = [step.format(q=shape.quoted, form=form, code=code) for step in _TRACE]
    count = EFFORT_STEPS.get(effort, 5)
    picked = sorted(rng.sample(range(2, len(steps) - 1), min(count - 2, len(steps) - 3))) if count > 2 else []
    middle = [steps[i] for i in picked]  # in plan order, so the trace reads as one line of thought
    chosen = [steps[0], steps[1]] + middle + ([steps[-1]] if count >= 5 else [])
    return "\n\n".join(chosen)
