"""Parse a Pleias-style row: `text` (query and tagged sources) and `generated_response`
(optional analysis, then the answer citing sources as `<ref name="ID">quote</ref>`).

Two input formats:

* special tokens (Pleias models):
  `<|query_start|>Q<|query_end|><|source_start|><|source_id_start|>ID<|source_id_end|>TEXT
  <|source_end|>...`, and in the response `<|analysis_start|>...<|analysis_end|>
  <|answer_start|>...<|answer_end|>` (the answer may also be all text after the analysis);
* generic structured (any model): a `### Query ###` section (or Pleias's chat prompt,
  "question posted by a user: Q You answer should") and sources as `**ID**` lines each
  followed by the source's text; in the response an optional `### Analysis ###` section
  and the answer under `### Answer ###` or `### Referenced answer ###` (else the whole
  response).

A row that cannot be parsed raises CitationFormatError naming what is missing; callers
add the row number. Nothing is skipped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

REF = re.compile(r"<ref\s+name\s*=\s*[\"']([^\"']*)[\"']\s*>(.*?)</ref>", re.DOTALL)
SPECIAL = re.compile(r"<\|[a-z_]+\|>")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")
_SOURCE = re.compile(r"<\|source_start\|>(.*?)<\|source_end\|>", re.DOTALL)
_SOURCE_ID = re.compile(r"<\|source_id_start\|>(.*?)<\|source_id_end\|>", re.DOTALL)
_GENERIC_ID = re.compile(r"^\*\*(.+?)\*\*\s*$", re.MULTILINE)
_HEADER = re.compile(r"^###\s*(.+?)\s*###\s*$", re.MULTILINE)
_CHAT_QUERY = re.compile(r"question posted by a user:\s*(.*?)\s*You answer should", re.DOTALL)
_CHAT_SOURCES = re.compile(r"following texts:\s*\n(.*?)(?:\n\s*\nFinally,|\Z)", re.DOTALL)
ANSWER_HEADERS = ("referenced answer", "answer")


class CitationFormatError(ValueError):
    """The row does not follow either format; the message says what is missing and where."""

    def __init__(self, message: str, field: str = "text") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Source:
    id: str
    text: str


@dataclass(frozen=True)
class Citation:
    source_id: str
    quote: str


@dataclass(frozen=True)
class CitedRow:
    query: str
    sources: tuple[Source, ...]
    answer: str
    analysis: str | None
    format: str
    citations: tuple[Citation, ...] = field(default=())

    @property
    def source_ids(self) -> set[str]:
        return {s.id for s in self.sources}

    def source(self, source_id: str) -> Source | None:
        return next((s for s in self.sources if s.id == source_id), None)


def detect_format(text: str) -> str:
    return "special-tokens" if "<|query_start|>" in text or "<|source_start|>" in text else "generic"


def parse_row(text: str, response: str) -> CitedRow:
    """Parse one row in whichever format its `text` uses."""
    if not isinstance(response, str):
        raise CitationFormatError("not text", "generated_response")
    fmt, query, sources = parse_prompt(text)
    analysis, answer = (_special_response if fmt == "special-tokens" else _generic_response)(response)
    return CitedRow(query, sources, answer, analysis, fmt, citations(answer))


def parse_prompt(text: str) -> tuple[str, str, tuple[Source, ...]]:
    """The format, query and sources of a row's `text` (the prompt half of a row)."""
    if not isinstance(text, str) or not text.strip():
        raise CitationFormatError("'text' is empty")
    fmt = detect_format(text)
    query, sources = (_special_prompt if fmt == "special-tokens" else _generic_prompt)(text)
    return fmt, query, sources


def citations(answer: str) -> tuple[Citation, ...]:
    """Every `<ref name="ID">quote</ref>` in order; the quote as written, stripped."""
    return tuple(Citation(m.group(1).strip(), m.group(2).strip()) for m in REF.finditer(answer))


def strip_citations(answer: str) -> str:
    """The answer without its quotes: `<ref ...>quote</ref>` removed (for judges of the prose)."""
    return _SPACE_BEFORE_PUNCT.sub(r"\1", " ".join(REF.sub("", answer).split()))


def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i + len(start))
    return text[i + len(start): j if j >= 0 else len(text)]


def _special_prompt(text: str) -> tuple[str, tuple[Source, ...]]:
    query = _between(text, "<|query_start|>", "<|query_end|>")
    if query is None or not query.strip():
        raise CitationFormatError("no query between <|query_start|> and <|query_end|>")
    sources = []
    for number, block in enumerate(_SOURCE.findall(text), start=1):
        found = _SOURCE_ID.search(block)
        if found is None or not found.group(1).strip():
            raise CitationFormatError(f"source {number} has no id between <|source_id_start|> and "
                                      "<|source_id_end|>")
        body = SPECIAL.sub("", _SOURCE_ID.sub("", block)).strip()
        sources.append(Source(found.group(1).strip(), body))
    if not sources:
        raise CitationFormatError("no <|source_start|>...<|source_end|> block")
    if text.count("<|source_start|>") != len(sources):
        raise CitationFormatError("a <|source_start|> has no matching <|source_end|>")
    return query.strip(), _unique(sources)


def _special_response(response: str) -> tuple[str | None, str]:
    analysis = _between(response, "<|analysis_start|>", "<|analysis_end|>")
    answer = _between(response, "<|answer_start|>", "<|answer_end|>")
    if answer is None:  # no answer tags: whatever follows the analysis
        answer = SPECIAL.sub("", response.split("<|analysis_end|>", 1)[-1])
    if not answer.strip():
        raise CitationFormatError("no answer (nothing after <|answer_start|>)", "generated_response")
    return (analysis.strip() if analysis is not None else None), answer.strip()


def _sections(text: str) -> dict[str, str]:
    """`### Name ###` headers -> section text (last occurrence wins: prompts repeat examples)."""
    marks = list(_HEADER.finditer(text))
    return {m.group(1).strip().lower(): text[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(text)]
            .strip() for i, m in enumerate(marks)}


def _generic_prompt(text: str) -> tuple[str, tuple[Source, ...]]:
    sections = _sections(text)
    chat = _CHAT_QUERY.search(text)
    query = sections.get("query") or (chat.group(1) if chat else None)
    if not query or not query.strip():
        raise CitationFormatError("no query: expected a '### Query ###' section (or the special-token format)")
    block = sections.get("sources")
    if block is None:
        found = _CHAT_SOURCES.search(text)
        block = found.group(1) if found else text
    marks = list(_GENERIC_ID.finditer(block))
    if not marks:
        raise CitationFormatError("no sources: expected '**ID**' lines, each followed by the source's text")
    sources = []
    for i, mark in enumerate(marks):
        body = block[mark.end(): marks[i + 1].start() if i + 1 < len(marks) else len(block)].strip()
        sources.append(Source(mark.group(1).strip(), body))
    return query.strip(), _unique(sources)


def _generic_response(response: str) -> tuple[str | None, str]:
    sections = _sections(response)
    answer = next((sections[h] for h in ANSWER_HEADERS if h in sections), None)
    if answer is None:
        answer = response if not sections else ""
    if not answer.strip():
        raise CitationFormatError("no answer: expected a '### Answer ###' section", "generated_response")
    return sections.get("analysis"), answer.strip()


def _unique(sources: list[Source]) -> tuple[Source, ...]:
    seen = [s.id for s in sources]
    repeated = sorted({i for i in seen if seen.count(i) > 1})
    if repeated:
        raise CitationFormatError(f"source id(s) used twice: {repeated}")
    return tuple(sources)
