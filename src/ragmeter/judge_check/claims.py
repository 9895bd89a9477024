"""The sentences of a context that read as claims: what judge-check copies, negates and
swaps. Markup lines (headings, tables, code, HTML) are left out; list markers are dropped."""

from __future__ import annotations

import re

from ragmeter.reading.sentences import split_sentences, starts_sentence

#: claim-like sentences: long enough to assert something, short enough to be one claim
MIN_WORDS, MAX_WORDS = 6, 60
_MARKUP = re.compile(r"^\s*(#|\||```|<|!\[|\[\^)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
#: a whole sentence ends with its stop (a chunk's cut-off end does not); it opens as sentences
#: do, in any script (_opens)
_ENDS = re.compile(r"[.!?。！？][\"')*]?$")


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
            if MIN_WORDS <= len(words) <= MAX_WORDS and _opens(sentence) and _ENDS.search(sentence) and \
                    sum(c.isalpha() for c in sentence) > len(sentence) / 2:
                found.append(sentence)
    return found


def _opens(sentence: str) -> bool:
    """It opens as a sentence does: after an opening mark, a sentence's first letter or digit in
    any script (reading/sentences.py: starts_sentence), or a code span."""
    text = sentence.lstrip("\"'(¿¡*")
    return bool(text) and (text[0] == "`" or starts_sentence(text[0])) and len(sentence) - len(text) <= 1
