"""The structured-output type every client asks for."""

from __future__ import annotations

from pydantic import BaseModel


class City(BaseModel):
    """A city and its population."""

    name: str
    population: int
