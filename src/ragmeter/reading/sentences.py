"""Sentences: the splitter every floor uses (answers, contexts, claims, prompts' examples)."""

from __future__ import annotations

import re

from ragmeter.reading.languages import abbreviations

_SENTENCE_END = re.compile(r"[.!?。！？]+(?:\s|$)")
#: final punctuation, closers, space, then a letter or digit (its case is read in starts_sentence)
_BOUNDARY = re.compile(r"(?:(?<=[.!?。！？])[\"')\]]*\s+|(?<=[。！？]))(?=[\"'(\[¿¡]?[^\W_])")


def starts_sentence(char: str) -> bool:
    """A letter or digit a sentence can start with, in any script: a digit, a capital (A, À,
    Ç, Ö, Σ, Д), or a letter of a script without case (中, ع, क); never a lowercase letter."""
    return char.isdigit() or (char.isalpha() and not char.islower())


def split_sentences(text: str) -> list[str]:
    """Split on sentence-final punctuation followed by a sentence's first letter or digit in any
    script (starts_sentence: a Russian paragraph is three sentences, not one), not after an
    abbreviation of any covered language (reading/languages.py: an English answer quotes
    "EE.UU." too) or a single letter; decimals and numbers like 8.849 or 1,000.5 stay whole."""
    text = " ".join(text.split())
    if not text:
        return []
    known = abbreviations()
    pieces, start = [], 0
    for match in _BOUNDARY.finditer(text):
        # the lookahead holds the letter or digit within its first two characters
        if not starts_sentence(next(c for c in text[match.end():match.end() + 2] if c.isalnum())):
            continue
        candidate = text[start:match.start()].strip()
        last_word = candidate.rsplit(" ", 1)[-1].rstrip(".!?").lower()
        if last_word in known or (len(last_word) == 1 and last_word.isalpha()):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def sentence_ends(text: str) -> int:
    """How many sentence ends `text` holds (a run of final punctuation before a space or the
    end): a bound on the claims a judge may write for it."""
    return len(_SENTENCE_END.findall(text))
