"""Factoid questions written for an answer chosen first (issue 73). The reader picks a span
of the chunk (testset/spans.py, no model); the writer is given that span, the sentence before
it and the subject line of the section the span stands in, and writes the question whose
answer it is; the reference is the span as the chunk writes it, so it cannot say what the
chunk does not.

The question is then checked by what the project has measured against people, not by the
small writer critiquing itself: the no-model checks (testset/checks.py); a round trip, the
question asked of the whole corpus through the baseline retriever's embeddings, which must
find a chunk holding its answer among the first `round_trip_k` (a question that names what it
asks about finds it, a vague one does not); and the answer round trip: shown the sentences of
the chunk around the span, numbered, the judge picks the one that answers the question, which
must be the span (`answer_check: sentence`): the answer chosen first must be the answer the
chunk gives. `answer_check: answerable` asks `abstention`'s answerability verdict (ROC-AUC 0.918
on ClapNQ) on the span alone instead, `both` asks both; on the dev documents the sentence check
kept 0.89 of English questions a reader keeps among those it kept (answerability 0.63) and 0.70
of Spanish ones (0.67).
A question that fails is not written again: the chunk's next span is asked instead (on the
dev documents, 21 questions that named no subject were written again, told why and which
names to use, as a chunk-first question is: none was kept)."""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, create_model

from ragmeter.embeddings.base import cosine
from ragmeter.errors import UnparseableReply
from ragmeter.testset.checks import first_failed
from ragmeter.testset.chunking import Chunk
from ragmeter.testset.generation import Judging, Question, Written, critique, passes
from ragmeter.testset.sampling import normalized
from ragmeter.testset.spans import Span, holds, key, prose_key
from ragmeter.testset.subjects import Subjects


class RoundTrip:
    """Where the baseline retriever (cosine over the test set's embeddings, the baseline
    RAG's) ranks the first chunk holding a span, for a question; the chunks are embedded
    once, on first use."""

    def __init__(self, chunks: list[Chunk], embed: Any, k: int) -> None:
        self.chunks, self.embed, self.k = chunks, embed, k
        self._vectors: asyncio.Task[list[list[float]]] | None = None
        self._keys = [prose_key(c.text) for c in chunks]

    async def rank(self, question: str, span: str) -> int | None:
        """1-based rank among the first k of a chunk holding `span`; None when none is there."""
        if self._vectors is None:
            self._vectors = asyncio.ensure_future(self.embed([c.text for c in self.chunks]))
        vectors = await asyncio.shield(self._vectors)
        asked = (await self.embed([question]))[0]
        nearest = sorted(range(len(vectors)), key=lambda i: (-cosine(asked, vectors[i]), i))[: self.k]
        wanted = key(span)
        return next((n for n, i in enumerate(nearest, 1) if holds(self._keys[i], wanted)), None)


async def write_for(judging: Judging, span: Span, subject: str) -> Written:
    """The question whose answer is `span`; the span is its reference."""
    reply = await judging.ask("generate", "from_answer", {"subject": subject, "passage": span.passage,
                                                          "answer": span.text}, Question, 128)
    return Written(reply.parsed.question.strip(), span.text)


