"""The judge check's families beside grounding (context relevance and precision, context
recall, answer relevancy), and which metric gets which family's checks.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from ragmeter.judge_check.cases import (
    Case,
    Check,
    Family,
    Source,
    absent,
    base_row,
    make_case,
    other_questions,
    shuffled_sources,
    source_prompt,
)
from ragmeter.judge_check.claims import claim_sentences
from ragmeter.judge_check.grounding import ATTACKS, GROUNDING, grounding_cases

CONTEXT = (
    Check("own_context", "high", "the row's own relevant context"),
    Check("other_context", "low", "a context from another row"),
)


def context_cases(source: Source, pool: list[Source], k: int, rng: random.Random, language: str) -> Iterator[Case]:
    """Context relevance and precision: the row's relevant context against another row's."""
    relevant = source.relevant or source.contexts
    others = other_questions(source, pool, rng, lambda o: o.contexts[0] not in relevant)[:1]
    if not relevant or not others:
        return
    base = base_row(source)
    yield make_case("context", CONTEXT[0], k, source, {**base, "retrieved_contexts": relevant},
                assumed=source.relevant is None)
    yield make_case("context", CONTEXT[1], k, source, {**base, "retrieved_contexts": others[0].contexts[:1]})


RECALL = (
    Check("context_sentences", "high", "the reference is made of a context's sentences"),
    Check("other_reference", "low", "the reference comes from another row"),
)


def recall_cases(source: Source, pool: list[Source], k: int, rng: random.Random, language: str) -> Iterator[Case]:
    """Context recall: a reference the contexts hold against one they do not."""
    found = source_prompt(source, pool, k, rng)
    if found is None:
        return
    context, contexts, distractors = found
    sentences = claim_sentences(context)
    start = rng.randrange(len(sentences))
    attributable = " ".join(sentences[start:start + 2])
    base = {**base_row(source), "retrieved_contexts": contexts}
    yield make_case("recall", RECALL[0], k, source, {**base, "reference": attributable})
    taken = {source.id, *(d.id for d in distractors)}
    for other in shuffled_sources([s for s in pool if s.id not in taken], rng):
        reference = other.reference or next(iter(claim_sentences(other.contexts[0])), None)
        if reference and absent(reference, contexts):
            yield make_case("recall", RECALL[1], k, source, {**base, "reference": reference})
            return


ANSWER = (
    Check("own_answer", "high", "the row's own answer (its reference where it has one)"),
    Check("other_answer", "low", "an answer to another row's question"),
)


def answer_cases(source: Source, pool: list[Source], k: int, rng: random.Random, language: str) -> Iterator[Case]:
    """Answer relevancy: the row's answer against another row's."""
    own = source.reference or source.response
    others = other_questions(source, pool, rng, lambda o: bool(o.reference or o.response))
    if not own or not others:
        return
    base = {"user_input": source.question, "retrieved_contexts": source.contexts}
    yield make_case("answer", ANSWER[0], k, source, {**base, "response": own}, assumed=source.reference is None)
    yield make_case("answer", ANSWER[1], k, source, {**base, "response": others[0].reference or others[0].response})


FAMILIES = {
    "grounding": Family("grounding", GROUNDING, needs_question=False, sizes_apply=True, build=grounding_cases,
                        limited=ATTACKS),
    "context": Family("context", CONTEXT, needs_question=True, sizes_apply=False, build=context_cases),
    "recall": Family("recall", RECALL, needs_question=True, sizes_apply=True, build=recall_cases),
    "answer": Family("answer", ANSWER, needs_question=True, sizes_apply=False, build=answer_cases),
}
#: which checks each metric gets
METRIC_FAMILY = {
    "faithfulness": "grounding",
    "llamaindex_faithfulness": "grounding",
    "context_relevance": "context",
    "context_precision": "context",
    "context_precision_with_reference": "context",
    "context_recall": "recall",
    "response_relevancy": "answer",
}


