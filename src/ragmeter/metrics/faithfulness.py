"""Ragas Faithfulness: share of the response's statements the retrieved context supports.

Statements come from one of four places (`statements:`):
- `judge` (Ragas): the judge writes them (bounded list, repeats dropped), a second call
  gives one verdict per statement. Small judges invent statements here.
- `sentences`: the response split into sentences deterministically, one call.
- `parts`: the response cut where a reader would cite it (sentences, list items, lines,
  code blocks: reading/blocks.py), repeats once, one call; a one-sentence answer is one part.
- `response`: the whole response as one claim, one call.
Parts combine by `combine:` (`mean`, Ragas's share, or `min`, the weakest part), and a part
stating a literal detail (URL, flag, identifier, number) that no retrieved context holds
counts as unsupported with `literals: score` (reading/literals.py).
A short answer ("httplib2") is judged with its question (`short_answers`, below).
Each verdict counts as P(supported) with `judgment: probability` (the default), or 0/1.
Zero statements is unscored with a reason (Ragas gives NaN).
Einstein example, judge statements and 0/1 verdicts: 1 of 2 inferable -> 0.5.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable, count, supported_share, text
from ragmeter.metrics.judgment import JudgedOptions, Weighed, mode_of, p_one, weigh_verdicts
from ragmeter.metrics.schemas import claim_limit, statements, unique, verdicts
from ragmeter.reading.addressed import FLAG as ADDRESSED
from ragmeter.reading.addressed import reader, split_addressed
from ragmeter.reading.blocks import parts
from ragmeter.reading.conflicts import FLAG as DISAGREE
from ragmeter.reading.conflicts import disagreements
from ragmeter.reading.excerpts import excerpts
from ragmeter.reading.languages import not_covered
from ragmeter.reading.literals import missing_each
from ragmeter.reading.sentences import split_sentences
from ragmeter.reading.words import match_words as words
from ragmeter.samples import Sample

NO_STATEMENTS = "the judge found no statements in the response"
#: answers of at most this many words are judged with their question (`short_answers`)
SHORT_WORDS = 5
#: answer words a rewrite states rather than repeats
POLAR = {"yes", "true", "false"}
#: parts judged at most: beyond this, neighbouring parts are judged together (one call's length)
MAX_PARTS = 8


def is_short(answer: str) -> bool:
    """A name, a number, a fragment, "yes": at most SHORT_WORDS words, and not a sentence of
    four or more words with its stop ("France is in Western Europe." stands alone)."""
    n = len(answer.split())
    return 0 < n <= SHORT_WORDS and not (n >= 4 and answer.rstrip().endswith((".", "!", "?")))


def faithfulness(flags: list[float]) -> float:
    return supported_share(flags, NO_STATEMENTS)


class FaithfulnessOptions(JudgedOptions):
    statements: Literal["response", "sentences", "parts", "judge"] = "response"
    #: how the parts' verdicts make the score: `mean` (Ragas: the share supported) or `min`
    #: (the least supported part: an answer is as faithful as its weakest statement)
    combine: Literal["mean", "min"] = "mean"
    #: `score`: a part that states a URL, flag, identifier, version or number found in no
    #: retrieved context counts as unsupported; `evidence`: listed only; `off`
    literals: Literal["score", "evidence", "off"] = "score"
    #: `excerpts`: several contexts, or a long one, cut to the sentences the claims are about (reading/excerpts.py)
    contexts: Literal["full", "excerpts"] = "excerpts"
    #: a short answer ("httplib2", "0-99", "yes") is no claim alone: `question` (the default)
    #: judges "question answer" as the claim; `rewrite` has the judge write it out as one
    #: standalone statement first (Ragas's statements prompt, one statement, a call more);
    #: `alone` judges the answer as it is. Rows without a question are judged alone. Measured
    #: on XQuAD's human answers (docs/judge-check.md): only `question` tells a wrong span of
    #: the context from the right one (ROC-AUC 0.754; alone 0.416), at no extra call.
    short_answers: Literal["question", "rewrite", "alone"] = "question"
    #: record each statement's token evidence (in-process llama.cpp judges): how much the
    #: contexts make each of its tokens more or less likely (conditional PMI, minimum and mean)
    #: and the token they make least likely ("weakest": often the word a contradiction turns
    #: on). Scores are unchanged; about 1.2x the judge time (judges/llamacpp/token_evidence.py).
    token_evidence: bool = False
    #: `flag`: where one chunk holds a statement's detail and another states a different one
    #: (or negates it), the evidence shows both spans and the row is counted in the summary
    #: (reading/conflicts.py; no calls, the score unchanged); `off`
    disagreement: Literal["flag", "off"] = "flag"
    #: `drop`: sentences that address the judge (a planted verdict or score, an instruction
    #: to the evaluator, the answer vouching for its own support) are not judged, listed in
    #: the evidence and flagged (reading/addressed.py); `off`: judged as any sentence
    addressed: Literal["drop", "off"] = "drop"


class Faithfulness(Metric):
    name = "faithfulness"
    description = ("Is the response grounded? Share of the response's statements that can be inferred "
                   "from the retrieved contexts (Ragas Faithfulness).")
    required: tuple[str, ...] = ("user_input", "response", "retrieved_contexts")
    prompt_names = ("statements", "verdicts")
    aligned_prompts = ("verdicts",)
    #: 2: block excerpts and the literal check (issue 48); 3: sentences addressed to the judge
    #: are not judged (issue 51); scores of earlier versions' runs differ
    version = "3"
    Options = FaithfulnessOptions
    reads_language = True

    def __init__(self, label: str | None = None, **options: Any) -> None:
        super().__init__(label, **options)
        if self.options.statements != "judge":  # then the question is optional: read for short answers only
            self.required = ("response", "retrieved_contexts")

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        if prompt_name == "statements":
            return statements(1 if is_short(text(inputs["answer"])) else claim_limit(text(inputs["answer"])))
        return verdicts(count(inputs["statements"]))

    async def claims(self, sample: Sample, ctx: MetricContext) -> tuple[list[str], int]:
        """The statements to judge, and how many repeats the judge wrote that were dropped."""
        response = sample.response or ""
        if self.with_question(sample):
            return await self.standalone(str(sample.user_input), response.strip(), ctx), 0
        if self.options.statements == "response":
            return [response.strip()], 0
        if self.options.statements == "sentences":
            return split_sentences(response), 0
        if self.options.statements == "parts":
            found, repeats = parts(response)
            return _grouped(found, MAX_PARTS), repeats
        found = await self.ask(ctx, "statements", {"question": sample.user_input, "answer": response})
        return unique(found.statements), len(found.statements) - len(unique(found.statements))

    async def standalone(self, question: str, answer: str, ctx: MetricContext) -> list[str]:
        """A short answer as the claim it makes with its question. A rewrite that drops the
        answer's own words (but yes or no) is not trusted: question and answer are judged
        together then."""
        if self.options.short_answers == "rewrite":
            found = unique((await self.ask(ctx, "statements", {"question": question, "answer": answer})).statements)
            if found and (set(words(answer)) - POLAR <= set(words(found[0]))):
                return found
        return [f"{question.strip()} {answer}"]

    def with_question(self, sample: Sample) -> bool:
        """A short answer judged with its question (the judge's own statements read it anyway)."""
        return bool(sample.user_input) and self.options.short_answers != "alone" and \
            self.options.statements != "judge" and is_short(sample.response or "")

    def statements_from(self, sample: Sample) -> str:
        """Where the judged statements came from, for the evidence."""
        short = self.with_question(sample)
        return f"short answer: {self.options.short_answers}" if short else self.options.statements

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        sample, dropped = self.without_addressed(sample, ctx.language)
        claims, repeats = await self.claims(sample, ctx)
        if not claims:
            raise Unscorable(NO_STATEMENTS)
        contexts = sample.retrieved_contexts or []
        shown = excerpts("\n\n".join(claims), contexts, question=sample.user_input) \
            if self.options.contexts == "excerpts" else contexts
        judged = await self.answer(ctx, "verdicts", {"contexts": shown, "statements": claims},
                                   evidence=("statements", "contexts") if self.options.token_evidence else None)
        weighed = weigh_verdicts(judged, judged.parsed.verdicts, self.options.judgment)
        absent = missing_each(claims, contexts, sample.user_input, ctx.language) if self.options.literals != "off" \
            else [[] for _ in claims]
        values = [0.0 if gone and self.options.literals == "score" else w.value for w, gone in zip(weighed, absent)]
        tokens = judged.evidence or [None] * len(claims)
        rows = zip(claims, judged.parsed.verdicts, weighed, tokens, absent)
        evidence = {"statements": [_statement(*row) for row in rows],
                    "statements_from": self.statements_from(sample), "repeats_dropped": repeats,
                    "judgment": mode_of(weighed), "combine": self.options.combine,
                    **({"excerpts": shown} if shown is not contexts else {}),
                    **self.disagreeing(claims, contexts, ctx.language)}
        if dropped:
            evidence = {**evidence, ADDRESSED: dropped, "flags": [*evidence.get("flags", []), ADDRESSED]}
        if gap := not_covered(ctx.language):
            evidence = {**evidence, "reading": gap}
        labels = sum(v.verdict and not (gone and self.options.literals == "score")
                     for v, gone in zip(judged.parsed.verdicts, absent))
        value = min(values) if self.options.combine == "min" and values else faithfulness(values)
        disagree = len(evidence.get(DISAGREE, []))
        return Score(value, f"{labels} of {len(claims)} statements supported by the contexts"
                     + (f"; not in any context: {', '.join(x for gone in absent for x in gone)[:200]}"
                        if any(absent) else "")
                     + (f"; the contexts disagree about {disagree} statement(s)" if disagree else "")
                     + (f"; not judged, addressed to the judge: {' | '.join(dropped)[:200]}" if dropped else ""),
                     evidence)

    def without_addressed(self, sample: Sample, language: str) -> tuple[Sample, list[str]]:
        """The sample with the answer's sentences that address the judge taken out, and those
        sentences. An answer that only addresses the judge makes no statement (unscored)."""
        response = sample.response or ""
        found = reader(language)
        if self.options.addressed == "off" or not response.strip() or found is None:
            return sample, []
        rest, dropped = split_addressed(response, found)
        if not dropped:
            return sample, []
        if not rest:
            raise Unscorable(f"{NO_STATEMENTS}: the answer only addresses the judge ({' | '.join(dropped)[:200]})",
                             {ADDRESSED: dropped, "flags": [ADDRESSED]})
        return sample.model_copy(update={"response": rest}), dropped

    def disagreeing(self, claims: list[str], contexts: list[str], language: str) -> dict[str, Any]:
        """`contexts_disagree` and the row's flag, where two chunks disagree about a statement."""
        if self.options.disagreement == "off" or len(contexts) < 2:
            return {}
        found = disagreements(claims, contexts, language)
        return {DISAGREE: found, "flags": [DISAGREE]} if found else {}


def _statement(statement: str, verdict: Any, weighed: Weighed, tokens: Any, absent: list[str]) -> dict[str, Any]:
    """One judged statement as the evidence shows it, with the details no context holds."""
    return {"statement": statement, "verdict": verdict.verdict, "p_supported": p_one(weighed), "reason": verdict.reason,
            **({"token_pmi": tokens} if tokens else {}), **({"not_in_contexts": absent} if absent else {})}


def _grouped(items: list[str], limit: int) -> list[str]:
    """At most `limit` items: neighbours joined into near-equal runs when there are more."""
    if len(items) <= limit:
        return items
    size = -(-len(items) // limit)
    return ["\n".join(items[i:i + size]) for i in range(0, len(items), size)]
