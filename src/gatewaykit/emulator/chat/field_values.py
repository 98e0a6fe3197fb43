"""Plausible values for a field, judged by its name: a ``country`` is a country, an ``age`` an age.

Used when a schema leaves the value open; constraints (``format``, ``pattern``,
bounds, lengths) are applied afterwards by :mod:`.schema_values`.
"""

from __future__ import annotations

import random
import re
import uuid
from dataclasses import dataclass

COUNTRIES = ["France", "Japan", "Brazil", "Canada", "Kenya", "Norway", "India", "Mexico", "Portugal", "Chile"]
CITIES = ["Paris", "Tokyo", "Nairobi", "Lisbon", "Toronto", "Osaka", "Lyon", "Oslo", "Santiago", "Porto"]
FIRST_NAMES = ["Ada", "Grace", "Alan", "Katherine", "Linus", "Margaret", "Tim", "Barbara", "Dennis", "Frances"]
LAST_NAMES = ["Lovelace", "Hopper", "Turing", "Johnson", "Torvalds", "Hamilton", "Berners-Lee", "Liskov"]
COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "black", "white", "teal", "grey"]
COMPANIES = ["Acme Ltd", "Globex", "Initech", "Umbrella Works", "Stark Industries"]
STREETS = ["12 Rue de Rivoli", "221B Baker Street", "1600 Amphitheatre Parkway", "10 Downing Street"]
WORDS = ["sample", "example", "placeholder", "offline", "synthetic", "draft", "demo"]

@dataclass(frozen=True)
class NumberSense:
    """What a number field's name says about its values."""

    #: Where a value is drawn (then moved or cut to lie within the schema's minimum/maximum).
    typical: tuple[float, float]
    #: What a number the user wrote may be, to be taken for this field ("1 large city" is no population).
    plausible: tuple[float, float]
    #: Decimal places of a drawn ``number``; 0: a whole number even where the schema allows fractions.
    decimals: int = 0


#: How many of something: a number the prompt gives for a thing it counts ("3 cities") fits here.
COUNT = NumberSense((1, 12), (0, 1_000_000))
#: (name pattern, sense) for numbers that have a natural scale; the first pattern matching a word of the
#: field's name wins (``total_count`` is a count, ``total_price`` a price).
NUMBER_SENSES = [
    (r"(population|inhabitants|residents)", NumberSense((20_000, 3_000_000), (50, 10_000_000_000))),
    (r"(year|founded|established|built)", NumberSense((1950, 2026), (1000, 2100))),
    (r"age", NumberSense((18, 90), (0, 125))),
    (r"month", NumberSense((1, 12), (1, 12))), (r"day", NumberSense((1, 28), (1, 31))),
    (r"hour", NumberSense((0, 23), (0, 23))),
    (r"(duration|runtime|minutes|mins)", NumberSense((5, 90), (0, 100_000))),
    (r"(minute|second)", NumberSense((0, 59), (0, 59))),
    (r"(rating|stars)", NumberSense((1, 5), (0, 10), 1)),
    (r"(score|grade|mark)", NumberSense((50, 98), (0, 100), 1)),
    (r"(percent|percentage|pct)", NumberSense((5, 95), (0, 100), 1)),
    (r"(probability|confidence|likelihood|certainty|ratio|fraction|share)", NumberSense((0.05, 0.95), (0, 1), 2)),
    (r"rate", NumberSense((1, 15), (0, 100), 1)),  # unemployment, interest, growth rates: in percent
    (r"(salary|income|wage)", NumberSense((30_000, 150_000), (0, 100_000_000))),
    (r"(revenue|gdp|market_cap|net_worth|valuation|turnover)",
     NumberSense((10_000_000, 50_000_000_000), (0, 10**14))),
    (r"(quantity|count|number|num|qty|items|copies|units|size)", COUNT),
    (r"(price|amount|cost|total|fee|fare|subtotal|tax|discount|balance|budget)",
     NumberSense((5, 250), (0, 10**9), 2)),
    (r"(temperature|temp|celsius|fahrenheit)", NumberSense((-5, 35), (-90, 150), 1)),
    (r"(latitude|lat)", NumberSense((-60, 60), (-90, 90), 4)),
    (r"(longitude|lon|lng)", NumberSense((-150, 150), (-180, 180), 4)),
    (r"(elevation|altitude)", NumberSense((0, 3000), (-500, 9000))),
    (r"height", NumberSense((150, 200), (0, 1000))), (r"weight", NumberSense((50, 100), (0, 1000), 1)),
    (r"(area|km2|surface)", NumberSense((50, 2000), (0, 20_000_000), 1)),
    (r"density", NumberSense((100, 20_000), (0, 100_000))),
    (r"(distance|length|width|depth|radius|km|miles)", NumberSense((1, 500), (0, 50_000), 1)),
    (r"(speed|velocity)", NumberSense((10, 120), (0, 300_000), 1)),
    (r"(calories|kcal)", NumberSense((50, 900), (0, 10_000))),
    (r"(votes|likes|views|followers|downloads|visitors|reviews|subscribers)",
     NumberSense((10, 50_000), (0, 10**10))),
    (r"(page|index|rank|position|floor|chapter)", NumberSense((1, 20), (0, 100_000))),
    (r"id", NumberSense((100, 99_999), (0, 10**12))),
]


def normal_name(name: str) -> str:
    """``populationCount`` → ``population_count``: the form field names are matched in."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower().strip("_")


def number_sense(name: str) -> NumberSense | None:
    """What the field name ``name`` says about its numbers, or None (a name like ``value`` says nothing)."""
    low = normal_name(name)
    for pattern, sense in NUMBER_SENSES:
        if re.search(rf"(^|_){pattern}(s)?($|_)", low):
            return sense
    return None


#: Words after a number that measure rather than count ("100 dollars", "5 km"): such a number may go to any
#: field it is plausible for.
_UNITS = {"dollars", "euros", "pounds", "yen", "usd", "eur", "gbp", "cents", "degrees", "km", "miles", "meters",
          "metres", "kg", "kilograms", "grams", "lbs", "percent", "minutes", "hours", "seconds", "days", "weeks",
          "months", "years", "mph", "kmh", "celsius", "fahrenheit", "feet", "inches", "cm", "mm", "liters", "litres"}
_COUNTED = re.compile(r"\s+(?:[a-z]+\s+)?([a-z]{2,})\b", re.I)


def counted_thing(prompt: str, end: int, value: float) -> str | None:
    """What the number ending at ``prompt[end]`` counts ("3 large cities" → ``cities``, "1 city" → ``city``),
    or None: a measure ("612.5 euros"), a fraction, or no noun after it."""
    found = _COUNTED.match(prompt, end)
    if found is None or not value.is_integer():
        return None
    word = found.group(1).lower()
    if word in _UNITS:
        return None
    plural = word.endswith("s") and not word.endswith("ss") or word in ("people", "children", "men", "women")
    return word if plural or value == 1 else None


def takes_count(name: str, thing: str) -> bool:
    """Whether a field called ``name`` may take the number of ``thing`` from the prompt: a count, a field
    named after the thing (``nights`` for "3 nights"), or a field whose name says nothing about its scale."""
    sense = number_sense(name)
    stem = thing[:-3] if thing.endswith("ies") else thing.rstrip("s")
    return sense is None or sense is COUNT or stem[:4] in normal_name(name)


def number_range(name: str) -> tuple[float, float] | None:
    """Where a number field called ``name`` draws its values (:attr:`NumberSense.typical`), or None."""
    sense = number_sense(name)
    return None if sense is None else sense.typical


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
