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

from ragmeter.reading.languages import Vocabulary, vocabulary
from ragmeter.reading.words import content_words, lower_words, tokens


def points_at_source(question: str, language: str) -> str | None:
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


def restates_question(question: str, answer: str, language: str) -> bool:
    """True when every word of the answer comes from its question ("What is the training
    mode for Zstd?" -> "Training mode."), or its letters stand in it, spaces and case aside
    ("the disk cache library" -> "DiskCache"): it gives a RAG nothing to find, yet the critiques,
    which read the question alone, let it through. Numbers count as words; an answer that
    starts with the language's yes or no ("Yes, training mode.") answers its question."""
    said = _words(answer, language)
    first = answer.strip().lower().split(maxsplit=1)
    found = vocabulary(language)
    if not said or (first and found and first[0].strip(".,;:!¡") in found.yes_no):
        return False
    return said <= _words(question, language) or _squashed(question).find(_squashed(answer)) >= 0


def _squashed(text: str) -> str:
    """Letters and digits alone, lowercased: "DiskCache." stands in "the disk cache library"."""
    return "".join(ch for ch in text.lower() if ch.isalnum()) or "\0"


def asked_words(question: str, language: str) -> set[str]:
    """The question's content words that name what it asks about: stop words and words that
    only frame a question ("what is the purpose of") aside, in `language`."""
    found = vocabulary(language)
    return content_words(question) - (found.stop_words | found.asking if found else set())


def _words(text: str, language: str) -> set[str]:
    """Words of three or more letters, or with a digit, stop words aside, a plural s dropped."""
    found = vocabulary(language)
    stop = found.stop_words if found else frozenset()
    return {t[:-1] if len(t) > 3 and t.endswith("s") else t for t in lower_words(text)
            if (len(t) > 2 or any(ch.isdigit() for ch in t)) and t not in stop}


def naming_words(text: str, language: str, names_only: bool = False, short: bool = False) -> set[str]:
    """The words of `text` that can name a question's subject, folded as `names_subject`
    compares them: every content word of a title or heading (with `short`, two-letter words
    too: a file named `tr.txt`); with `names_only`, only the words shaped as names (a capital
    past a sentence's first word, a digit, `_` or `.` inside, a code span, an option)."""
    if names_only:
        return _folded(_identifiers(text) | _capitalised(text, language))
    found = vocabulary(language)
    skip = found.stop_words | found.asking if found else frozenset()
    words = {w for w in lower_words(text.replace("_", " ")) if len(w) > (1 if short else 2)} - skip
    return _folded(words | _identifiers(text))


def names_subject(question: str, subject: set[str], held: set[str], language: str) -> bool:
    """Whether the question names what it asks about: a word of its subject (`naming_words`
    of the document's name, title and section path), or a name (`names_only`) that its
    document holds (`held`: the document's folded words), as an option or a function named
    in the question is. A question that names neither ("What is the default value of the
    parameter?" from a tutorial's example) makes sense only to who has read the chunk.
    Without subject words there is nothing to check."""
    if not subject:
        return True
    names = naming_words(question, language, names_only=True)
    return bool(naming_words(question, language, short=True) & subject or names & held)


def folded_words(text: str) -> set[str]:
    """Every word of `text`, folded as `names_subject` compares them."""
    return _folded(set(lower_words(text)))


_IDENT = re.compile(r"(?<![\w.-])((?:[A-Za-z]\w*[._]\w[\w.]*|[A-Za-z]*[a-z][A-Z]\w*|[A-Z]{2,}\w*"
                    r"|[A-Za-z]+-?\d[\w.]*|--?[a-z][\w-]*))")


def _identifiers(text: str) -> set[str]:
    """Code-shaped words: a one-token code span's words, dotted or snake_case names, CamelCase, ACRONYMS,
    names with a number (pep-0257, Python3), command-line options, a web address's words."""
    from ragmeter.reading.shapes import CODE_SPAN, URL

    found: set[str] = set()
    for match in _IDENT.finditer(text):
        found.update(lower_words(match.group(1)))
    for match in CODE_SPAN.finditer(text):
        if not any(ch.isspace() for ch in match.group(2).strip()):  # words in code marks are prose (a link)
            found.update(lower_words(match.group(2)))
    for match in URL.finditer(text):
        found.update(w for w in lower_words(match.group(0)) if w not in ("http", "https", "www"))
    return found


def _capitalised(text: str, language: str) -> set[str]:
    """Words written with a capital past the first word of their sentence and of their line
    (a heading ends without a full stop): proper names."""
    from ragmeter.reading.sentences import split_sentences

    found = vocabulary(language)
    stop = found.stop_words if found else frozenset()
    out: set[str] = set()
    for sentence in (part for line in text.splitlines() for part in split_sentences(line)):
        for word in tokens(sentence)[1:]:
            if word[:1].isupper() and len(word) > 1 and word.lower() not in stop:
                out.add(word.lower())
    return out


def _folded(words: set[str]) -> set[str]:
    """Words as compared: lowercase, a number without leading zeros, a plural s dropped."""
    out = set()
    for word in words:
        word = word.lower()
        if word.isdigit():
            word = word.lstrip("0") or "0"
        elif len(word) > 3 and word.endswith("s"):
            word = word[:-1]
        if len(word) > 1:
            out.add(word)
    return out
