"""A small shipped list of real places, so a synthetic JSON answer's values fit together.

A city's record names the country it is in and a population of the right size
(rounded figures for the city proper, for plausibility, not for reference); a
country's record names its capital. :func:`record_for` picks one record for an
object whose schema or prompt says what it describes.
"""

from __future__ import annotations

import random
import re

#: (city, country, population of the city proper, rounded, latitude, longitude)
CITIES = [
    ("Tokyo", "Japan", 14_000_000, 35.68, 139.69), ("Delhi", "India", 16_800_000, 28.61, 77.21),
    ("São Paulo", "Brazil", 11_400_000, -23.55, -46.63), ("Mexico City", "Mexico", 9_200_000, 19.43, -99.13),
    ("Cairo", "Egypt", 10_000_000, 30.04, 31.24), ("Lagos", "Nigeria", 15_400_000, 6.52, 3.38),
    ("Istanbul", "Turkey", 15_600_000, 41.01, 28.98), ("Paris", "France", 2_100_000, 48.86, 2.35),
    ("London", "United Kingdom", 8_900_000, 51.51, -0.13), ("Berlin", "Germany", 3_700_000, 52.52, 13.40),
    ("Madrid", "Spain", 3_300_000, 40.42, -3.70), ("Rome", "Italy", 2_800_000, 41.90, 12.50),
    ("Lisbon", "Portugal", 545_000, 38.72, -9.14), ("Porto", "Portugal", 232_000, 41.15, -8.61),
    ("Oslo", "Norway", 700_000, 59.91, 10.75), ("Toronto", "Canada", 2_800_000, 43.65, -79.38),
    ("Nairobi", "Kenya", 4_400_000, -1.29, 36.82), ("Santiago", "Chile", 6_300_000, -33.45, -70.67),
    ("Osaka", "Japan", 2_700_000, 34.69, 135.50), ("Lyon", "France", 520_000, 45.76, 4.84),
    ("Sydney", "Australia", 5_300_000, -33.87, 151.21), ("Seoul", "South Korea", 9_700_000, 37.57, 126.98),
    ("Buenos Aires", "Argentina", 3_100_000, -34.60, -58.38), ("New York", "United States", 8_300_000, 40.71, -74.01),
    ("Chicago", "United States", 2_700_000, 41.88, -87.63), ("Mumbai", "India", 12_400_000, 19.08, 72.88),
    ("Jakarta", "Indonesia", 10_600_000, -6.21, 106.85), ("Vienna", "Austria", 2_000_000, 48.21, 16.37),
    ("Amsterdam", "Netherlands", 920_000, 52.37, 4.90), ("Stockholm", "Sweden", 980_000, 59.33, 18.07),
    ("Reykjavik", "Iceland", 140_000, 64.15, -21.94), ("Edinburgh", "United Kingdom", 530_000, 55.95, -3.19),
    ("Kyoto", "Japan", 1_460_000, 35.01, 135.77), ("Cape Town", "South Africa", 4_700_000, -33.92, 18.42),
]
#: (country, capital, population, rounded, continent, currency, language)
COUNTRIES = [
    ("France", "Paris", 68_000_000, "Europe", "EUR", "French"),
    ("Japan", "Tokyo", 124_000_000, "Asia", "JPY", "Japanese"),
    ("Brazil", "Brasília", 203_000_000, "South America", "BRL", "Portuguese"),
    ("Canada", "Ottawa", 40_000_000, "North America", "CAD", "English"),
    ("Kenya", "Nairobi", 55_000_000, "Africa", "KES", "Swahili"),
    ("Norway", "Oslo", 5_500_000, "Europe", "NOK", "Norwegian"),
    ("India", "New Delhi", 1_430_000_000, "Asia", "INR", "Hindi"),
    ("Mexico", "Mexico City", 129_000_000, "North America", "MXN", "Spanish"),
    ("Portugal", "Lisbon", 10_400_000, "Europe", "EUR", "Portuguese"),
    ("Chile", "Santiago", 19_600_000, "South America", "CLP", "Spanish"),
    ("Germany", "Berlin", 84_000_000, "Europe", "EUR", "German"),
    ("Italy", "Rome", 59_000_000, "Europe", "EUR", "Italian"),
    ("Spain", "Madrid", 48_000_000, "Europe", "EUR", "Spanish"),
    ("Egypt", "Cairo", 105_000_000, "Africa", "EGP", "Arabic"),
    ("Australia", "Canberra", 26_000_000, "Oceania", "AUD", "English"),
    ("Iceland", "Reykjavik", 390_000, "Europe", "ISK", "Icelandic"),
    ("South Korea", "Seoul", 52_000_000, "Asia", "KRW", "Korean"),
    ("Argentina", "Buenos Aires", 46_000_000, "South America", "ARS", "Spanish"),
]
_COUNTRY = {row[0]: row for row in COUNTRIES}
_KINDS = {"city": r"cit(y|ies)|town|capital|metropolis|destination", "country": r"countr(y|ies)|nations?"}


def kind_of(*hints: str) -> str | None:
    """``city`` or ``country`` when a hint (schema title, property name, the prompt) says so; first hint wins."""
    for hint in hints:
        low = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", hint or "").lower().replace("_", " ")
        for kind, pattern in _KINDS.items():
            if re.search(rf"\b({pattern})\b", low):
                return kind
    return None


def _city_record(rng: random.Random, named: list[str], large: bool) -> dict[str, object]:
    rows = [row for row in CITIES if row[0] in named] or \
           [row for row in CITIES if row[1] in named] or \
           [row for row in CITIES if not large or row[2] >= 2_000_000]
    city, country, population, lat, lon = rng.choice(rows)
    record: dict[str, object] = {"name": city, "city": city, "country": country, "population": population,
                                 "latitude": lat, "lat": lat, "longitude": lon, "lon": lon, "lng": lon}
    if country in _COUNTRY:
        _, _, _, continent, currency, language = _COUNTRY[country]
        record.update(continent=continent, currency=currency, language=language)
    return record


def _country_record(rng: random.Random, named: list[str]) -> dict[str, object]:
    country, capital, population, continent, currency, language = rng.choice(
        [row for row in COUNTRIES if row[0] in named] or COUNTRIES)
    return {"name": country, "country": country, "capital": capital, "city": capital, "population": population,
            "continent": continent, "currency": currency, "language": language}


def place_record(rng: random.Random, named: list[str]) -> dict[str, object]:
    """A city and its country, for an object that holds both without saying it is a place."""
    record = _city_record(rng, named, large=False)
    record.pop("name")
    record.pop("population")
    return record


def record_for(kind: str, rng: random.Random, prompt: str, named: list[str]) -> dict[str, object]:
    """The values of one real place of ``kind``; fields named like its keys take them."""
    if kind == "country":
        return _country_record(rng, named)
    return _city_record(rng, named, large=bool(re.search(r"\b(large|big|huge|major|busy)\b", prompt, re.I)))
