"""The sentences of a context that read as claims: what judge-check copies, negates and
swaps. Markup lines (headings, tables, code, HTML) are left out; list markers are dropped."""

from __future__ import annotations

import re

from ragmeter.reading.sentences import split_sentences

#: claim-like sentences: long enough to assert something, short enough to be one claim
MIN_WORDS, MAX_WORDS = 6, 60
_MARKUP = re.compile(r"^\s*(#|\||```|<|!\[|\[\^)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
#: a whole sentence: it opens as sentences do and ends with its stop (a chunk's cut-off ends are not)
_WHOLE = re.compile(r"^[\"'`(¿¡*]?[A-Z0-9ÁÉÍÓÚÑ`].*[.!?][\"')*]?$", re.S)


def claim_sentences(text: str) -> list[str]:
    """The context's whole sentences that read as claims: markup lines (headings, tables,
    code, HTML) left out, list markers dropped, 6-60 words, mostly letters, opening with a
    capital (or digit) and ending with a stop (a chunk cut mid-sentence gives neither)."""
    found = []
    for line in re.split(r"\n\s*\n|\n(?=\s*(?:[-*+#|]|\d+[.)])\s)", text):
        if _MARKUP.match(line) or "```" in line:
            continue
        for sentence in split_sentences(_BULLET.sub("", line)):
            words = sentence.split()
            if MIN_WORDS <= len(words) <= MAX_WORDS and _WHOLE.match(sentence) and \
                    sum(c.isalpha() for c in sentence) > len(sentence) / 2:
                found.append(sentence)
    return found
