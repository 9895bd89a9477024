"""A row field from a span attribute the user names, for instrumentation that is not
OpenInference's or puts a field elsewhere: `user_input=app.question`,
`retrieved_contexts=app.chunks.*.text`, `reference=eval.expected`.

A name without `*` is one value: the root span's, else the first span's (in start order)
that has it. A name with one `*` collects every `…N…` attribute matching it, span by span
in start order and N by N, into a list. A trace without the attribute keeps the default
mapping's value (io/traces.py); a trace that holds any named attribute is read even without
OpenInference's span kind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ragmeter.errors import ConfigError

_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_attributes(items: list[str] | Mapping[str, str] | None, flag: str = "--attribute") -> dict[str, str]:
    """FIELD=ATTRIBUTE pairs (or a mapping), checked: a field name, an attribute, at most one `*`."""
    pairs = list(items.items()) if isinstance(items, Mapping) else [tuple(i.partition("=")[::2]) for i in items or []]
    mapping: dict[str, str] = {}
    for field, attribute in pairs:
        field, attribute = field.strip(), attribute.strip()
        if not _FIELD.match(field) or not attribute or attribute.count("*") > 1:
            raise ConfigError(f"{flag} {field}={attribute}: expected FIELD=ATTRIBUTE, e.g. user_input=app.question "
                              "or retrieved_contexts=app.chunks.*.text (at most one *)")
        if field in mapping:
            raise ConfigError(f"{flag} names {field} twice")
        mapping[field] = attribute
    return mapping


def holds_any(attributes: list[dict[str, object]], mapping: Mapping[str, str]) -> bool:
    """Does any span hold an attribute the mapping names?"""
    return any(attribute_pattern(name).match(key) for name in mapping.values() for span in attributes for key in span)


def mapped(row: dict[str, object], attributes: list[dict[str, object]],
           mapping: Mapping[str, str]) -> dict[str, object]:
    """The row with each mapped field taken from the spans' attributes (root span first, then
    the rest in start order), where a span has it."""
    for field, name in mapping.items():
        value = _collect(attributes, name) if "*" in name else next(
            (span[name] for span in attributes if span.get(name) is not None), None)
        if value is not None and value != []:
            row[field] = value
    return row


def _collect(attributes: list[dict[str, object]], name: str) -> list[Any]:
    pattern = attribute_pattern(name)
    found: list[Any] = []
    for span in attributes:
        matches = sorted((int(m.group(1)), value) for key, value in span.items() if (m := pattern.match(key)))
        found += [value for _, value in matches]
    return found


def attribute_pattern(name: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(name).replace(r"\*", r"(\d+)") + "$")
