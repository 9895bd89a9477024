"""The no-model checks of a written test-set question, in the order the pipeline runs them,
with the problem a rewrite is told (in the test set's language), and the corpus lookups an
unanswerable question is checked against. The readers themselves are reading/questions.py's;
this module decides which of them rejects a question and which rejection is rewritten."""

from __future__ import annotations

import functools
from typing import Any

from ragmeter.reading.identify import language_mismatch
from ragmeter.reading.languages import ENGLISH, vocabulary
from ragmeter.reading.questions import (
    asked_words,
    from_example,
    names_subject,
    points_at_source,
    restates_question,
)
from ragmeter.testset.chunking import Chunk
from ragmeter.testset.generation import Written
from ragmeter.testset.subjects import Subjects


def problem(settings: Any, key: str, **detail: str) -> str:
    """Why a question is sent back, in the test set's language (reading/languages.py)."""
    found = vocabulary(settings.language)
    text = (found.problems.get(key) if found else None) or ENGLISH.problems[key]
    return text.format(**detail) if detail else text


def first_failed(row: dict[str, Any], written: Written, sources: list[Chunk], chunks: list[Chunk],
                 settings: Any, prompt: Any, subjects: Subjects,
                 at: int | None = None) -> tuple[str, str, str | None] | None:
    """The first no-model check the question fails: (rejected_by, detail, problem for the
    rewrite or None), or None. `at`: where in the chunk its answer stands (answer-first), whose
    section names the subject."""
    kind, question, answer, language = row["question_type"], written.question, written.answer, settings.language
    if kind != "unanswerable" and answer is not None and restates_question(question, answer, language):
        return ("restates question",
                f"every word of the answer {answer!r} is in the question: nothing for a RAG to find", None)
    if pointing := points_at_source(question, language):
        return ("standalone", f"points at the text it was written from ({pointing!r}), which whoever asks has not "
                "seen", None)  # rewritten, it came back the same 9 times in 9 (issue 62)
    if copied := from_example(question, [c.text for c in sources], prompt):
        return ("copied example",
                f"holds {', '.join(copied)} from the generation prompt's own example, not from its chunk", None)
    chunk = sources[0]
    if row.get("messages") is None and not names_subject(question, subjects.words(chunk, at),
                                                          subjects.held(chunk.source), language):
        return ("standalone", "names no subject: no word of its document's name, title or section "
                f"({chunk.source}), and no name its document holds",
                problem(settings, "no_subject", names=", ".join(subjects.names(chunk))))
    if not question.rstrip().endswith("?"):
        return ("not a question", "does not end with a question mark", problem(settings, "not_question"))
    if language_mismatch(question, language):
        return ("language", f"not written in {language}", problem(settings, "language"))
    if kind == "unanswerable" and (found := answering_chunk(question, chunks, language)):
        return ("groundedness", f"answerable: {found[0].source} holds {found[1]:.0%} of the question's words", None)
    return None


def nearest_in_words(question: str, chunks: list[Chunk], k: int) -> list[Chunk]:
    """The k chunks sharing most words with the question (no model: cheap over a corpus)."""
    from ragmeter.reading.words import content_words

    asked = content_words(question)
    ranked = sorted(chunks, key=lambda c: (-len(asked & _chunk_words(c)), c.id))
    return ranked[:k]


#: share of an "unanswerable" question's words one chunk may hold before the corpus is taken to answer it
ANSWERED_SHARE = 2 / 3


def answering_chunk(question: str, chunks: list[Chunk], language: str = "english") -> tuple[Chunk, float] | None:
    """The chunk holding at least ANSWERED_SHARE of the question's content words (stop words
    aside), with that share; None when no chunk does. A no-model check that an "unanswerable"
    question is not answered by the corpus: the small judge's groundedness critique let
    "What is the default temperature for decoding?" through beside "temperature 0"."""
    asked = asked_words(question, language)
    if len(asked) < 2:
        return None
    best = max(chunks, key=lambda c: (len(asked & _chunk_words(c)), c.id), default=None)
    share = len(asked & _chunk_words(best)) / len(asked) if best else 0.0
    return (best, share) if best and share >= ANSWERED_SHARE else None


@functools.lru_cache(maxsize=200_000)
def _chunk_words(chunk: Chunk) -> frozenset[str]:
    """A chunk's words, computed once per chunk for every unanswerable question."""
    from ragmeter.reading.words import content_words

    return frozenset(content_words(chunk.text))
