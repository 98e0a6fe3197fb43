"""Does a value satisfy a sub-schema? ``jsonschema``, with the whole request schema as the ``$ref`` root.

Used to make ``oneOf`` answers match exactly one option and ``not`` answers miss their sub-schema.
Formats are checked as the tests and strict clients check them (``FORMAT_CHECKER`` of the schema's
draft, 2020-12 unless ``$schema`` says otherwise). A sub-schema jsonschema cannot use (a remote
``$ref``, a pattern Python cannot compile, endless recursion) counts as matched: the writer then
tries another value, or reports the options as overlapping.
"""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from referencing.exceptions import Unresolvable

__all__ = ["SchemaMatcher"]


class SchemaMatcher:
    """``matches(value, sub_schema)`` for the sub-schemas of one request's schema (``root``)."""

    def __init__(self, root: Any) -> None:
        kind = validator_for(root, default=Draft202012Validator)
        self._root = kind(root, format_checker=kind.FORMAT_CHECKER)
        self._validators: dict[int, tuple[Any, Any]] = {}  # id(sub-schema) -> (it, its validator): kept alive

    def matches(self, value: Any, schema: Any) -> bool:
        if schema is True or schema is False:
            return schema
        kept = self._validators.get(id(schema))
        if kept is None or kept[0] is not schema:
            kept = self._validators[id(schema)] = (schema, self._root.evolve(schema=schema))
        try:
            return bool(kept[1].is_valid(value))
        except (Unresolvable, SchemaError, re.error, RecursionError, OverflowError):
            return True
