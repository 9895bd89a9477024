"""Ragas ContextRelevance (NVIDIA): two judge templates rate the joined contexts 0/1/2 for
the question; each rating / 2, averaged; if only one rating is valid, that one is used.
A context identical to the question scores 0 without a call, as in Ragas. Every other row is
judged (version 3): `unshared: zero` scores contexts that share no word the question asks
about 0 without a call (the default of version 2: on the human-labelled sets 28 of 29 such
rows are labelled irrelevant; ROC-AUC ClapNQ 0.793 -> 0.798, XQuAD-es 0.806 -> 0.865), but a
word shared is no rule that holds by construction: a passage in other words ("remove a login"
for "delete a user account", "vehicle is priced" for "car cost", "command-line interface" for
"CLI") scored 0 for 5 of 14 relevant English contexts, which dense retrievers
return (issue 77 item 4; judged they score 0.93).
`templates: first` asks the first template only (half the calls; measured level with both,
not the default: Ragas averages the two).

`signal: likelihood` (in-process llama.cpp judges) reads relevance from the question's
tokens instead: how much more likely the contexts make them (the mean conditional PMI of the
question given the contexts; query likelihood, Zhuang et al. 2023), through a logistic line
fitted on ClapNQ's human answerability labels for the bundled judge. One prefill pair, no
decoding. Measured in docs/judge-check.md: XQuAD-es ROC-AUC 0.943 against the ratings' 0.806,
ClapNQ 0.826 against 0.792.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel

from ragmeter.errors import UnparseableReply
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.metrics.judgment import JudgedOptions, Weighed, mode_of, weigh
from ragmeter.metrics.schemas import Rating
from ragmeter.reading.identify import written_in
from ragmeter.reading.questions import asked_words, folded_words
from ragmeter.samples import Sample

TEMPLATES = ("rating1", "rating2")
RATING = {0: 0.0, 1: 1.0, 2: 2.0}
UNSHARED = "the contexts share no word the question asks about: 0 without a judge call"
NEEDS_TOKENS = ("signal: likelihood needs a judge that reads prompt-token probabilities (an in-process "
                "llama.cpp judge)")


class RelevanceOptions(JudgedOptions):
    #: `ratings`: the two Ragas/NVIDIA 0-2 ratings; `likelihood`: the question's mean token PMI
    #: given the contexts through a fitted line (in-process llama.cpp judges)
    signal: Literal["ratings", "likelihood"] = "ratings"
    #: `judge`: every row is judged; `zero`: contexts that share no word the question asks
    #: about (its content words, the language's stop and asking words aside, plurals folded)
    #: score 0 without a judge call (with `signal: ratings`, where it was measured): a synonym
    #: or another word form is no shared word, so a relevant passage can score 0
    unshared: Literal["zero", "judge"] = "judge"
    #: `both`: Ragas's two rating templates, averaged; `first`: the first alone (one call)
    templates: Literal["both", "first"] = "both"


def shares_asked_word(question: str, context: str, language: str) -> bool:
    """Whether the contexts hold a word the question asks about (reading/questions.py's
    asked words, plurals folded). Only where both read as written in the run's language is
    "no" an answer (a Spanish passage retrieved for an English question shares no word and
    may answer it): elsewhere, and for a question that asks about no word, True."""
    asked = folded_words(" ".join(asked_words(question, language)))
    if not asked or not (written_in(question, language) and written_in(context, language)):
        return True
    return bool(asked & folded_words(context))


def relevance(ratings: list[float | None]) -> float:
    """Each (expected) rating / 2, averaged over the valid ones."""
    valid = [r / 2 for r in ratings if r is not None]
    return sum(valid) / len(valid)


class ContextRelevance(Metric[RelevanceOptions]):
    name = "context_relevance"
    description = ("Are the retrieved contexts relevant to the question? Two judge templates rate 0/1/2, "
                   "normalised and averaged (Ragas/NVIDIA).")
    required = ("user_input", "retrieved_contexts")
    prompt_names = (*TEMPLATES, "likelihood")
    aligned_prompts = TEMPLATES
    row_first_prompts = TEMPLATES
    #: 2: contexts that share no word the question asks about score 0 without a call (issue 63);
    #: 3: every row judged again by default (issue 77 item 4: synonyms share no word)
    version = "3"

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return Rating

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        question = (sample.user_input or "").strip()
        context = "\n".join(sample.retrieved_contexts or [])
        if context.strip() == question:
            return Score(0.0, "context is identical to the question (0, as Ragas)", {"ratings": []})
        if self.options.signal == "likelihood":
            return await self.likelihood(question, context, ctx)
        if self.options.unshared == "zero" and not shares_asked_word(question, context, ctx.language):
            return Score(0.0, UNSHARED, {"ratings": [], "no_judge_call": UNSHARED})  # measured for the ratings only
        ratings: list[int | None] = []
        weighed: list[Weighed | None] = []
        failures: list[str] = []
        chunks = list(sample.retrieved_contexts or [])
        for template in TEMPLATES if self.options.templates == "both" else TEMPLATES[:1]:
            # row-first, the chunks are read numbered, as every other metric of the row reads them
            given = chunks if self.row_first(ctx, template, context) else context
            try:
                out = await self.answer(ctx, template, {"question": question, "context": given}, max_tokens=16)
                ratings.append(out.parsed.rating)
                weighed.append(weigh(out, "rating", out.parsed.rating, RATING, self.options.judgment))
            except UnparseableReply as exc:
                ratings.append(None)
                weighed.append(None)
                failures.append(f"{template}: {exc}")
        if all(r is None for r in ratings):
            raise UnparseableReply("; ".join(failures))
        value = relevance([w.value if w else None for w in weighed])
        valid = [w for w in weighed if w]
        expected = [w.value for w in valid]
        reason = f"ratings {ratings} (0-2 each)"
        if any(abs(e - r) > 0.005 for e, r in zip(expected, [r for r in ratings if r is not None])):
            # the score is the mean expected rating under the judge's probabilities, not the top labels
            reason += f"; expected under the judge's probabilities {', '.join(f'{e:.2f}' for e in expected)}"
        return Score(value, reason,
                     {"ratings": ratings, "expected_ratings": [round(w.value, 4) if w else None for w in weighed],
                      "rating_probs": [w.probs if w else None for w in weighed], "failures": failures,
                      "judgment": mode_of(valid)})

    async def likelihood(self, question: str, context: str, ctx: MetricContext) -> Score:
        """The question's mean token PMI given the contexts, through the judge's fitted line
        (or the plain logistic of the PMI for a judge without one)."""
        if not ctx.reads_tokens:
            raise Unscorable(NEEDS_TOKENS)
        found, rule = await ctx.read_tokens(ctx.prompt(self.prompt_metric, "likelihood"),
                                            {"context": context, "question": question}, ("question", "context"))
        if found is None:
            raise Unscorable("the question's tokens could not be read in the prompt")
        slope, intercept = (rule.slope, rule.intercept) if rule is not None else (1.0, 0.0)
        value = 1 / (1 + math.exp(-max(-700.0, min(700.0, slope * found["mean"] + intercept))))
        return Score(value, f"question made {'more' if found['mean'] > 0 else 'less'} likely by the contexts "
                            f"(mean token PMI {found['mean']:+.2f} nats)",
                     {"token_pmi": found, "line": [slope, intercept] if rule is not None else None,
                      "judgment": "likelihood"})