async def judged(row: dict[str, Any], written: Written, span: Span, chunk: Chunk, chunks: list[Chunk],
                 settings: Any, judging: Judging, subjects: Subjects, round_trip: RoundTrip | None) -> dict[str, Any]:
    """The row kept, with what each check found, or rejected with why."""
    found = first_failed(row, written, [chunk], chunks, settings, judging.prompt("from_answer"), subjects, span.offset)
    if found is not None:
        return {**row, "rejected_by": found[0], "detail": found[1]}
    row["reference_in_chunk"] = holds(prose_key(chunk.text), key(span.text))
    if round_trip is not None:
        rank = await round_trip.rank(written.question, span.text)
        row["round_trip_rank"] = rank
        if rank is None:
            return {**row, "rejected_by": "round trip",
                    "detail": f"the baseline retriever finds no chunk holding its answer among the first "
                              f"{round_trip.k}: the question does not say what it asks about"}
    if settings.answer_check in ("sentence", "both"):
        p = row["answered_by_span"] = await answered_by_span(judging, written.question, span, chunk)
        if p < 0.5:
            return {**row, "rejected_by": "answer sentence",
                    "detail": f"read against its chunk's sentences, another one (or none) answers it (P(its "
                              f"reference's sentence) {p:.2f})"}
    if settings.answer_check in ("answerable", "both"):
        p = row["answerable"] = await answerable(judging, written.question, span.text)
        if p < 0.5:
            return {**row, "rejected_by": "answerable",
                    "detail": f"its reference does not answer it (P(answerable) {p:.2f})"}
    for criterion in settings.critiques:
        try:
            result = await critique(judging, criterion, written.question, chunk.text, settings.audience)
        except UnparseableReply as exc:
            return {**row, "rejected_by": "parse failure", "detail": f"critique {criterion}: {exc}"}
        row[f"{criterion}_score"] = result["score"]
        judging.on_rating += settings.keep_on != "rating" and not result.get("dist")
        if not passes("factoid", criterion, result, settings.min_score, settings.keep_on):
            return {**row, "rejected_by": criterion, "detail": f"{criterion} {result['score']}: {result['rationale']}"}
    return row


async def answerable(judging: Judging, question: str, passage: str) -> float:
    """P(the passage answers the question), abstention's `answerable` verdict (its label where
    the judge gives no probabilities)."""
    from ragmeter.metrics.abstention import Decision
    from ragmeter.metrics.judgment import BINARY, PROBABILITY, weigh

    reply = await judging.ask("check.answerable", "answerable", {"context": passage, "question": question},
                              Decision, 8, family="abstention")
    return round(weigh(reply, "verdict", reply.parsed.verdict, BINARY, PROBABILITY).value, 4)


#: the sentences shown to the which-sentence check: one digit each (0 is none)
SHOWN = 9


@cache
def _choice(n: int) -> type[BaseModel]:
    return create_model(f"Sentence{n}", __config__=ConfigDict(extra="forbid"),
                        sentence=(Literal[tuple(range(n + 1))], ...))  # type: ignore[arg-type]


async def answered_by_span(judging: Judging, question: str, span: Span, chunk: Chunk) -> float:
    """P(the judge, shown the chunk's sentences about the span, picks the span as the one that
    answers the question): the answer chosen first must be the answer the chunk gives."""
    from ragmeter.testset.spans import sentences

    found = sentences(chunk.text)
    wanted = key(span.text)
    at = next((i for i, s in enumerate(found) if key(s) == wanted), None)
    if at is None:
        return 1.0
    start = max(0, min(at - SHOWN // 2, len(found) - SHOWN))
    shown = found[start:start + SHOWN]
    target = str(at - start + 1)
    reply = await judging.ask("check.sentence", "which_sentence", {"sentences": shown, "question": question},
                              _choice(len(shown)), 12)
    probs = reply.probs.get("sentence")
    if not probs:
        return float(str(reply.parsed.sentence) == target)
    return round(sum(p for label, p in probs.items() if label == target), 4)


async def attempt(row: dict[str, Any], span: Span, chunk: Chunk, chunks: list[Chunk], settings: Any,
                  judging: Judging, subjects: Subjects, round_trip: RoundTrip | None, asked: frozenset[str],
                  wrote: Any) -> dict[str, Any]:
    """One answer-first question: written for `span`, then checked (`asked`: the questions
    written before, normalized; one written again is not checked again)."""
    subject = await subjects.line(judging, chunk, span.offset)
    try:
        written = await write_for(judging, span, subject)
    except UnparseableReply as exc:
        return {**row, "rejected_by": "parse failure", "detail": f"generate: {exc}"}
    wrote()
    filled = {**row, "reference": span.text, "reference_contexts": [chunk.text], "reference_context_ids": [chunk.id],
              "seed_chunk_id": chunk.id, "answer_span": span.text, "span_holds": list(span.holds)}
    if normalized(written.question) in asked:
        return {**filled, "user_input": written.question, "rejected_by": "duplicate",
                "detail": "the same question was written before"}
    return await judged({**filled, "user_input": written.question}, written, span, chunk, chunks, settings, judging,
                        subjects, round_trip)
