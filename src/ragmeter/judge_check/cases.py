"""Check cases built from the user's own rows: each a row whose right score is known without
a model (high: the answer is copied from a context; low: it comes from another row, or a
context's sentence is negated or has a fact swapped).

A case is a plain row for ragmeter's metrics plus what it checks. Each source row's random
choices come from its own seeded generator (seed + row id), so a row's cases do not change
when other rows are added or `--limit` cuts the data.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from ragmeter.judge_check import attacks
from ragmeter.judge_check.claims import claim_sentences
from ragmeter.judge_check.conflicts import CONFLICT_DESCRIPTIONS, conflicts
from ragmeter.judge_check.copies import copies, shuffled
from ragmeter.judge_check.perturb import changed_words, entities, negate, numbers, swap_fact
from ragmeter.metrics.faithfulness import is_short
from ragmeter.metrics.literals import literals

#: high/low: the score; flagged: the row's evidence flags the contexts' disagreement
Expect = Literal["high", "low", "flagged"]

@dataclass(frozen=True)
class Source:
    """One row of the user's data as the checks see it."""

    id: str
    contexts: list[str]
    question: str | None = None
    response: str | None = None
    reference: str | None = None
    #: contexts the row says answer its question (reference_contexts, or retrieved ids that
    #: are reference ids); None when it says nothing (its retrieved contexts are then assumed)
    relevant: list[str] | None = None


@dataclass(frozen=True)
class Case:
    """One row to score, and the score it should get."""

    id: str
    family: str
    check: str
    expect: Expect
    k: int
    source: str
    row: dict[str, Any]
    #: what was changed, for a person reading a failure (e.g. "swapped 1998 -> 2013")
    edit: str = ""
    assumed: bool = False  # the high case rests on the row's own contexts being relevant


@dataclass(frozen=True)
class Check:
    name: str
    expect: Expect
    description: str


@dataclass
class Family:
    """The checks of one kind of metric, and which rows can make them."""

    name: str
    checks: tuple[Check, ...]
    needs_question: bool
    sizes_apply: bool  # the checks run at every prompt size (k contexts)
    build: Callable[[Source, list[Source], int, random.Random, str], Iterator[Case]] = field(repr=False)


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _absent(sentence: str, contexts: list[str]) -> bool:
    needle = _norm(sentence)
    return not any(needle in _norm(c) for c in contexts)


