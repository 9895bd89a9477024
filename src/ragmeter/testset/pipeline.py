"""The generate -> check -> critique -> filter -> deduplicate loop, over-generating until
`size` questions survive, the attempt budget (size x max_attempts) is spent, or no chunk has
text left to ask about (sampling.Rounds asks each chunk again, round after round).

Attempts are numbered in a seeded order and judged in batches; filtering and
deduplication go through each batch in attempt order, so the same seed and judge give the
same test set at any concurrency, and a killed run resumes from the cache.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ragmeter.embeddings.base import cosine
from ragmeter.engine.failed_calls import FailedCalls
from ragmeter.errors import UnparseableReply
from ragmeter.reading.languages import vocabulary
from ragmeter.testset import answer_first
from ragmeter.testset.answer_first import RoundTrip
from ragmeter.testset.checks import first_failed, nearest_in_words
from ragmeter.testset.chunking import Chunk
from ragmeter.testset.flaky import Flaky
from ragmeter.testset.generation import (
    CRITERIA,
    Judging,
    Written,
    critique,
    passes,
    rewrite_question,
    transcript,
    write_conversation,
    write_question,
)
from ragmeter.testset.sampling import Rounds, SpanRounds, chunk_order, normalized
from ragmeter.testset.spans import Span
from ragmeter.testset.subjects import Subjects

TYPES = ("factoid", "multi_hop", "unanswerable", "conversational")
#: chunks offered as a multi-hop partner (the most similar by embedding is used)
PARTNER_POOL = 8
#: critiques run cheapest first and stop at the first failed criterion
ORDER = ("standalone", "relevance", "groundedness")


@dataclass
class Settings:
    size: int = 50
    types: dict[str, float] = field(default_factory=lambda: {"factoid": 1.0})
    language: str = "english"
    audience: str = "developers building applications with the documented software"
    seed: int = 0
    min_score: int = 4
    #: rating | probability | expected: what must reach min_score (see `keeps`)
    keep_on: str = "rating"
    max_attempts: int = 4
    dedup_threshold: float = 0.92
    #: "answer" ("question answer" as a faithfulness claim against the chunk), "rating" (the
    #: question alone, the context_relevance 0/1/2 prompt as 1/3/5) or "seed" (the seed's 1-5 prompt)
    groundedness: str = "answer"
    #: "span": a factoid question is written for an answer chosen in the chunk first
    #: (testset/answer_first.py); "chunk": question and answer written from the chunk, then critiqued
    write_from: str = "span"
    #: answer-first: the question must find a chunk holding its answer among the baseline
    #: retriever's first k (0: no round trip)
    round_trip_k: int = 3
    #: answer-first: the critiques also asked (standalone, relevance), none by default
    critiques: tuple[str, ...] = ()
    #: answer-first: sentence (the judge must pick the span among its chunk's sentences as the
    #: one that answers), answerable (abstention's verdict on the span alone), or both
    answer_check: str = "sentence"

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Before any call: a language the unanswerable questions can be written in ("auto" is
        checked again once the documents say which language they are in)."""
        if self.language != "auto" and self.types.get("unanswerable") and vocabulary(self.language) is None:
            from ragmeter.errors import ConfigError

            raise ConfigError(f"unanswerable questions need the reference answer that declines in {self.language} "
                              f"(not covered: {self.language}); give other --types, or add the language's "
                              "vocabulary (docs/architecture.md: add a language)")

    @property
    def refusal(self) -> str:
        """The reference answer of an unanswerable question, in the test set's language."""
        found = vocabulary(self.language)
        return found.refusal if found else ""


@dataclass
class Outcome:
    kept: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    attempts: int = 0
    stop_reason: str = ""


def type_plan(types: dict[str, float], seed: int) -> Iterator[str]:
    """Question types in a seeded order that follows the mix (largest-remainder rounding per
    block of 20, so small test sets get the mix too)."""
    rng = random.Random(seed + 1)
    block = 20
    counts = {t: int(w * block) for t, w in types.items()}
    for t in sorted(types, key=lambda t: -(types[t] * block - counts[t]))[: block - sum(counts.values())]:
        counts[t] += 1
    if not sum(counts.values()):  # nothing to yield: a loop without progress
        raise ValueError(f"no question type to plan from {types}")
    while True:
        plan = [t for t, n in counts.items() for _ in range(n)]
        rng.shuffle(plan)
        yield from plan


