"""Plausible values for a field, judged by its name: a ``country`` is a country, an ``age`` an age.

Used when a schema leaves the value open; constraints (``format``, ``pattern``,
bounds, lengths) are applied afterwards by :mod:`.schema_values`.
"""

from __future__ import annotations

import random
import re
import uuid

COUNTRIES = ["France", "Japan", "Brazil", "Canada", "Kenya", "Norway", "India", "Mexico", "Portugal", "Chile"]
CITIES = ["Paris", "Tokyo", "Nairobi", "Lisbon", "Toronto", "Osaka", "Lyon", "Oslo", "Santiago", "Porto"]
FIRST_NAMES = ["Ada", "Grace", "Alan", "Katherine", "Linus", "Margaret", "Tim", "Barbara", "Dennis", "Frances"]
LAST_NAMES = ["Lovelace", "Hopper", "Turing", "Johnson", "Torvalds", "Hamilton", "Berners-Lee", "Liskov"]
COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "black", "white", "teal", "grey"]
COMPANIES = ["Acme Ltd", "Globex", "Initech", "Umbrella Works", "Stark Industries"]
STREETS = ["12 Rue de Rivoli", "221B Baker Street", "1600 Amphitheatre Parkway", "10 Downing Street"]
WORDS = ["sample", "example", "placeholder", "offline", "synthetic", "draft", "demo"]

#: (name pattern, integer range) for numbers that have a natural scale.
NUMBER_RANGES = [
    (r"age", (18, 90)), (r"year", (1990, 2026)), (r"month", (1, 12)), (r"day", (1, 28)),
    (r"hour", (0, 23)), (r"minute|second", (0, 59)), (r"(rating|stars|score)", (1, 5)),
    (r"(percent|percentage|probability|confidence)", (0, 100)), (r"(price|amount|cost|total|salary)", (5, 250)),
    (r"(quantity|count|number|qty|size|items)", (1, 12)), (r"(temperature|temp)", (-5, 35)),
    (r"latitude|lat", (-60, 60)), (r"longitude|lon|lng", (-150, 150)), (r"(height)", (150, 200)),
    (r"(weight)", (50, 100)), (r"population", (20_000, 3_000_000)), (r"(page|index|rank|position)", (1, 20)), (r"(duration|minutes)", (5, 90)),
]


def normal_name(name: str) -> str:
    """``populationCount`` → ``population_count``: the form field names are matched in."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower().strip("_")


def number_range(name: str) -> tuple[int, int] | None:
    low = normal_name(name)
    for pattern, bounds in NUMBER_RANGES:
        if re.search(rf"(^|_){pattern}(s)?($|_)", low):
            return bounds
    return None


def string_for(name: str, fmt: str | None, rng: random.Random, prompt_names: list[str], prompt: str = "") -> str:
    """A plausible string for a field called ``name`` with JSON Schema ``format`` ``fmt``.

    Query-like fields (``query``, ``q``, ``search``, ``question``, ``prompt``) get the user's message itself.
    """
    low = normal_name(name)
    if fmt is None and low in ("query", "q", "search", "search_query", "question", "prompt", "input") and prompt:
        return " ".join(prompt.split())[:200]
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    if fmt == "date" or (fmt is None and re.search(r"(^|_)(date|birthday|dob|day)$", low)):
        return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if fmt == "date-time" or (fmt is None and re.search(r"(_at|timestamp|datetime|time)$", low)):
        return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
    if fmt == "time":
        return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
    if fmt == "uuid" or low in ("uuid", "guid"):
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if fmt in ("email", "idn-email") or "email" in low:
        return f"{first.lower()}.{last.lower().replace('-', '')}@example.com"
    if fmt in ("uri", "url", "iri", "uri-reference") or re.search(r"(url|uri|link|website|homepage)$", low):
        return f"https://example.com/{rng.choice(WORDS)}/{rng.randint(1, 99)}"
    if fmt in ("hostname", "idn-hostname") or low in ("host", "hostname", "domain"):
        return f"{rng.choice(WORDS)}.example.com"
    if fmt == "ipv4" or low in ("ip", "ipv4", "ip_address"):
        return f"192.0.2.{rng.randint(1, 254)}"
    if fmt == "ipv6":
        return f"2001:db8::{rng.randint(1, 9999):x}"
    if re.search(r"(^|_)country($|_)", low):
        known = [n for n in prompt_names if n in COUNTRIES]
        return known[0] if known else rng.choice(COUNTRIES)
    if re.search(r"(^|_)(city|town|location|place|destination|origin)($|_)", low):
        known = [n for n in prompt_names if n not in COUNTRIES]
        return known[0] if known else rng.choice(CITIES)
    if re.search(r"(first_?name|given_name)", low):
        return first
    if re.search(r"(last_?name|surname|family_name)", low):
        return last
    if re.search(r"(^|_)(name|full_name|author|person|owner|customer|user)$", low):
        return f"{first} {last}"
    if low in ("username", "handle", "login"):
        return f"{first.lower()}{rng.randint(1, 99)}"
    if re.search(r"(colou?r)", low):
        return rng.choice(COLOURS)
    if re.search(r"(company|organi[sz]ation|employer)", low):
        return rng.choice(COMPANIES)
    if re.search(r"(address|street)", low):
        return rng.choice(STREETS)
    if re.search(r"(phone|mobile|tel)", low):
        return f"+1 555 01{rng.randint(0, 99):02d}"
    if low in ("currency",):
        return rng.choice(["EUR", "USD", "JPY", "GBP"])
    if low in ("language", "lang", "locale"):
        return rng.choice(["English", "French", "Japanese"])
    if low in ("unit", "units"):
        return rng.choice(["celsius", "metric"])
    if low in ("status", "state"):
        return rng.choice(["active", "pending", "done"])
    if re.search(r"(^|_)(id|key|code|ref|sku)$", low):
        return f"{(low.rsplit('_', 1)[0] if '_' in low else 'item')}_{rng.randint(100, 999)}"
    if re.search(r"(answer|summary|description|explanation|reason|text|content|body|message|comment|note)", low):
        return "Synthetic value from the offline gateway (not a real answer)."
    if re.search(r"(title|headline|subject|label)", low):
        return "Offline example title"
    if re.search(r"(tag|keyword|category|topic|genre)", low):
        return rng.choice(WORDS)
    return rng.choice(WORDS) + " value"


def prompt_names(prompt: str) -> list[str]:
    """Capitalised words in the prompt that are not sentence starts (candidate places and names)."""
    return re.findall(r"(?<=[a-z,] )([A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})?)", prompt) + \
        [c for c in COUNTRIES + CITIES if re.match(rf"{c}\b", prompt)]
