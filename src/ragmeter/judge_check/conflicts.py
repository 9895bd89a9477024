"""Checks of evidence that disagrees (issue 51): the answer copies a context's sentence, and
a second chunk, made from the same document, contradicts it: the sentence with one literal
detail changed (`conflicting_detail`) or negated (`conflicting_negated`). Whatever the
score, the metric should flag the row (`contexts_disagree`, reading/conflicts.py):
a reader wants to know the retrieved chunks say two things. Made at the smallest prompt
size, from the rows the answer-side checks use.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from ragmeter.judge_check.copies import change_detail, shuffled
from ragmeter.judge_check.perturb import negate
from ragmeter.reading.literals import literals

CONFLICT_DESCRIPTIONS = {
    "conflicting_detail": "a copied sentence, and a second chunk stating it with one number, name or flag changed",
    "conflicting_negated": "a copied sentence, and a second chunk stating it negated",
}


def conflicts(sentences: list[str], contexts: list[str], pool: list[str], language: str,
              rng: random.Random) -> Iterator[tuple[str, str, list[str], str]]:
    """(check, answer, contexts with the contradicting chunk added, what it says)."""
    for sentence in shuffled([s for s in sentences if literals(s)], rng)[:3]:
        changed = change_detail(sentence, contexts, pool, rng)
        if changed is not None:
            yield ("conflicting_detail", sentence, [*contexts, changed[0]],
                   f"second chunk: {changed[1]} -> {changed[2]}")
            break
    for sentence in shuffled(sentences, rng):
        negated = negate(sentence, language)
        if negated:
            yield "conflicting_negated", sentence, [*contexts, negated], f"second chunk: {negated}"
            return
