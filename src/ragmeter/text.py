"""Small text utilities shared by metrics."""

from __future__ import annotations

import re

_ABBREVIATIONS = {"dr", "mr", "mrs", "ms", "prof", "st", "vs", "etc", "e.g", "i.e", "no", "fig", "approx",
                  "inc", "ltd", "jr", "sr", "u.s", "u.k", "sra", "dra", "ee.uu"}
_BOUNDARY = re.compile(r"(?<=[.!?。！？])[\"')\]]*\s+(?=[\"'(\[¿¡]?[A-ZÁÉÍÓÚÑÜ0-9])")


def split_sentences(text: str) -> list[str]:
    """Split on sentence-final punctuation followed by a capital or digit, not after
    common abbreviations; decimals and numbers like 8.849 or 1,000.5 stay whole."""
    text = " ".join(text.split())
    if not text:
        return []
    pieces, start = [], 0
    for match in _BOUNDARY.finditer(text):
        candidate = text[start:match.start()].strip()
        last_word = candidate.rsplit(" ", 1)[-1].rstrip(".!?").lower()
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]