async def build(chunks: list[Chunk], settings: Settings, judging: Judging, embed: Any, subjects: Subjects,
                bar: Any = None) -> Outcome:
    outcome = Outcome()
    rounds: Rounds | SpanRounds = SpanRounds(chunks, settings.seed, subjects.spans) \
        if settings.write_from == "span" else Rounds(chunks, settings.seed)
    round_trip = RoundTrip(chunks, embed, settings.round_trip_k) \
        if settings.write_from == "span" and settings.round_trip_k else None
    partners = itertools.cycle(list(chunk_order(chunks, settings.seed + 7)) or [None])
    plan = type_plan(settings.types, settings.seed)
    budget = settings.size * settings.max_attempts
    kept_vectors: list[tuple[str, list[float]]] = []
    flaky = Flaky(FailedCalls(probe=judging.session.probe))
    while len(outcome.kept) < settings.size:
        if outcome.attempts >= budget:
            outcome.stop_reason = f"attempt budget spent ({budget} = size x max_attempts)"
            break
        batch = []
        for _ in range(min(budget - outcome.attempts, settings.size - len(outcome.kept))):
            planned = flaky.again.pop(0) if flaky.again else None
            item = planned[1] if planned else rounds.next()
            if item is None:
                break
            kind = planned[0] if planned else next(plan)
            if isinstance(rounds, SpanRounds) and not planned and kind != "factoid":
                item = rounds.release(item)  # written from its chunk: the span stays for a factoid question
            pool = planned[2] if planned else [next(partners) for _ in range(PARTNER_POOL)] if kind == "multi_hop" \
                else []
            batch.append((outcome.attempts, kind, item, pool, planned is not None))
            outcome.attempts += 1
        if not batch:
            if rounds.advance():
                continue
            outcome.stop_reason = rounds.exhausted()
            break
        written = frozenset(rounds.written)
        rows = await asyncio.gather(*(flaky.attempt(
            (kind, item, pool), again,
            _attempt(n, kind, item, pool, chunks, settings, judging, embed, written, subjects, round_trip),
            {"id": f"q{n + 1:04d}", "question_type": kind, "source": item[0].source})
            for n, kind, item, pool, again in batch))
        for row in rows:
            if row is None:  # its judge call failed: asked again in the next batch
                continue
            if "user_input" in row:
                rounds.record(row["seed_chunk_id"], row["user_input"], row.get("reference"))
            await _admit(row, outcome, kept_vectors, settings, embed)
            if bar is not None and "rejected_by" not in row:
                bar.advance(1)
    flaky.check()
    return outcome


async def _attempt(number: int, kind: str, item: tuple[Chunk, Any], pool: list[Chunk | None],
                   chunks: list[Chunk], settings: Settings, judging: Judging, embed: Any,
                   written: frozenset[str], subjects: Subjects, round_trip: RoundTrip | None) -> dict[str, Any]:
    """One attempt, its stage (writing, critiquing) counted for the progress line. A span
    (answer-first) is asked by a factoid question; another type is written from its chunk."""
    chunk, text = item
    with judging.stages.attempt() as wrote:
        if isinstance(text, Span) and kind == "factoid":
            row = {"id": f"q{number + 1:04d}", "question_type": kind, "source": chunk.source}
            return await answer_first.attempt(row, text, chunk, chunks, settings, judging, subjects, round_trip,
                                              written, wrote)
        item = (chunk, chunk.text) if isinstance(text, Span) else item
        return await _steps(number, kind, item, pool, chunks, settings, judging, embed, written, subjects, wrote)


async def _steps(number: int, kind: str, item: tuple[Chunk, str], pool: list[Chunk | None],
                 chunks: list[Chunk], settings: Settings, judging: Judging, embed: Any,
                 written: frozenset[str], subjects: Subjects, wrote: Callable[[], None]) -> dict[str, Any]:
    """One question: written from `item` (a chunk, and the part of it not asked about yet) and
    the chunk's subject line, checked without a model, then critiqued until a criterion
    fails. A factoid question that names no subject, is no question or is in another language
    is written again once, told why, and judged again from the start (never kept on faith);
    failing again, it is dropped. One that fails a critique is dropped at once (rewritten, the
    two kept of five were both wrong), as is one that points at its source (rewritten, it came
    back the same 9 times in 9): issue 62, docs/benchmarks.md."""
    chunk, text = item
    sources = [chunk]
    if kind == "multi_hop":
        partner = await _partner(chunk, [c for c in pool if c is not None and c.id != chunk.id], embed)
        if partner is None:
            kind = "factoid"
        else:
            sources.append(partner)
    row: dict[str, Any] = {"id": f"q{number + 1:04d}", "question_type": kind, "source": chunk.source}
    subject = await subjects.line(judging, chunk)
    turns: list[dict[str, str]] = []
    try:
        if kind == "conversational":
            turns, answer = await write_conversation(judging, text, subject)
            first = Written(turns[-1]["content"], answer)
        else:
            first = await write_question(judging, kind, [text] + [c.text for c in sources[1:]], subject)
    except UnparseableReply as exc:
        return {**row, "rejected_by": "parse failure", "detail": f"generate: {exc}"}
    wrote()
    if turns:  # multi-turn: the follow-up is the question; the critiques read the whole conversation
        row["messages"] = turns
    if normalized(first.question) in written:
        return {**_filled(row, first, sources, chunk, settings), "rejected_by": "duplicate",
                "detail": "the same question was written before"}
    judged = await _judged(_filled(row, first, sources, chunk, settings), first, sources, chunks, settings,
                           judging, subjects, turns)
    if "rejected_by" not in judged or kind != "factoid" or judged.get("problem") is None:
        judged.pop("problem", None)
        return judged
    try:
        second = await rewrite_question(judging, subject, text, first, judged.pop("problem"))
    except UnparseableReply as exc:
        return {**judged, "detail": f"{judged['detail']}; its rewrite: parse failure ({exc})"}
    before = {"question": first.question, "answer": first.answer,
              "rejected_by": judged["rejected_by"], "detail": judged["detail"]}
    again = await _judged({**_filled(row, second, sources, chunk, settings), "rewritten_from": before}, second,
                          sources, chunks, settings, judging, subjects, turns)
    again.pop("problem", None)
    if "rejected_by" in again:
        again["detail"] = f"after a rewrite: {again['detail']}"
    return again


