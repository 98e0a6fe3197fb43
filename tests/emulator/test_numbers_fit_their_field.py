"""Offline JSON numbers make sense for their field's name, within the schema's bounds (issue 28, item 24).

Seen before: "Describe 1 large city" gave a real city with a population of 1 (the prompt's "1" was
taken for it), a list of cities held people's names, a year came back as 2008.17, a founding year as
42.06, and a population capped by ``maximum: 5000`` as -2,805,197.
"""

from __future__ import annotations

import json

import pytest

from gatewaykit.emulator.chat.world import CITIES

CITY = {"type": "object", "required": ["name", "country", "population"], "properties": {
    "name": {"type": "string"}, "country": {"type": "string"}, "population": {"type": "integer"}}}
REAL_CITIES = {(row[0], row[1]) for row in CITIES}

#: field name -> (lowest, highest, whole number?) that makes sense for it
SENSE = {
    "population": (50, 10**10, True), "founded": (1000, 2100, True), "year": (1000, 2100, True),
    "median_age": (0, 125, True), "age": (0, 125, True), "rating": (0, 10, False), "score": (0, 100, False),
    "percent": (0, 100, False), "confidence": (0, 1, False), "latitude": (-90, 90, False),
    "longitude": (-180, 180, False), "temperature_c": (-90, 150, False), "price": (0, 10**9, False),
    "count": (0, 10**6, True), "month": (1, 12, True), "elevation_m": (-500, 9000, True),
    "unemployment_rate": (0, 100, False), "area_km2": (0, 2 * 10**7, False),
}


def structured(http, prompt, schema, name, seed):
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "seed": seed, "messages": [{"role": "user", "content": prompt}],
        "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}})
    assert answer.status_code == 200, answer.text
    return json.loads(answer.json()["choices"][0]["message"]["content"])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("prompt", ["Describe 1 large city as JSON.", "Give me 2 big cities, one per answer."])
def test_a_count_in_the_prompt_is_no_population(http, prompt, seed):
    """'1 large city' asks for one city: its population is the real city's (millions), not 1."""
    city = structured(http, prompt, CITY, "city", seed)
    assert (city["name"], city["country"]) in REAL_CITIES
    assert city["population"] >= 1_000_000


@pytest.mark.parametrize("seed", range(4))
def test_a_list_of_cities_holds_real_cities(http, seed):
    """Each item of a ``cities`` array is a city (a real one, with its population), not a person."""
    schema = {"type": "object", "required": ["cities"], "properties": {
        "cities": {"type": "array", "minItems": 2, "maxItems": 3, "items": CITY}}}
    answer = structured(http, "List 3 large cities.", schema, "answer", seed)
    for city in answer["cities"]:
        assert (city["name"], city["country"]) in REAL_CITIES
        assert city["population"] >= 1_000_000


@pytest.mark.parametrize("seed", range(6))
def test_numbers_are_plausible_for_their_names(http, seed):
    """Every number field typed ``number`` gets a value that makes sense for its name: years and counts are
    whole, a confidence is a probability, a latitude a latitude."""
    schema = {"type": "object", "required": list(SENSE), "properties": {
        name: {"type": "number"} for name in SENSE}}
    facts = structured(http, "Describe a city with some facts.", schema, "facts", seed)
    for name, (lowest, highest, whole) in SENSE.items():
        value = facts[name]
        assert lowest <= value <= highest, (name, value)
        assert not whole or float(value).is_integer(), (name, value)


@pytest.mark.parametrize("seed", range(4))
def test_the_schema_bounds_win_and_stay_sensible(http, seed):
    """``maximum: 5000`` on a population gives a small town's population (never negative); a rating
    with ``maximum: 10`` stays within it; a year from 2000 to 2010 is one of those years."""
    schema = {"type": "object", "required": ["population", "rating", "year"], "properties": {
        "population": {"type": "integer", "maximum": 5000}, "rating": {"type": "number", "minimum": 0, "maximum": 10},
        "year": {"type": "integer", "minimum": 2000, "maximum": 2010}}}
    value = structured(http, "Describe a village.", schema, "village", seed)
    assert 0 < value["population"] <= 5000
    assert 0 <= value["rating"] <= 10 and 2000 <= value["year"] <= 2010


def test_a_number_that_fits_the_field_is_still_taken_from_the_prompt(http):
    """'aged 42' fills ``age`` with 42 and the same request always gives the same answer."""
    schema = {"type": "object", "required": ["name", "age"], "properties": {
        "name": {"type": "string"}, "age": {"type": "integer"}}}
    first = structured(http, "Describe a person aged 42.", schema, "person", 3)
    assert first["age"] == 42
    assert structured(http, "Describe a person aged 42.", schema, "person", 3) == first
