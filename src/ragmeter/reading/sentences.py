"""Sentences: the splitter every floor uses (answers, contexts, claims, prompts' examples)."""

from __future__ import annotations

import re

from ragmeter.reading.languages import abbreviations

_SENTENCE_END = re.compile(r"[.!?。！？]+(?:\s|$)")
_BOUNDARY = re.compile(r"(?<=[.!?。！？])[\"')\]]*\s+(?=[\"'(\[¿¡]?[A-ZÁÉÍÓÚÑÜ0-9])")


def split_sentences(text: str) -> list[str]:
    """Split on sentence-final punctuation followed by a capital or digit, not after an
    abbreviation of any covered language (reading/languages.py: an English answer quotes
    "EE.UU." too) or a single letter; decimals and numbers like 8.849 or 1,000.5 stay whole."""
    text = " ".join(text.split())
    if not text:
        return []
    known = abbreviations()
    pieces, start = [], 0
    for match in _BOUNDARY.finditer(text):
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
