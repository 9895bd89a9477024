"""No-model checks of a written test-set question, run before any critique (free, and the
small judge's critiques miss what they catch): an answer that restates its question, a
question that points at the text it was written from ("the code snippet", "en el
contexto"), a question that copies the generation prompt's own example (the Eiffel Tower),
the words a question asks about, and text in another language than the one asked for.
Language words come from reading/languages.py; a language without them is not checked for
pointing, and its question words are all kept."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ragmeter.reading.languages import Vocabulary, covered, vocabulary
from ragmeter.reading.words import content_words, lower_words, tokens


def points_at_source(question: str, language: str = "english") -> str | None:
    """The words with which `question` points at the text it was written from ("according
    to the passage": the generation prompt forbids them), or None."""
    found = vocabulary(language)
    match = _pointing(found).search(question) if found else None
    return match.group(0) if match else None


@lru_cache(maxsize=16)
def _pointing(found: Vocabulary) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{found.pointing})\b", re.I)


def from_example(question: str, contexts: list[str], prompt: Any) -> list[str]:
    """Names and numbers of the generation prompt's own examples that the question holds and
    its chunks do not: the small generator sometimes writes the example's question again."""
    shown = [str(v) for example in prompt.examples for part in (example.input, example.output) for v in part.values()]
    sentences = [part for text in shown for part in re.split(r"[.?!¿¡:]\s*", text)]
    words = [w for sentence in sentences for w in tokens(sentence)[1:]]  # a first word is no name
    names = {w.lower() for w in words if (w[0].isupper() and len(w) > 3) or (w.isdigit() and len(w) > 2)}
    asked = set(lower_words(question))
    held = set(lower_words(" ".join(contexts)))
    return sorted((names & asked) - held)


def restates_question(question: str, answer: str, language: str = "english") -> bool:
    """True when every word of the answer comes from its question ("What is the training
    mode for Zstd?" -> "Training mode."): it gives a RAG nothing to find, yet the critiques,
    which read the question alone, let it through. Numbers count as words; an answer that
    starts with the language's yes or no ("Yes, training mode.") answers its question."""
    said = _words(answer, language)
    first = answer.strip().lower().split(maxsplit=1)
    found = vocabulary(language)
    if not said or (first and found and first[0].strip(".,;:!¡") in found.yes_no):
        return False
    return said <= _words(question, language)


def asked_words(question: str, language: str = "english") -> set[str]:
    """The question's content words that name what it asks about: stop words and words that
    only frame a question ("what is the purpose of") aside, in `language`."""
    found = vocabulary(language)
    return content_words(question) - (found.stop_words | found.asking if found else set())


def language_mismatch(text: str, language: str) -> bool:
    """True when another covered language's stop words outnumber the asked language's
    (False where the asked language is not covered: nothing to count)."""
    languages = covered()
    if language not in languages:
        return False
    words = [t.strip("¿?¡!.,;:()\"'").lower() for t in text.split()]
    own = sum(t in languages[language].stop_words for t in words)
    return any(sum(t in v.stop_words for t in words) > own for name, v in languages.items() if name != language)


def _words(text: str, language: str) -> set[str]:
    """Words of three or more letters, or with a digit, stop words aside, a plural s dropped."""
    found = vocabulary(language)
    stop = found.stop_words if found else frozenset()
    return {t[:-1] if len(t) > 3 and t.endswith("s") else t for t in lower_words(text)
            if (len(t) > 2 or any(ch.isdigit() for ch in t)) and t not in stop}
