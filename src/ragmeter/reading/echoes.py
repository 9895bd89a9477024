"""Text repeated from somewhere else, and units of an answer that state nothing a context could
support (issue 76 item 6).

A run of ECHO_WORDS words in a row shared with a source is a repeat (the baseline's reader
prompt echoed, rag/prompt.py). An answer states nothing, by structure, when every unit of it is
one of: a label or heading (reading/blocks.py: unit_states), an empty list item ("1.", "-"; an
answer "3." or "Answer:\n3." is a number, not an empty item: only a run of list numbers counting
up, "1.", "2.", "3.", numbers a list), a question (it asks; a context
supports no question: its closing mark, or Spanish's opening one), words that all lie in runs
repeated from the instructions the answer was written under, or only the names the prompt gave
its own parts and numbers ("Documento 2"). Such an answer scores 0, never unscored.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from ragmeter.reading.blocks import unit_states
from ragmeter.reading.words import tokens

#: words in a row a text shares with a source when it repeats it
ECHO_WORDS = 5
#: a list item's marker: a number and its closer, or a bullet
_BULLETS = frozenset("-*+•")


def folded(text: str) -> list[str]:
    """The words of `text`, case folded: how repeats are compared."""
    return [w.casefold() for w in tokens(text)]


def shingles(words: list[str]) -> set[tuple[str, ...]]:
    """Every run of ECHO_WORDS words in a row."""
    return {tuple(words[i:i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}


def repeated_only(text: str, runs: frozenset[tuple[str, ...]]) -> bool:
    """Whether every word of `text` lies in a run of ECHO_WORDS words shared with `runs`."""
    words = folded(text)
    covered = [False] * len(words)
    for i in range(len(words) - ECHO_WORDS + 1):
        if tuple(words[i:i + ECHO_WORDS]) in runs:
            covered[i:i + ECHO_WORDS] = [True] * ECHO_WORDS
    return bool(words) and all(covered)


def empty_item(unit: str) -> bool:
    """A list item with nothing after its marker: "1.", "2)", "-", "# 3."."""
    return _bullet(unit) or _item_number(unit) is not None


def _bullet(unit: str) -> bool:
    return unit.strip().lstrip("#").strip() in _BULLETS


def _item_number(unit: str) -> int | None:
    """The number of an empty numbered item ("2." or "# 2)" is 2); None for any other unit."""
    text = unit.strip().lstrip("#").strip()
    return int(text[:-1]) if len(text) >= 2 and text[-1] in ".)" and text[:-1].isdigit() else None


def _numbering(units: list[str]) -> set[str]:
    """The empty numbered items that number a list: two or more in a row counting up by one
    ("1.", "2.", "3."). One number after a label ("Answer:\n3.") is an answer, not a list."""
    numbered = [(u, n) for u in units if (n := _item_number(u)) is not None]
    return {u for i, (u, n) in enumerate(numbered)
            if any(abs(n - m) == 1 and abs(i - j) == 1 for j, (_, m) in enumerate(numbered))}


def is_question(unit: str) -> bool:
    """A unit that asks: its question mark (in the scripts that write one at the end), or an
    opening one (Spanish's "¿", there even where the question was cut before its end)."""
    text = unit.strip().lstrip("#-*+0123456789.) ")
    return text.endswith(("?", "\uff1f", "\u061f")) or text.startswith("\u00bf")


def names_only(unit: str, names: frozenset[str]) -> bool:
    """A unit of only the prompt's names for its own parts, and numbers: "Documento 2"."""
    words = [w for w in folded(unit) if not w.isdigit()]
    return bool(words) and set(words) <= names


@lru_cache(maxsize=8)
def _runs(instructions: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """The runs of words of the texts an answer was written under, read once (not once a row)."""
    return frozenset().union(*(shingles(folded(text)) for text in instructions))


def states_nothing(units: list[str], instructions: Iterable[str] = (), names: frozenset[str] = frozenset()) -> bool:
    """Whether no unit of an answer states something a context could support (module docstring);
    `instructions`: texts the answer was written under (a reader prompt's sentences); `names`:
    the words that prompt names its own parts with ("document")."""
    runs = _runs(tuple(instructions))
    numbering = _numbering(units)

    def states(unit: str) -> bool:
        return unit_states(unit) and not (empty_item(unit) and (unit in numbering or _bullet(unit))) and \
            not is_question(unit) and not (runs and repeated_only(unit, runs)) and not names_only(unit, names)

    return bool(units) and not any(states(u) for u in units)
