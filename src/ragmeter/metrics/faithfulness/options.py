"""Faithfulness's options, one model per step (metrics/faithfulness/steps.py and
views.py read them), grouped in FaithfulnessOptions; the flat keys of earlier
versions (`statements: parts`, `literals: off`) still fill their step's group."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ragmeter.metrics.judgment import Judgment


class StepOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VotesOptions(StepOptions):
    #: `flag`: sentences that address the judge (reading/addressed.py) are listed in the
    #: evidence and flagged, and the answer is judged without them as one more view, which can
    #: lower its score and never raise it; they are still judged with the answer (a sentence
    #: that states a fact about the subject is never set aside). `drop`, the name of earlier
    #: versions, means the same. `off`: not read
    mode: Literal["flag", "off"] = "flag"

    @field_validator("mode", mode="before")
    @classmethod
    def earlier_name(cls, value: object) -> object:
        return "flag" if value == "drop" else value


class ClaimsOptions(StepOptions):
    #: `parts` (the default): where a reader would cite, each judged in a call of its own with
    #: `verdicts.calls: each` (issue 72); `response`: the whole answer as one claim, with views
    statements: Literal["response", "sentences", "parts", "judge"] = "parts"
    #: a short answer ("httplib2", "0-99", "yes") is no claim alone: `question` (the default)
    #: judges "question answer" as the claim; `rewrite` has the judge write it out as one
    #: standalone statement first (Ragas's statements prompt, one statement, a call more);
    #: `alone` judges the answer as it is. Rows without a question are judged alone. Measured
    #: on XQuAD's human answers (docs/judge-check.md): only `question` tells a wrong span of
    #: the context from the right one (ROC-AUC 0.754; alone 0.416), at no extra call.
    short_answers: Literal["question", "rewrite", "alone"] = "question"
    #: with `verdicts.calls: each`: each part is judged with the `before` parts just before it
    #: (what its "This" or "It" refers to), never with one after it, so a part added to an answer
    #: adds a claim of its own and changes no earlier one (under `combine: min` it can only lower)
    before: int = Field(default=0, ge=0, le=3)


class CopiesOptions(StepOptions):
    #: `decide`: an answer whose every stating unit is copied, in runs of consecutive units,
    #: from one context as written is supported without a judge call (reading/copies.py; the
    #: evidence says so); `off`: every answer goes to the judge
    mode: Literal["decide", "off"] = "decide"


class DeclinesOptions(StepOptions):
    #: `judge`: an answer of at most `words` words the judge reads as declining (abstention's
    #: `declines` prompt, P >= `sure`) is scored as the claim it makes, that the contexts do not
    #: answer the question: 1 - P(answerable) (abstention's `answerable` prompt); `off`: judged
    #: as any answer. `sure` is high because the reading changes which claim is checked: on the
    #: issue 61 dev rows real declines read 0.98-0.99, and answers that say "no" 0.70-0.81
    mode: Literal["judge", "off"] = "judge"
    words: int = Field(default=24, ge=1, le=200)
    sure: float = Field(default=0.9, gt=0.0, le=1.0)


class EvidenceOptions(StepOptions):
    #: `excerpts`: several contexts, or a long one, cut to the sentences the claims are about (reading/excerpts.py)
    contexts: Literal["full", "excerpts"] = "excerpts"


class VerdictsOptions(StepOptions):
    judgment: Judgment = "probability"
    #: `each`: every statement in a call of its own, over the excerpts chosen for it, so that no
    #: statement's verdict reads another (a vote, an added clause or a wrong sentence changes only
    #: its own verdict); `one`: every statement in one call, each verdict read after all of them
    calls: Literal["one", "each"] = "each"
    #: record each statement's token evidence (in-process llama.cpp judges): how much the
    #: contexts make each of its tokens more or less likely (conditional PMI, minimum and mean)
    #: and the token they make least likely ("weakest": often the word a contradiction turns
    #: on). Scores are unchanged; about 1.2x the judge time (judges/llamacpp/token_evidence.py).
    token_evidence: bool = False


class LiteralsOptions(StepOptions):
    #: `score`: a part that states a URL, flag, identifier, version or number found in no
    #: retrieved context counts as unsupported; `evidence`: listed only; `off`
    mode: Literal["score", "evidence", "off"] = "score"


class ConflictsOptions(StepOptions):
    #: `flag`: where one chunk holds a statement's detail and another states a different one
    #: (or negates it), the evidence shows both spans and the row is counted in the summary
    #: (reading/conflicts.py; no calls, the score unchanged); `off`
    mode: Literal["flag", "off"] = "flag"


class ViewsOptions(StepOptions):
    #: `ends`: the answer is also judged without its last `last` and first `first` units (one
    #: call each, answers of two or more units only) and without the sentences that address the
    #: judge; the score is the lowest. `off`: the answer alone (a vote appended in words the
    #: votes reader does not know can raise the score)
    mode: Literal["ends", "off"] = "ends"
    last: int = Field(default=3, ge=0, le=8)
    first: int = Field(default=0, ge=0, le=8)
    #: which views count: `half`, those that leave out one unit or keep at least half of the
    #: answer's words (a heading or "I hope this helps." alone is no answer); `all` (every
    #: view, for measuring)
    keep: Literal["half", "all"] = "half"


#: the flat keys of earlier versions -> (step, its option)
FLAT = {"addressed": ("votes", "mode"), "statements": ("claims", "statements"),
        "short_answers": ("claims", "short_answers"), "contexts": ("evidence", "contexts"),
        "judgment": ("verdicts", "judgment"), "token_evidence": ("verdicts", "token_evidence"),
        "literals": ("literals", "mode"), "disagreement": ("conflicts", "mode")}


class FaithfulnessOptions(BaseModel):
    """Options grouped by the step they set (metrics/faithfulness/steps.py)."""

    model_config = ConfigDict(extra="forbid")
    votes: VotesOptions = VotesOptions()
    claims: ClaimsOptions = ClaimsOptions()
    copies: CopiesOptions = CopiesOptions()
    declines: DeclinesOptions = DeclinesOptions()
    views: ViewsOptions = ViewsOptions()
    evidence: EvidenceOptions = EvidenceOptions()
    verdicts: VerdictsOptions = VerdictsOptions()
    literals: LiteralsOptions = LiteralsOptions()
    conflicts: ConflictsOptions = ConflictsOptions()
    #: how the parts' verdicts make the score: `min` (the default: the least supported part; an
    #: answer is as faithful as its weakest statement, and a part added to it can only lower its
    #: score) or `mean` (Ragas: the share supported)
    combine: Literal["mean", "min"] = "min"

    @model_validator(mode="before")
    @classmethod
    def grouped(cls, data: object) -> object:
        """Flat keys (`statements: parts`, `literals: off`) and dotted ones (`copies.mode: off`, as
        `--metric-opt faithfulness.copies.mode=off` gives them) into their step's group."""
        if not isinstance(data, Mapping):
            return data
        out: dict[str, object] = {}
        for key, value in data.items():
            dotted = isinstance(key, str) and "." in key and not isinstance(value, Mapping)
            if dotted or (key in FLAT and not isinstance(value, Mapping)):
                step, option = key.split(".", 1) if dotted else FLAT[key]
                group = out.setdefault(step, {})
                if isinstance(group, Mapping):
                    out[step] = {**group, option: value}
                continue
            before = out.get(key)
            out[key] = {**before, **value} if isinstance(before, Mapping) and isinstance(value, Mapping) else value
        return out
