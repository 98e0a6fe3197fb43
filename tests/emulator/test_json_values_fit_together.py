"""Structured answers hold values that fit their field and each other: a city's name, its country, its size."""

from __future__ import annotations

import json

import pytest

from gatewaykit.emulator.chat.world import CITIES, COUNTRIES

CITY_SCHEMA = {"type": "object", "required": ["name", "country", "population"], "properties": {
    "name": {"type": "string"}, "country": {"type": "string"}, "population": {"type": "integer"}}}


def structured(http, prompt, schema, name, seed):
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "seed": seed, "messages": [{"role": "user", "content": prompt}],
        "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}})
    assert answer.status_code == 200, answer.text
    return json.loads(answer.json()["choices"][0]["message"]["content"])


@pytest.mark.parametrize("seed", range(5))
def test_a_large_city_is_a_real_large_city_in_its_country(http, seed):
    """'Describe a large city' names a real city of over a million people, in the country it is in."""
    city = structured(http, "Describe a large city as JSON.", CITY_SCHEMA, "city", seed)
    assert (city["name"], city["country"]) in {(row[0], row[1]) for row in CITIES}
    assert city["population"] >= 1_000_000


def test_a_country_has_its_own_capital(http):
    """A country object takes a real country and that country's capital."""
    schema = {"type": "object", "required": ["name", "capital"], "properties": {
        "name": {"type": "string"}, "capital": {"type": "string"}}}
    country = structured(http, "Describe a country.", schema, "country", 2)
    assert (country["name"], country["capital"]) in {(row[0], row[1]) for row in COUNTRIES}


def test_a_person_keeps_a_person_name_and_a_matching_city(http):
    """A person object is not turned into a place: its name is a person's, its city lies in its country."""
    schema = {"title": "Person", "type": "object", "required": ["name", "city", "country"], "properties": {
        "name": {"type": "string"}, "city": {"type": "string"}, "country": {"type": "string"}}}
    person = structured(http, "Describe someone who lives in a big city.", schema, "person", 1)
    assert " " in person["name"] and person["name"] not in {row[0] for row in CITIES}
    assert (person["city"], person["country"]) in {(row[0], row[1]) for row in CITIES}


def test_a_city_named_in_the_prompt_is_used(http):
    """'Lisbon' in the prompt gives Lisbon, in Portugal."""
    city = structured(http, "Describe the city of Lisbon as JSON.", CITY_SCHEMA, "city", 0)
    assert (city["name"], city["country"]) == ("Lisbon", "Portugal")
