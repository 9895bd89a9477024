"""Faithfulness (Ragas's, judged part by part): whether the retrieved contexts support the response.

Scored by a list of steps run in order over one row (steps.py), each with its own options
(`faithfulness: {claims: {statements: parts}}`; the flat keys of earlier versions,
`statements: parts`, still work). Each step returns what it decided (decisions.py) or None;
a decision that settles the score ends the row, one that settles the verdicts ends the
judging (the conflicts, which only flag, still read the row):
- `votes`: units that address the judge (a planted verdict, an instruction to the
  evaluator, the answer vouching for itself) are listed and flagged; judged part by part they
  are no claim (they reach no other part's verdict); judged whole, the answer without them is
  one more view. An answer that
  only votes, or states nothing (":", "Answer:"), scores 0 with `no_claim`, never unscored.
- `claims`: statements from one of four places (`statements:`): `parts` (the default: where a
  reader would cite, sentences, list items, lines, code blocks, reading/blocks.py; a list item
  under its label), `judge` (Ragas: the judge writes them; small judges invent statements here),
  `sentences` (deterministic), `response` (the whole response as one claim). A short answer
  ("httplib2") is judged with its question (`short_answers`).
- `copies`: an answer whose every stating unit is copied from one context as written, in runs
  of consecutive units, is supported without a judge call (reading/copies.py); `off` judges it.
- `declines`: a short answer the judge reads as declining is scored as its claim that the
  contexts do not answer the question, 1 - P(answerable) (abstention's two prompts).
- `views`: with `statements: response`, the answer judged again without its last one to three
  units, each in a call of its own; the lowest score counts (views.py).
- `literals`: a statement stating a literal detail (URL, flag, identifier, number) that no
  retrieved context holds counts as unsupported (`mode: score`); where that already makes the
  score 0, the judge is not called (`no_judge_call` in the evidence).
- `evidence`: several contexts, or a long one, cut to the blocks the claims are about.
- `verdicts`: each statement in a call of its own (`calls: each`, the default: no statement's
  verdict reads another, issue 72) or all in one call (`one`); each verdict counts as
  P(supported) (`judgment: probability`, the default) or 0/1.
- `conflicts`: chunks that disagree about a statement are shown and flagged.
Parts combine by `combine:` (`min`, the default: the weakest part, so a part added to an answer
can only lower its score; or `mean`, Ragas's share). Zero statements is unscored with a reason
(Ragas gives NaN). Einstein example, judge statements, 0/1 verdicts and `mean`: 1 of 2 -> 0.5.

Adding a step is one class, one options model and one line: a frozen dataclass with `name`,
`after_settled` and `async run(row, ctx) -> Decision | None` (steps.py's `Step`), its options
model as a field of FaithfulnessOptions (options.py), and its place in `steps()` below. What it
decides reaches the score, the reason and the evidence through its Decision; nothing here names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from ragmeter.metrics.base import Metric, MetricContext, Score, count, supported_share, text
from ragmeter.metrics.faithfulness.claims import Claims
from ragmeter.metrics.faithfulness.decisions import NO_CLAIM, Decision
from ragmeter.metrics.faithfulness.options import FaithfulnessOptions
from ragmeter.metrics.faithfulness.shortcuts import Copies, Declines
from ragmeter.metrics.faithfulness.steps import (
    NO_STATEMENTS,
    Conflicts,
    Evidence,
    Grounding,
    Literals,
    Statement,
    Step,
    Verdicts,
    Votes,
    is_short,
)
from ragmeter.metrics.faithfulness.views import Views
from ragmeter.metrics.judgment import mode_of, p_one
from ragmeter.metrics.schemas import claim_limit, statements, verdicts
from ragmeter.reading.languages import not_covered
from ragmeter.samples import Sample

__all__ = ["NO_CLAIM", "NO_STATEMENTS", "Faithfulness", "FaithfulnessOptions", "faithfulness", "is_short"]


def faithfulness(flags: list[float]) -> float:
    return supported_share(flags, NO_STATEMENTS)


class Faithfulness(Metric[FaithfulnessOptions]):
    name = "faithfulness"
    description = ("Is the response grounded? Its parts judged one by one against the retrieved contexts, "
                   "the weakest counting (combine: mean gives Ragas Faithfulness's share).")
    required: tuple[str, ...] = ("user_input", "response", "retrieved_contexts")
    prompt_names = ("statements", "verdicts")
    #: a short answer that declines is read with abstention's prompts, where the run's language
    #: has them (shortcuts.py Declines)
    optional_prompts = (("abstention", "declines"), ("abstention", "answerable"))
    aligned_prompts = ("verdicts",)
    #: 2: block excerpts and the literal check (issue 48); 3: sentences addressed to the judge
    #: are not judged (issue 51); 4: views, the lowest counts, and votes flagged but judged, an
    #: answer that states nothing 0 (issue 60); 5: copies decided without a call, declines read
    #: as declines (issue 61); 6: each part judged in a call of its own, the weakest counts, copies
    #: held to a context's sentence edges, a detail the question names is the question's (issue 72);
    #: 7: an answer of empty list items, questions, a reader prompt's words or its name for a
    #: document states nothing (issue 76); scores of earlier versions' runs differ
    version = "7"
    reads_language = True

    def __init__(self, label: str | None = None, **options: Any) -> None:
        super().__init__(label, **options)
        if self.options.claims.statements != "judge":  # then the question is optional: read for short answers only
            self.required = ("response", "retrieved_contexts")

    def steps(self) -> list[Step]:
        """The steps in the order they run."""
        o = self.options
        return [Votes(o.votes), Claims(o.claims, self, o.verdicts.calls), Copies(o.copies), Declines(o.declines),
                Views(o.views, o.claims), Literals(o.literals, o.combine), Evidence(o.evidence, o.verdicts.calls),
                Verdicts(o.verdicts, self), Conflicts(o.conflicts)]

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        if prompt_name == "statements":
            return statements(1 if is_short(text(inputs["answer"])) else claim_limit(text(inputs["answer"])))
        return verdicts(count(inputs["statements"]))

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        row = Grounding(sample, ctx.language)
        settled: Decision | None = None  # the first decision that settles the verdicts or the score
        for step in self.steps():
            if settled is not None and (settled.settles == "score" or not step.after_settled):
                continue
            if (decision := await step.run(row, ctx)) is not None:
                row.decisions.append(decision)
                settled = settled or (decision if decision.settles != "nothing" else None)
        if settled is not None and settled.value is not None:  # a row that states nothing: 0
            return Score(settled.value, settled.reason, self.evidence(row))
        values = [s.value for s in row.statements]
        value = min(values) if self.options.combine == "min" and values else faithfulness(values)
        if row.views:  # the lowest view: a view can lower the score, never raise it
            value = min(value, *(v.value for v in row.views))
        return Score(value, self.reason(row), self.evidence(row))

    def evidence(self, row: Grounding) -> dict[str, object]:
        """What was judged, then each decision's section in its rank, under the keys runs have always written."""
        evidence: dict[str, object] = {
            "statements": [_statement(s) for s in row.statements], "statements_from": row.source,
            "repeats_dropped": row.repeats, "judgment": mode_of([s.weighed for s in row.statements if s.weighed]),
            "combine": self.options.combine, **({"excerpts": row.shown} if row.shown is not None else {})}
        if row.views:
            evidence["views"] = [{"view": v.view, **_statement(v)} for v in row.views]
        ranked = row.ranked
        flags = [flag for d in ranked for flag in d.flags]
        for decision in ranked:
            evidence.update(decision.section)
            if decision.flags:
                evidence["flags"] = flags
        if gap := not_covered(row.language):
            evidence["reading"] = gap
        return evidence

    def reason(self, row: Grounding) -> str:
        """The settling decision's head (else the share supported), each decision's clause, and the lowest view."""
        settled = row.settled
        head = settled.reason if settled is not None else \
            f"{sum(s.supported for s in row.statements)} of {len(row.statements)} statements supported by the contexts"
        lowest = min(row.views, key=lambda v: v.value) if row.views else None
        claimed = min((s.value for s in row.statements), default=1.0)
        lower = [f"lower judged {lowest.view} ({lowest.value:.2f})"] if lowest and lowest.value < claimed else []
        return "; ".join([head, *(d.clause for d in row.ranked if d.clause), *lower])


def _statement(s: Statement) -> dict[str, object]:
    """One judged statement as the evidence shows it, with the details no context holds."""
    return {"statement": s.text, "verdict": s.verdict, "p_supported": p_one(s.weighed) if s.weighed else None,
            "reason": s.reason, **({"token_pmi": s.tokens} if s.tokens else {}),
            **({"not_in_contexts": s.absent} if s.absent else {}),
            **({"excerpts": s.shown} if s.shown is not None else {})}
