"""Sentences: the splitter every floor uses (answers, contexts, claims, prompts' examples)."""

from __future__ import annotations

import re

from ragmeter.reading.languages import abbreviations

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
