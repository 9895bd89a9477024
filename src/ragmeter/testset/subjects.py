"""What a chunk is about, for the writer of its question: the document's name and title, the
chunk's section path (reading/outline.py, no model) and a one-line summary of the document
written once per document by the judge (cached like every call). A chunk from the middle of a
page often holds no name to give; without one, the small writer asked "What is the default
value of the parameter?" (issue 62). The same words decide whether a question names its
subject (reading/questions.py: names_subject)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragmeter.reading.outline import DESCRIBED_LEVEL, Outline, outline
from ragmeter.reading.questions import folded_words, naming_words
from ragmeter.reading.words import tokens
from ragmeter.testset.chunking import Chunk
from ragmeter.testset.documents import Document

#: the beginning of a document the summary is written from (characters)
SUMMARY_FROM = 1500


class Summary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    summary: str = Field(min_length=3, max_length=300)


@dataclass
class _Known:
    document: Document
    outline: Outline
    held: set[str]  # every word of the document
    names: set[str]  # the words it writes as names (reading/questions.py: naming_words)


class Subjects:
    """The subject line and subject words of each chunk of `documents`."""

    def __init__(self, documents: list[Document], language: str) -> None:
        self.language = language
        self._known = {d.source: _Known(d, outline(d.text), folded_words(d.text),
                                        naming_words(d.text, language, names_only=True)) for d in documents}
        self._summaries: dict[str, asyncio.Task[str]] = {}
        self._written: dict[str, str] = {}  # the summaries already written, by source

    def title(self, source: str) -> str | None:
        known = self._known.get(source)
        return known.outline.title if known else None

    def section(self, chunk: Chunk, at: int | None = None) -> list[str]:
        """The headings above the chunk's first line, or above offset `at` of the chunk (where
        an answer-first question's span stands: a chunk may cross into another section), the
        title aside."""
        known = self._known.get(chunk.source)
        if known is None:
            return []
        path = known.outline.path_at(chunk.start + _where(chunk, at))
        return [h for h in path if h != known.outline.title]

    async def line(self, judging: Any, chunk: Chunk, at: int | None = None) -> str:
        """`name: title > section`, then the summary on its own line."""
        heads = [h for h in (self.title(chunk.source), *self.section(chunk, at)) if h]
        head = f"{chunk.source}: {' > '.join(heads)}" if heads else chunk.source
        summary = await self.summary(judging, chunk.source)
        return f"{head}\n{summary}" if summary else head

    async def summary(self, judging: Any, source: str) -> str:
        """The document's one-line summary, asked once per document and run (and cached)."""
        known = self._known.get(source)
        if known is None:
            return ""
        if source not in self._summaries:
            self._summaries[source] = asyncio.ensure_future(self._summarise(judging, known.document))
        task = self._summaries[source]
        try:
            self._written[source] = await asyncio.shield(task)
        except Exception:
            if self._summaries.get(source) is task:  # a failed call is asked again by the next attempt
                del self._summaries[source]
            raise
        return self._written[source]

    @staticmethod
    async def _summarise(judging: Any, document: Document) -> str:
        from ragmeter.errors import UnparseableReply

        try:
            reply = await judging.ask("summary", "summary", {"name": document.source,
                                                             "document": document.text[:SUMMARY_FROM]}, Summary, 96)
        except UnparseableReply:
            return ""  # the name, title and section still say what the chunk is about
        return " ".join(reply.parsed.summary.split())

    def words(self, chunk: Chunk, at: int | None = None) -> set[str]:
        """The words a question may name its subject with: the document's file name; the
        words of its title, of the chunk's section path and of the summary that the document
        itself writes as names (capitalised inside a sentence, in code, in a web address: its
        `names`); every word of a described object's heading (an API reference's
        `TextWrapper`, `width`). A title's ordinary words are no name: "¿Qué es un entorno
        virtual?" under "Entornos virtuales y paquetes" names no software (issue 62: Spanish
        precision 0.39 with every title word, 0.55 with names only; English 0.64 both)."""
        language, known = self.language, self._known.get(chunk.source)
        found = naming_words(PurePath(chunk.source).stem, language, short=True)
        if known is None:
            return found
        enclosing = known.outline.enclosing(chunk.start + _where(chunk, at))
        for text in (known.outline.title or "", *(h.text for h in enclosing), self._written.get(chunk.source, "")):
            found |= naming_words(text, language, short=True) & known.names
        for heading in enclosing:
            if heading.level >= DESCRIBED_LEVEL:
                found |= naming_words(heading.text, language)
        return found

    def names(self, chunk: Chunk, most: int = 4) -> list[str]:
        """The subject's names as the document writes them, for a rewrite to put in its
        question: the file's name (its stem), then the names of the summary and the title."""
        known = self._known.get(chunk.source)
        found = [PurePath(chunk.source).stem]
        texts = (self._written.get(chunk.source, ""), known.outline.title or "") if known else ()
        for text in texts:
            for word in tokens(text):
                if word.lower() in (known.names if known else set()) and word.lower() not in map(str.lower, found):
                    found.append(word)
        return found[:most]

    def edges(self, chunk: Chunk) -> tuple[bool, bool]:
        """Whether the chunk starts and ends at a line's edge of its document (testset/spans.py:
        a sentence cut by the chunk's edge is no answer to ask about)."""
        known = self._known.get(chunk.source)
        if known is None:
            return (True, True)
        text, end = known.document.text, chunk.start + len(chunk.text)
        return (chunk.start == 0 or text[chunk.start - 1] == "\n" or not text[: chunk.start].strip(),
                end >= len(text) or text[end] == "\n" or not text[end:].strip())

    def spans(self, chunk: Chunk) -> list[Any]:
        """The chunk's answers to ask about, best first (testset/spans.py)."""
        from ragmeter.testset.spans import spans

        return spans(chunk.text, self.title(chunk.source), self.edges(chunk))

    def held(self, source: str) -> set[str]:
        """Every word of the chunk's document (a name the question gives must be one of them)."""
        known = self._known.get(source)
        return known.held if known else set()


def _where(chunk: Chunk, at: int | None) -> int:
    return _first_line_end(chunk.text) if at is None else at


def _first_line_end(text: str) -> int:
    """Where the chunk's first line ends: a chunk that starts on a heading is in its section."""
    end = text.find("\n")
    return end if end >= 0 else 0
