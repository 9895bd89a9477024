"""Small text utilities every floor shares: sentences, content words, and text made safe to print."""

from __future__ import annotations

import re
from typing import Any

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


_WORD = re.compile(r"\w+", re.UNICODE)
#: control characters, and the bidirectional overrides and marks that reorder what a terminal shows
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def content_words(text: str) -> set[str]:
    """Lowercased words of three or more characters: what word-overlap measures compare."""
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def printable(value: Any) -> str:
    """Text from data or config, safe for rich and the terminal: control characters shown as
    escapes, markup escaped."""
    from rich.markup import escape

    return escape(plain(value))


def plain(value: Any) -> str:
    """Control characters shown as escapes, for print() (no rich markup to escape)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(value))


def duration(seconds: float) -> str:
    """A span of time as people read it on one line: 42s, 3m05s, 1h20m (progress, estimates)."""
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
