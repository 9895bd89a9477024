"""Checks that mirror what small and local generators write about real documents: a long
span copied from a context (code, markup and all), the same span with one literal detail
changed inside it (a URL, number, flag, name or identifier), and one copied line with a
detail changed, repeated. A judge that reads the copied majority and misses the changed
detail passes the second and third; real answers fail that way (issue 48).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import TypeVar

from ragmeter.reading.blocks import blocks
from ragmeter.reading.literals import literals

#: a copied span: consecutive blocks of the context up to this many characters, at least SPAN_MIN
SPAN_MAX, SPAN_MIN = 600, 120
#: a changed line is repeated this many times (weak generators loop)
REPEATS = 4
_NUMBER = re.compile(r"\d+")
T = TypeVar("T")


def copies(context: str, contexts: list[str], pool: list[str],
           rng: random.Random) -> Iterator[tuple[str, str, str]]:
    """(check, answer, what was changed) for the three checks: a long copied span, the same
    span with a detail changed to one of `pool` (other rows' literals) or altered, and a
    changed line of the context repeated."""
    span = copied_span(context, rng)
    if span is not None:
        yield "copied_span", span, ""
        changed = change_detail(span, contexts, pool, rng)
        if changed is not None:
            yield "copied_span_changed", changed[0], f"changed {changed[1]} -> {changed[2]}"
    lines = [b for b in blocks(context) if "\n" not in b and literals(b) and len(b.split()) >= 4]
    for line in shuffled(lines, rng)[:3]:
        changed = change_detail(line, contexts, pool, rng)
        if changed is not None:
            yield "repeated_line_changed", repeated_line(changed[0]), f"changed {changed[1]} -> {changed[2]}, repeated"
            return


def copied_span(context: str, rng: random.Random) -> str | None:
    """Consecutive blocks of `context` that hold a literal detail, SPAN_MIN-SPAN_MAX characters."""
    found = blocks(context)
    starts = [i for i, b in enumerate(found) if literals(b)]
    for start in shuffled(starts, rng):
        span: list[str] = []
        for block in found[max(0, start - 1):]:
            if span and len("\n\n".join([*span, block])) > SPAN_MAX:
                break
            span.append(block)
        text = "\n\n".join(span)
        if SPAN_MIN <= len(text) <= SPAN_MAX:
            return text
    return None


def change_detail(text: str, contexts: list[str], pool: list[str],
                  rng: random.Random) -> tuple[str, str, str] | None:
    """`text` with one of its literal details replaced by one no context holds: another row's
    literal of the same shape, else the detail altered (a digit changed, a word of a name
    swapped). (new text, old, new), or None."""
    everything = " ".join(contexts).lower()
    for old in shuffled([x for x in literals(text) if x in text], rng):
        new = _replacement(old, pool, everything, rng)
        if new is not None:
            return text.replace(old, new, 1), old, new
    return None


def repeated_line(line: str, times: int = REPEATS) -> str:
    return "\n".join([line] * times)


def _replacement(old: str, pool: list[str], everything: str, rng: random.Random) -> str | None:
    shape = _shape(old)
    others = sorted({p for p in pool if _shape(p) == shape and p.lower() not in everything and p != old})
    if others:
        return rng.choice(others)
    digits = list(_NUMBER.finditer(old))
    if digits:
        m = rng.choice(digits)
        bumped = old[:m.start()] + str(int(m.group()) + rng.randint(1, 9)) + old[m.end():]
        return bumped if bumped.lower() not in everything else None
    pieces = re.split(r"([-_./])", old)
    words = [i for i, p in enumerate(pieces) if p.isalpha() and len(p) > 2]
    if not words:
        return None
    i = rng.choice(words)
    pieces[i] = pieces[i][::-1] if pieces[i][::-1] != pieces[i] else pieces[i] + "x"
    altered = "".join(pieces)
    return altered if altered.lower() not in everything else None


def _shape(literal: str) -> str:
    """URL, flag, number or name: a replacement keeps the shape of what it replaces."""
    if literal.startswith(("http://", "https://", "www.")):
        return "url"
    if literal.startswith("-"):
        return "flag"
    if _NUMBER.fullmatch(literal.replace(".", "").replace(",", "")):
        return "number"
    return "name"


def shuffled(items: list[T], rng: random.Random) -> list[T]:
    """A seeded shuffle of a copy of `items` (every check's random choice goes through one)."""
    items = list(items)
    rng.shuffle(items)
    return items