def _filled(row: dict[str, Any], written: Written, sources: list[Chunk], chunk: Chunk,
            settings: Settings) -> dict[str, Any]:
    kind = row["question_type"]
    return {**row, "user_input": written.question,
            "reference": written.answer if written.answer is not None else settings.refusal,
            "reference_contexts": [c.text for c in sources] if kind != "unanswerable" else [],
            "reference_context_ids": [c.id for c in sources] if kind != "unanswerable" else [],
            "seed_chunk_id": chunk.id}


async def _judged(row: dict[str, Any], written: Written, sources: list[Chunk], chunks: list[Chunk],
                  settings: Settings, judging: Judging, subjects: Subjects,
                  turns: list[dict[str, str]]) -> dict[str, Any]:
    """The row kept, or rejected with why; `problem` (removed by the caller) says what a
    rewrite must fix, None where a rewrite cannot fix it."""
    found = first_failed(row, written, sources, chunks, settings, judging.prompt(row["question_type"]), subjects)
    if found is not None:
        by, detail, problem = found
        return {**row, "rejected_by": by, "detail": detail, "problem": problem}
    kind, question, answer = row["question_type"], written.question, written.answer
    context = "\n\n".join(c.text for c in sources)
    if kind == "unanswerable":  # does the corpus answer it? ask against the chunks nearest in words
        context = "\n\n".join(c.text for c in nearest_in_words(question, chunks, 3))
    for criterion in ORDER:
        try:
            result = await critique(judging, criterion, transcript(turns) if turns else question, context,
                                    settings.audience, settings.groundedness, answer)
        except UnparseableReply as exc:
            return {**row, "rejected_by": "parse failure", "detail": f"critique {criterion}: {exc}", "problem": None}
        row[f"{criterion}_score"] = result["score"]
        row[f"{criterion}_expected"] = result["expected"]
        row[f"{criterion}_rationale"] = result["rationale"]
        judging.on_rating += settings.keep_on != "rating" and not result.get("dist")
        if not passes(kind, criterion, result, settings.min_score, settings.keep_on):  # no rewrite: see _attempt
            return {**row, "rejected_by": criterion, "problem": None,
                    "detail": f"{criterion} {result['score']}: {result['rationale'][:200]}"}
    return row


async def _partner(chunk: Chunk, pool: list[Chunk], embed: Any) -> Chunk | None:
    """The pool's chunk most related to `chunk` (cosine of the bundled embeddings), from
    another place in the corpus; None when nothing is related at all."""
    if not pool:
        return None
    vectors = await embed([chunk.text] + [c.text for c in pool])
    scored = sorted(((cosine(vectors[0], v), c) for v, c in zip(vectors[1:], pool)
                     if c.text != chunk.text), key=lambda t: (-t[0], t[1].id))
    return scored[0][1] if scored and scored[0][0] > 0.2 else None


async def _admit(row: dict[str, Any], outcome: Outcome, kept_vectors: list[tuple[str, list[float]]],
                 settings: Settings, embed: Any) -> None:
    if "rejected_by" in row:
        outcome.rejected.append(row)
        return
    if len(outcome.kept) >= settings.size:
        outcome.rejected.append({**row, "rejected_by": "surplus", "detail": "the test set was already full"})
        return
    vector = (await embed([row["user_input"]]))[0]
    for other_id, other in kept_vectors:
        similarity = cosine(vector, other)
        if similarity > settings.dedup_threshold:
            outcome.rejected.append({**row, "rejected_by": "duplicate", "duplicate_of": other_id,
                                     "detail": f"cosine {similarity:.3f} with {other_id}"})
            return
    kept_vectors.append((row["id"], vector))
    outcome.kept.append(row)


__all__ = ["CRITERIA", "TYPES", "Outcome", "Settings", "build", "passes", "type_plan"]
