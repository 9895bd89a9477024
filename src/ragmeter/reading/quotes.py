"""Whether a test-set answer rests on the words its writer quoted: the quote is found in the
chunk (a fuzzy match, rapidfuzz's best partial alignment, so a changed space or case does not
count), and the answer says what the quote says (most of its words are the quote's or the
question's). No model: a quote the writer invented, or an answer beside its quote, is caught
before any critique (issue 62)."""

from __future__ import annotations

#: how closely (0-100) the quote must align with some part of the chunk
QUOTE_MATCH = 85
#: the share of the answer's words the quote (or the question) must hold
ANSWER_IN_QUOTE = 0.5


def quote_match(quote: str, text: str) -> float:
    """0-100: how well `quote` aligns with its best place in `text`, spacing and case aside."""
    from rapidfuzz import fuzz

    needle, haystack = " ".join(quote.lower().split()), " ".join(text.lower().split())
    if not needle:
        return 0.0
    return float(fuzz.partial_ratio(needle, haystack))


def quoted(quote: str, text: str) -> bool:
    return quote_match(quote, text) >= QUOTE_MATCH


def answer_rests_on(answer: str, quote: str, question: str = "") -> bool:
    """Most of the answer's words (of four letters or more, and numbers) are in the quote or in
    the question it answers ("In 1889." on "completed in 1889"); an answer of none ("Yes.")
    has nothing to check."""
    from ragmeter.reading.words import lower_words

    said = [w for w in lower_words(answer) if len(w) > 3 or any(ch.isdigit() for ch in w)]
    if not said:
        return True
    held = set(lower_words(f"{quote} {question}"))
    return sum(_held(w, held) for w in said) / len(said) >= ANSWER_IN_QUOTE


def _held(word: str, held: set[str]) -> bool:
    """The word, or its stem of five letters or more (a plural, a verb's ending), is held."""
    return word in held or (len(word) > 5 and any(h.startswith(word[:5]) for h in held if len(h) > 4))