def rng_for(seed: int, *parts: Any) -> random.Random:
    digest = hashlib.sha256("\x00".join(map(str, (seed, *parts))).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def _others(source: Source, pool: list[Source], rng: random.Random, count: int) -> list[Source]:
    """`count` other rows, seeded, none with the same first context."""
    others = [s for s in pool if s.id != source.id and s.contexts and s.contexts[0] != source.contexts[0]]
    return rng.sample(others, min(count, len(others)))


def _other_questions(source: Source, pool: list[Source], rng: random.Random, keep: Callable[[Source], bool]
                     ) -> list[Source]:
    """Seeded other rows that ask another question and pass `keep`."""
    return [o for o in _others(source, pool, rng, 20) if o.question != source.question and keep(o)]


def _source_prompt(source: Source, pool: list[Source], k: int,
                   rng: random.Random) -> tuple[str, list[str], list[Source]] | None:
    """The row's first context with a claim-like sentence, placed at a seeded position among
    k-1 other rows' first contexts: (that context, the prompt's contexts, the other rows)."""
    context = next((c for c in source.contexts if claim_sentences(c)), None)
    if context is None:
        return None
    distractors = _others(source, pool, rng, k - 1)
    if len(distractors) < k - 1:
        return None
    contexts = [d.contexts[0] for d in distractors]
    contexts.insert(rng.randrange(len(contexts) + 1), context)
    return context, contexts, distractors


def _base_row(source: Source) -> dict[str, Any]:
    row = {"user_input": source.question, "response": source.response or source.reference,
           "reference": source.reference}
    return {k: v for k, v in row.items() if v}


def _case(family: str, check: Check, k: int, source: Source, row: dict[str, Any], edit: str = "",
          assumed: bool = False) -> Case:
    case_id = f"{family}/{check.name}/k{k}/{source.id}"
    return Case(case_id, family, check.name, check.expect, k, source.id, {"id": case_id, **row}, edit, assumed)


GROUNDING = (
    Check("verbatim_sentence", "high", "the answer is a sentence copied from a context"),
    Check("whole_context", "high", "the answer is a whole context"),
    Check("unrelated_sentence", "low", "the answer is a sentence from another row's context"),
    Check("negated_sentence", "low", "the answer is a context's sentence, negated"),
    Check("swapped_fact", "low", "the answer is a context's sentence with a number or name from another row"),
    Check("short_copied", "high", "a short answer copied from a context, with its question"),
    Check("short_other", "low", "a short answer from another row, with this row's question"),
    Check("copied_span", "high", "a long span copied from a context, code and markup included"),
    Check("copied_span_changed", "low", "the same span with one URL, number, flag or name changed inside it"),
    Check("repeated_line_changed", "low", "a context's line with one detail changed, repeated four times"),
    *(Check(name, "low", text) for name, text in attacks.INJECTED_DESCRIPTIONS.items()),
    *(Check(name, "high" if name in attacks.REFORMATTED_HIGH else "low", text)
      for name, text in attacks.REFORMATTED_DESCRIPTIONS.items()),
    *(Check(name, "flagged", text) for name, text in CONFLICT_DESCRIPTIONS.items()),
)


#: the answer-side checks (attacks.py), made from the first this-many rows only: 11 cases a row
#: would more than double a check's cost, and the rates are read well enough from 60 cases each
ATTACKS = frozenset([*attacks.INJECTED_DESCRIPTIONS, *attacks.REFORMATTED_DESCRIPTIONS, *CONFLICT_DESCRIPTIONS])
ATTACK_SOURCES = 12


def grounding_cases(source: Source, pool: list[Source], k: int, rng: random.Random,
                    language: str) -> Iterator[Case]:
    """Faithfulness-style checks: the same prompt contexts, five answers."""
    found = _source_prompt(source, pool, k, rng)
    if found is None:
        return
    context, contexts, distractors = found
    sentences = claim_sentences(context)
    base = {**_base_row(source), "retrieved_contexts": contexts}
    checks = {c.name: c for c in GROUNDING}

    def case(name: str, response: str, edit: str = "") -> Case:
        return _case("grounding", checks[name], k, source, {**base, "response": response}, edit)

    def case_with(name: str, fields: dict[str, Any], edit: str) -> Case:
        return _case("grounding", checks[name], k, source, {**base, **fields}, edit)

    verbatim = rng.choice(sentences)
    yield case("verbatim_sentence", verbatim)
    yield case("whole_context", context.strip())
    unrelated = _unrelated_sentence(source, pool, distractors, contexts, rng)
    if unrelated is not None:
        yield case("unrelated_sentence", unrelated)
    negated = next(((s, n) for s in shuffled(sentences, rng) if (n := negate(s, language))), None)
    if negated is not None:
        yield case("negated_sentence", negated[1], f"negated: {changed_words(negated[0], negated[1])} "
                                                   f"(was: {negated[0]})")
    swapped = _swapped(source, pool, sentences, contexts, rng)
    if swapped is not None:
        yield case("swapped_fact", swapped[0], f"swapped {swapped[1]} -> {swapped[2]}")
    short = _short_answers(source, pool, sentences, contexts, rng)
    if short is not None:
        question, copied, other, how = short
        yield case_with("short_copied", {"user_input": question, "response": copied}, how)
        yield case_with("short_other", {"user_input": question, "response": other}, how)
    others = [x for s in pool if s.id != source.id for c in s.contexts[:1] for x in literals(c)]
    for name, response, edit in copies(context, contexts, others, rng):
        yield case(name, response, edit)
    if k == 1:  # the attack is in the answer: the smallest prompt is enough (attacks.py)
        wrong = negated[1] if negated is not None else swapped[0] if swapped is not None else None
        if wrong is not None:
            for name, response in attacks.injected(wrong, language):
                yield case(name, response, f"appended to: {wrong}")
        for name, response in attacks.reformatted(sentences, wrong, language, rng):
            yield case(name, response)
        for name, response, disagreeing, edit in conflicts(sentences, contexts, others, language, rng):
            # size k is the row's own contexts; the contradicting chunk comes on top
            yield case_with(name, {"response": response, "retrieved_contexts": disagreeing}, edit)


def _unrelated_sentence(source: Source, pool: list[Source], distractors: list[Source], contexts: list[str],
                        rng: random.Random) -> str | None:
    taken = {source.id, *(d.id for d in distractors)}
    for other in _shuffled_sources([s for s in pool if s.id not in taken], rng):
        found = [s for c in other.contexts for s in claim_sentences(c) if _absent(s, contexts)]
        if found:
            return rng.choice(found)
    return None


def _shuffled_sources(sources: list[Source], rng: random.Random) -> list[Source]:
    return shuffled(sources, rng)[:20]


def _swapped(source: Source, pool: list[Source], sentences: list[str], contexts: list[str],
             rng: random.Random) -> tuple[str, str, str] | None:
    text = "\n".join(contexts)
    others = " ".join(c for s in pool if s.id != source.id for c in s.contexts[:1])
    pool_numbers, pool_entities = numbers(others), entities(others)
    for sentence in shuffled(sentences, rng):
        swapped = swap_fact(sentence, text, pool_numbers, pool_entities, rng)
        if swapped is not None:
            return swapped
    return None


def _is_short(text: str | None) -> bool:
    """Short as the faithfulness metric counts it: such an answer is judged with its question."""
    return bool(text) and is_short(str(text))


def _short_answers(source: Source, pool: list[Source], sentences: list[str], contexts: list[str],
                   rng: random.Random) -> tuple[str, str, str, str] | None:
    """(question, a short answer the contexts hold, another row's short answer, how it was
    made). The row's own question and short reference where a context holds it word for
    word; else a fill-in question from one of the context's sentences with its number or
    name blanked, and another row's number or name the contexts never mention."""
    text = _norm("\n".join(contexts))
    if source.question and _is_short(source.reference) and _norm(source.reference or "") in text:
        others = [o.reference for o in _shuffled_sources(list(pool), rng)
                  if o.id != source.id and _is_short(o.reference) and _norm(o.reference or "") not in text]
        if others:
            return source.question, str(source.reference), str(others[0]), "the row's question and reference"
    others_text = " ".join(c for s in pool if s.id != source.id for c in s.contexts[:1])
    kinds = ((numbers, numbers(others_text)), (entities, entities(others_text)))
    for sentence in shuffled(sentences, rng):
        for find, pool_values in kinds:
            fill = next((f for f in find(sentence) if _is_short(f) and len(f) > 1), None)
            choices = sorted({p for p in pool_values if _norm(p) not in text and _is_short(p)})
            if fill is None or not choices:
                continue
            blanked = sentence.replace(fill, "___", 1)
            return f'What fills the blank in "{blanked}"?', fill, rng.choice(choices), f"blanked {fill}"
    return None


CONTEXT = (
    Check("own_context", "high", "the row's own relevant context"),
    Check("other_context", "low", "a context from another row"),
)


def context_cases(source: Source, pool: list[Source], k: int, rng: random.Random, language: str) -> Iterator[Case]:
    """Context relevance and precision: the row's relevant context against another row's."""
    relevant = source.relevant or source.contexts
    others = _other_questions(source, pool, rng, lambda o: o.contexts[0] not in relevant)[:1]
    if not relevant or not others:
        return
    base = _base_row(source)
    yield _case("context", CONTEXT[0], k, source, {**base, "retrieved_contexts": relevant},
                assumed=source.relevant is None)
    yield _case("context", CONTEXT[1], k, source, {**base, "retrieved_contexts": others[0].contexts[:1]})


RECALL = (
    Check("context_sentences", "high", "the reference is made of a context's sentences"),
    Check("other_reference", "low", "the reference comes from another row"),
)


def recall_cases(source: Source, pool: list[Source], k: int, rng: random.Random, language: str) -> Iterator[Case]:
    """Context recall: a reference the contexts hold against one they do not."""
    found = _source_prompt(source, pool, k, rng)
    if found is None:
        return
    context, contexts, distractors = found
    sentences = claim_sentences(context)
    start = rng.randrange(len(sentences))
    attributable = " ".join(sentences[start:start + 2])
    base = {**_base_row(source), "retrieved_contexts": contexts}
    yield _case("recall", RECALL[0], k, source, {**base, "reference": attributable})
    taken = {source.id, *(d.id for d in distractors)}
    for other in _shuffled_sources([s for s in pool if s.id not in taken], rng):
        reference = other.reference or next(iter(claim_sentences(other.contexts[0])), None)
        if reference and _absent(reference, contexts):
            yield _case("recall", RECALL[1], k, source, {**base, "reference": reference})
            return


ANSWER = (
    Check("own_answer", "high", "the row's own answer (its reference where it has one)"),
    Check("other_answer", "low", "an answer to another row's question"),
)


def answer_cases(source: Source, pool: list[Source], k: int, rng: random.Random, language: str) -> Iterator[Case]:
    """Answer relevancy: the row's answer against another row's."""
    own = source.reference or source.response
    others = _other_questions(source, pool, rng, lambda o: bool(o.reference or o.response))
    if not own or not others:
        return
    base = {"user_input": source.question, "retrieved_contexts": source.contexts}
    yield _case("answer", ANSWER[0], k, source, {**base, "response": own}, assumed=source.reference is None)
    yield _case("answer", ANSWER[1], k, source, {**base, "response": others[0].reference or others[0].response})


FAMILIES = {
    "grounding": Family("grounding", GROUNDING, needs_question=False, sizes_apply=True, build=grounding_cases),
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


def build_cases(family: Family, sources: list[Source], sizes: tuple[int, ...], seed: int,
                language: str) -> list[Case]:
    """Every case of one family, source by source, size by size."""
    usable = [s for s in sources if s.contexts and (s.question or not family.needs_question)]
    cases: list[Case] = []
    for n, source in enumerate(usable):
        for k in (sizes if family.sizes_apply else (1,)):
            made = family.build(source, usable, k, rng_for(seed, family.name, source.id, k), language)
            cases.extend(c for c in made if n < ATTACK_SOURCES or c.check not in ATTACKS)
    return cases
