"""Rule-based edits that turn a sentence a context supports into one it does not.

No model builds a check case (CheckList's rule): a negation flips the sentence's polarity
(English and Spanish), and a swap puts a number or a name from another row in place of the
sentence's own. Each returns None where its rules do not apply, so a case is made only when
the edit is sure to change what the sentence claims.
"""

from __future__ import annotations

import random
import re

from ragmeter.reading.languages import vocabulary
from ragmeter.reading.shapes import NUMBER as _NUMBER

# A capitalised word (or run of them) that does not open the sentence: a name, a product, a place.
_ENTITY = re.compile(r"(?<=[\s(\"'])(?:[A-ZÁÉÍÓÚÑ][\w-]*[a-záéíóúñ0-9][\w-]*|[A-Z]{2,}[\w-]*)"
                     r"(?:\s+(?:[A-ZÁÉÍÓÚÑ][\w-]*))*")


def negate(sentence: str, language: str = "english") -> str | None:
    """The sentence with its polarity flipped by the language's rule (reading/negation.py),
    or None where the rule does not apply or the language has none."""
    found = vocabulary(language)
    rule = found.samples.negate if found else None
    return rule(sentence) if rule else None


def numbers(text: str) -> list[str]:
    return [m.group() for m in _NUMBER.finditer(text)]


def entities(text: str) -> list[str]:
    return [m.group() for m in _ENTITY.finditer(text) if len(m.group()) > 1]


def swap_fact(sentence: str, context: str, pool_numbers: list[str], pool_entities: list[str],
              rng: random.Random) -> tuple[str, str, str] | None:
    """The sentence with its first number (else its first name) replaced by one from the
    pool that the context never mentions: (new sentence, old, new), or None."""
    for pattern, pool in ((_NUMBER, pool_numbers), (_ENTITY, pool_entities)):
        match = next((m for m in pattern.finditer(sentence) if len(m.group()) > 1 or pattern is _NUMBER), None)
        if match is None:
            continue
        choices = sorted({p for p in pool if p != match.group() and p not in context})
        if not choices:
            continue
        new = rng.choice(choices)
        return sentence[:match.start()] + new + sentence[match.end():], match.group(), new
    return None


def changed_words(before: str, after: str) -> str:
    """What an edit changed, in words a person reads at a glance: '"is" -> "is not"' (an
    inserted word is shown with the word before it), several changes joined by "; "."""
    import difflib

    old, new = before.split(), after.split()
    parts = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        lead = old[i1 - 1:i1] if i1 > 0 and tag != "replace" else []
        parts.append(f'"{" ".join(lead + old[i1:i2])}" -> "{" ".join(lead + new[j1:j2])}"')
    return "; ".join(parts)
