"""The one word tokenizer every reader uses, and the views of it they match on.

A word is a run of Unicode word characters (`\\w+`: letters, digits, underscore; "dpkg-split"
is two words, "ñandú" one). Every view below starts from `tokens`: what overlap measures
compare (`content_words`), what evidence selection matches (`match_words`: long words cut to
a stem, identifiers also whole), what a quote is aligned on (`lower_words`), and a text
compared word for word with its short words kept (`plain`). Five tokenizers with five
regular expressions did this before (issue 59).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)
#: identifiers, flags, paths, versions and format directives as written: `dpkg-split`, `--train`,
#: `xmltodict.parse`, `1.2.3`, `%c`
_IDENTIFIER = re.compile(r"(?<!\w)(?:-{0,2}\w++(?:[-./:]+\w++)+|--?\w++)|%[A-Za-z%]", re.UNICODE)
#: words longer than this match on their first STEM letters (a stem without a language's stemmer)
STEM = 6


def tokens(text: str) -> list[str]:
    """The words of `text` as written, in order."""
    return _WORD.findall(text)


def word_spans(text: str) -> list[re.Match[str]]:
    """The words of `text` as tokens() reads them, each with where it stands (a reader that puts
    a word back in place: the judge check's negation)."""
    return list(_WORD.finditer(text))


def lower_words(text: str) -> list[str]:
    """Lowercased words: punctuation and spacing do not count."""
    return tokens(text.lower())


def content_words(text: str) -> set[str]:
    """Lowercased words of three or more characters: what word-overlap measures compare."""
    return {w for w in lower_words(text) if len(w) > 2}


def share_held(text: str, passages: list[str]) -> float | None:
    """The share of `text`'s content words the passages hold (None for a text of none): the
    word-overlap floor of meta-evaluation, a test-set answer found in its chunk, a question's
    overlap with its source."""
    wanted = content_words(text)
    return len(wanted & content_words(" ".join(passages))) / len(wanted) if wanted else None


def plain(text: str) -> str:
    """Every word, short ones too ("no" is the whole difference in Spanish), lowercased, one
    space apart: a text compared word for word."""
    return " ".join(lower_words(text))


def match_words(text: str) -> list[str]:
    """Words to match a claim on, lowercased: each word of three or more characters (a long
    one cut to its stem) or any number, then each identifier, flag or path whole."""
    found = [w.lower()[:STEM] if len(w) > STEM and not w.isdigit() else w.lower()
             for w in tokens(text) if len(w) > 2 or w.isdigit()]
    return found + [w.lower() for w in _IDENTIFIER.findall(text)]


def word_count(text: str) -> int:
    return len(tokens(text))
