"""What a prompt asks for, as far as the synthetic model can tell without understanding it.

Only the *shape* of the request is read (one sentence? three bullet points? a
table? code in which language?), never its meaning: the offline model does not
pretend to know answers, it shows how a well-formed answer renders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBERS = {"a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(\d{1,2}|a|an|one|single|two|three|four|five|six|seven|eight|nine|ten)"
#: Language words in a prompt → the Markdown fence name of a code block.
LANGUAGES = {"python": "python", "javascript": "javascript", "js": "javascript", "node": "javascript",
             "typescript": "typescript", "ts": "typescript", "sql": "sql", "bash": "bash", "shell": "bash",
             "rust": "rust", "go": "go", "golang": "go", "java": "java", "c#": "csharp", "csharp": "csharp",
             "ruby": "ruby", "html": "html", "css": "css", "r": "r", "julia": "julia", "c++": "cpp", "cpp": "cpp"}
_CODE_WORDS = r"\b(code|function|script|snippet|program|class|method|implement|regex|query|algorithm)\b"


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word]


@dataclass(frozen=True)
class PromptShape:
    """The form a prompt asks its answer to take."""

    text: str
    sentences: int | None = None   # "in one sentence" → 1
    bullets: int | None = None     # "three bullet points" → 3
    table: bool = False
    language: str | None = None    # a programming language named in the prompt
    wants_code: bool = False
    greeting: bool = False

    @property
    def quoted(self) -> str:
        """The question as one line of at most ~110 characters, for restating it."""
        line = " ".join(self.text.split())
        if len(line) > 110:
            line = line[:107].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return line or "(an empty message)"


def read_prompt(text: str) -> PromptShape:
    low = " ".join(text.lower().split())
    sentences = None
    match = re.search(rf"\b(?:in|with|using|as|into)?\s*{_COUNT}\s+(?:short\s+|brief\s+|simple\s+)?sentences?\b", low)
    if match:
        sentences = min(_count(match.group(1)), 10)
    elif re.search(r"\b(one[- ]liner|in a line|one line|tl;?dr|in a word|one word|yes or no)\b", low) or \
            re.search(r"\b(just|only) (the|a|one) (number|answer|word|name|value|result)\b", low):
        sentences = 1
    elif re.search(r"\b(briefly|brief answer|short answer|keep it short)\b", low):
        sentences = 2
    bullets = None
    match = re.search(rf"\b{_COUNT}\s+(?:short\s+|key\s+|main\s+)?(bullet points?|bullets|points|items|tips|"
                      r"reasons|ideas|steps|examples|facts|ways)\b", low)
    if match:
        bullets = max(1, min(_count(match.group(1)), 12))
    elif re.search(r"\b(bullet points?|bulleted list|as a list|in a list)\b", low):
        bullets = 3
    language = None
    for token in re.findall(r"[a-z+#]+", low):
        if token in LANGUAGES and (token != "r" or re.search(r"\bin r\b|\br (code|script|function)\b", low)) \
                and (token not in ("go", "node", "ts", "js") or re.search(_CODE_WORDS, low) or token in ("js", "ts")):
            language = LANGUAGES[token]
            break
    table = bool(re.search(r"\b(table|tabular|compare|comparison|versus|vs\.?)\b", low))
    greeting = bool(re.fullmatch(r"(hi|hello|hey|hallo|good (morning|afternoon|evening))\b[\s!.,?\w]{0,30}", low))
    return PromptShape(text=text, sentences=sentences, bullets=bullets, table=table, language=language,
                       wants_code=bool(language) or bool(re.search(_CODE_WORDS, low)), greeting=greeting)


def comparison_columns(text: str) -> list[str] | None:
    """The two things a "compare A vs B" prompt names, if it names them plainly."""
    match = re.search(r"\b([A-Z][\w+#.\-]*|[a-z][\w+#.\-]*)\s+(?:vs\.?|versus|and|or|with)\s+([\w+#.\-]+)", text)
    skip = {"compare", "between", "of", "the", "a", "an", "me", "in", "table"}
    if match and match.group(1).lower() not in skip and match.group(2).lower() not in skip:
        return [match.group(1), match.group(2).rstrip(".?!,")]
    return None
