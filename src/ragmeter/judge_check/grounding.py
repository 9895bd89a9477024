"""The grounding family (faithfulness): the same prompt contexts with answers whose right
score is known without a model: copied from a context (high), from another row, negated or
with a fact swapped (low), long copied spans with a detail changed (copies.py), answers that
vote for themselves or are reformatted (attacks.py), and a second chunk contradicting a copied
sentence (conflicts.py).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from ragmeter.judge_check import attacks
from ragmeter.judge_check.cases import (
    Case,
    Check,
    Source,
    absent,
    base_row,
    make_case,
    norm,
    shuffled_sources,
    source_prompt,
)
from ragmeter.judge_check.claims import claim_sentences
from ragmeter.judge_check.conflicts import CONFLICT_DESCRIPTIONS, conflicts
from ragmeter.judge_check.copies import copies, shuffled
from ragmeter.judge_check.perturb import changed_words, entities, negate, numbers, swap_fact
from ragmeter.metrics.faithfulness import is_short
from ragmeter.reading.literals import literals

GROUNDING = (
    Check("verbatim_sentence", "high", "the answer is a sentence copied from a context"),
    Check("whole_context", "high", "the answer is a whole context"),
    Check("unrelated_sentence", "low", "the answer is a sentence from another row's context"),
    Check("negated_sentence", "low", "the answer is a context's sentence, negated"),
    Check("swapped_fact", "low", "the answer is a context's sentence with a number or name from another row"),
    Check("short_copied", "high", "a short answer copied from a context, with its question"),
    Check("short_other", "low", "a short answer from another row, with this row's question"),
    Check("copied_span", "high", "a long span copied from a context, code and markup included"),
    Check("copied_span_changed", "low", "the same span with one URL, number, flag or name changed inside it",
          "literals"),
    Check("repeated_line_changed", "low", "a context's line with one detail changed, repeated four times",
          "literals"),
    *(Check(name, "low", text, "views") for name, text in attacks.INJECTED_DESCRIPTIONS.items()),
    *(Check(name, "high" if name in attacks.REFORMATTED_HIGH else "low", text)
      for name, text in attacks.REFORMATTED_DESCRIPTIONS.items()),
    *(Check(name, "flagged", text, "conflicts") for name, text in CONFLICT_DESCRIPTIONS.items()),
)


#: the answer-side checks (attacks.py, conflicts.py), made from the first rows only (Family.limited)
ATTACKS = frozenset([*attacks.INJECTED_DESCRIPTIONS, *attacks.REFORMATTED_DESCRIPTIONS, *CONFLICT_DESCRIPTIONS])


def grounding_cases(source: Source, pool: list[Source], k: int, rng: random.Random,
                    language: str) -> Iterator[Case]:
    """Faithfulness-style checks: the same prompt contexts, five answers."""
    found = source_prompt(source, pool, k, rng)
    if found is None:
        return
    context, contexts, distractors = found
    sentences = claim_sentences(context)
    base = {**base_row(source), "retrieved_contexts": contexts}
    checks = {c.name: c for c in GROUNDING}

    def case(name: str, response: str, edit: str = "") -> Case:
        return make_case("grounding", checks[name], k, source, {**base, "response": response}, edit)

    def case_with(name: str, fields: dict[str, Any], edit: str) -> Case:
        return make_case("grounding", checks[name], k, source, {**base, **fields}, edit)

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
    for other in shuffled_sources([s for s in pool if s.id not in taken], rng):
        found = [s for c in other.contexts for s in claim_sentences(c) if absent(s, contexts)]
        if found:
            return rng.choice(found)
    return None


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
    text = norm("\n".join(contexts))
    if source.question and _is_short(source.reference) and norm(source.reference or "") in text:
        others = [o.reference for o in shuffled_sources(list(pool), rng)
                  if o.id != source.id and _is_short(o.reference) and norm(o.reference or "") not in text]
        if others:
            return source.question, str(source.reference), str(others[0]), "the row's question and reference"
    others_text = " ".join(c for s in pool if s.id != source.id for c in s.contexts[:1])
    kinds = ((numbers, numbers(others_text)), (entities, entities(others_text)))
    for sentence in shuffled(sentences, rng):
        for find, pool_values in kinds:
            fill = next((f for f in find(sentence) if _is_short(f) and len(f) > 1), None)
            choices = sorted({p for p in pool_values if norm(p) not in text and _is_short(p)})
            if fill is None or not choices:
                continue
            blanked = sentence.replace(fill, "___", 1)
            return f'What fills the blank in "{blanked}"?', fill, rng.choice(choices), f"blanked {fill}"
    return None
