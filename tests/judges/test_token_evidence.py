"""Token evidence (conditional PMI of claim tokens) and the combiner that folds it into a
judge's calibrated probability: the arithmetic, with a scripted judge at the boundary."""

from __future__ import annotations

import math

import pytest

import ragmeter
from ragmeter.judges.base import JudgeReply
from ragmeter.judges.calibration import Platt, calibrate
from ragmeter.judges.llamacpp.token_evidence import (
    byte_offsets,
    claim_spans,
    claim_tokens,
    combined_lines,
    features,
    tokens_in,
)
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.prompts.template import builtin_prompt

COMBINER = {"claims": "statements", "evidence": "contexts", "weights": [2.0, -1.0, 0.5, 0.25], "fitted_on": "test"}


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def test_claims_are_found_from_the_end_after_the_evidence_that_may_hold_them():
    data = b"contexts:\n[1] It is red. It is big.\nstatements:\n[1] It is red.\n[2] It is red."
    first, second = claim_spans(data, ["It is red.", "It is red."])
    assert data[first[0]:first[1]] == data[second[0]:second[1]] == b"It is red."
    assert second[0] > first[0] > data.index(b"statements")  # not the copy in the context
    assert claim_spans(b"abc", ["b", "zzz"]) == [(1, 2), None]


def test_a_claims_tokens_are_those_overlapping_its_bytes_a_leading_space_included():
    pieces = [b"statements", b":\n", b"[", b"1", b"]", b" It", b" is", b" red", b".", b"<end>"]
    assert byte_offsets([b"ab", b"", b"c"]) == [(0, 2), (2, 2), (2, 3)]
    assert tokens_in((2, 3), [(0, 2), (2, 2), (2, 3)]) == [2]  # an empty piece covers nothing
    assert claim_tokens(pieces, "statements:\n[1] It is red.", ["It is red."]) == [[5, 6, 7, 8]]
    # the row is found where it last occurs (a few-shot example may hold the same text before it)
    twice = [b"[1] It is red.", b"|", *pieces]
    assert claim_tokens(twice, "statements:\n[1] It is red.", ["It is red."]) == [[7, 8, 9, 10]]


def test_features_are_the_minimum_and_mean_pmi_and_none_when_tokenized_apart():
    with_tokens, bare_tokens = [9, 1, 2, 3], [1, 2, 3]
    with_lp = {1: -0.5, 2: -4.0, 3: -0.1}
    bare_lp = {0: -2.0, 1: -1.0, 2: -0.3}
    found = features(with_lp, bare_lp, [1, 2, 3], [0, 1, 2], with_tokens, bare_tokens)
    assert found == {"min": round(-4.0 + 1.0, 4), "mean": round((1.5 - 3.0 + 0.2) / 3, 4), "tokens": 3}
    named = features(with_lp, bare_lp, [1, 2, 3], [0, 1, 2], with_tokens, bare_tokens, {1: " a", 2: " not", 3: "."}.get)
    assert named["weakest"] == "not"  # the token the evidence makes least likely, for a reader
    assert features(with_lp, bare_lp, [1, 2, 3], [0, 1, 2], with_tokens, [1, 2, 4]) is None
    assert features({}, {}, [], [], [], []) is None


def test_combined_lines_fold_each_claims_pmi_into_its_intercept():
    plain = (("verdict", 2.6, -3.1),)
    lines = combined_lines(("verdict", 2.0, -1.0, 0.5, 0.25), [{"min": -4.0, "mean": 2.0}, None], plain)
    assert lines == (("verdict", 2.0, -1.0 - 2.0 + 0.5), ("verdict", 2.6, -3.1))  # no features: the plain line
    assert combined_lines(None, [{"min": -4.0, "mean": 2.0}], plain) == plain


def test_calibrate_applies_the_combiner_per_verdict_by_its_index():
    rule = Platt("faithfulness.verdicts", "v", "verdict", 3.0, -2.0, "test", combiner=COMBINER)
    probs = {"verdicts.0.verdict": {"0": 0.2, "1": 0.8}, "verdicts.1.verdict": {"0": 0.2, "1": 0.8}}
    out = calibrate(probs, rule, [None, {"min": -6.0, "mean": 1.0, "tokens": 5}])
    assert out["verdicts.0.verdict"]["1"] == pytest.approx(sigmoid(3.0 * logit(0.8) - 2.0))
    assert out["verdicts.1.verdict"]["1"] == pytest.approx(sigmoid(2.0 * logit(0.8) - 1.0 - 3.0 + 0.25))
    assert calibrate(probs, rule)["verdicts.1.verdict"]["1"] == pytest.approx(sigmoid(3.0 * logit(0.8) - 2.0))


class ReadingScript(ScriptedJudge):
    """A scripted judge that reads token evidence, with a combiner for faithfulness.verdicts."""

    reads_tokens = True

    def __init__(self, script, version: str, reads: bool = True, combiner: dict | None = COMBINER) -> None:
        super().__init__(script)
        self.reads_tokens = reads
        self.rule = Platt("faithfulness.verdicts", version, "verdict", 3.0, -2.0, "test", combiner=combiner)

    def calibration(self):
        return {"faithfulness.verdicts": self.rule}


ROW = {"user_input": "Where is the tower?", "response": "The tower is in Paris.",
       "retrieved_contexts": ["The tower stands in Paris.", "It opened in 1889."]}


def reply_with(p: float, found: dict | None) -> JudgeReply:
    return JudgeReply('{"verdicts": [{"verdict": 1, "reason": ""}]}',
                      labels=[{"field": "verdict", "probs": {"0": 1 - p, "1": p}}], evidence=[found])


def test_the_session_asks_for_evidence_without_the_contexts_and_scores_through_the_combiner(tmp_path):
    version = builtin_prompt("faithfulness", "verdicts").version
    found = {"min": -6.0, "mean": 1.0, "tokens": 6}
    judge = ReadingScript({"faithfulness.verdicts": reply_with(0.8, found)}, version)
    cache = tmp_path / "c.sqlite"
    result = ragmeter.evaluate([ROW], ["faithfulness"], judge=judge, cache=cache, progress=False)
    want = sigmoid(2.0 * logit(0.8) - 1.0 + 0.5 * -6.0 + 0.25 * 1.0)
    assert result.rows[0]["faithfulness"] == pytest.approx(want)
    asked = judge.requests[0].evidence
    assert asked.claims == ("The tower is in Paris.",) and asked.combiner == ("verdict", 2.0, -1.0, 0.5, 0.25)
    assert asked.bare[-1]["content"] == "contexts:\nstatements:\n[1] The tower is in Paris."
    assert list(asked.bare[:-1]) == judge.requests[0].messages[:-1]  # the same instruction and examples
    assert result.rows[0]["faithfulness_evidence"]["statements"][0]["token_pmi"] == found
    # from the cache: the features are kept with the raw probability and combined again
    again = ReadingScript({}, version)
    assert ragmeter.evaluate([ROW], ["faithfulness"], judge=again, cache=cache,
                             progress=False).rows[0]["faithfulness"] == pytest.approx(want)
    assert again.calls() == 0


def test_a_judge_that_cannot_read_tokens_gets_the_plain_line_and_a_reply_of_its_own(tmp_path):
    version = builtin_prompt("faithfulness", "verdicts").version
    cache = tmp_path / "c.sqlite"
    reading = ReadingScript({"faithfulness.verdicts": reply_with(0.8, {"min": -6.0, "mean": 1.0})}, version)
    ragmeter.evaluate([ROW], ["faithfulness"], judge=reading, cache=cache, progress=False)
    plain = ReadingScript({"faithfulness.verdicts": reply_with(0.8, None)}, version, reads=False)
    result = ragmeter.evaluate([ROW], ["faithfulness"], judge=plain, cache=cache, progress=False)
    assert plain.calls() == 1 and plain.requests[0].evidence is None
    assert result.rows[0]["faithfulness"] == pytest.approx(sigmoid(3.0 * logit(0.8) - 2.0))


def test_token_evidence_on_request_is_recorded_and_leaves_the_score_alone(tmp_path):
    version = builtin_prompt("faithfulness", "verdicts").version
    found = {"min": -7.5, "mean": 2.0, "tokens": 6, "weakest": "not"}
    cache = tmp_path / "c.sqlite"
    judge = ReadingScript({"faithfulness.verdicts": reply_with(0.8, found)}, version, combiner=None)
    asked = ragmeter.evaluate([ROW], [{"faithfulness": {"token_evidence": True}}], judge=judge, cache=cache,
                              progress=False)
    assert asked.rows[0]["faithfulness"] == pytest.approx(sigmoid(3.0 * logit(0.8) - 2.0))  # the plain line
    assert judge.requests[0].evidence.combiner is None
    assert asked.rows[0]["faithfulness_evidence"]["statements"][0]["token_pmi"] == found
    # without the setting nothing is read, and the reply cached with evidence is not the one used
    plain = ReadingScript({"faithfulness.verdicts": reply_with(0.8, None)}, version, combiner=None)
    without = ragmeter.evaluate([ROW], ["faithfulness"], judge=plain, cache=cache, progress=False)
    assert plain.calls() == 1 and plain.requests[0].evidence is None
    assert "token_pmi" not in without.rows[0]["faithfulness_evidence"]["statements"][0]


class LikelihoodScript(ScriptedJudge):
    """Reads tokens; a fitted line for context_relevance.likelihood when given one."""

    reads_tokens = True

    def __init__(self, script, line: tuple[float, float] | None = None) -> None:
        super().__init__(script)
        self.line = line

    def calibration(self):
        if self.line is None:
            return {}
        version = builtin_prompt("context_relevance", "likelihood").version
        return {"context_relevance.likelihood": Platt("context_relevance.likelihood", version, "mean", *self.line,
                                                      "test")}


def test_context_relevance_from_the_questions_likelihood_through_the_fitted_line(tmp_path):
    found = {"min": -1.0, "mean": 1.5, "tokens": 5, "weakest": "tower"}
    spec = [{"context_relevance": {"signal": "likelihood"}}]
    judge = LikelihoodScript({"context_relevance.likelihood": JudgeReply("", evidence=[found])}, line=(2.0, -1.0))
    cache = tmp_path / "c.sqlite"
    result = ragmeter.evaluate([ROW], spec, judge=judge, cache=cache, progress=False)
    assert result.rows[0]["context_relevance"] == pytest.approx(sigmoid(2.0 * 1.5 - 1.0))
    assert result.rows[0]["context_relevance_evidence"]["token_pmi"] == found
    (request,) = judge.requests
    assert request.max_tokens == 1 and request.schema is None  # one token: nothing is decoded but the prompt
    assert request.messages[-1]["content"].startswith("context: The tower stands in Paris.")
    assert request.evidence.claims == ("Where is the tower?",)
    assert request.evidence.bare[-1]["content"] == "context: \nquestion: Where is the tower?"
    again = LikelihoodScript({}, line=(2.0, -1.0))
    assert ragmeter.evaluate([ROW], spec, judge=again, cache=cache, progress=False).rows[0]["context_relevance"] == \
        pytest.approx(sigmoid(2.0))
    assert again.calls() == 0
    # a judge without a line for this prompt: the logistic of the PMI itself
    plain = LikelihoodScript({"context_relevance.likelihood": JudgeReply("", evidence=[found])})
    assert ragmeter.evaluate([ROW], spec, judge=plain, cache=False, progress=False).rows[0]["context_relevance"] == \
        pytest.approx(sigmoid(1.5))


def test_likelihood_relevance_on_a_judge_that_cannot_read_tokens_is_unscored_with_the_reason():
    result = ragmeter.evaluate([ROW], [{"context_relevance": {"signal": "likelihood"}}], judge=ScriptedJudge({}),
                               cache=False, progress=False)
    assert result.rows[0]["context_relevance"] is None
    assert "reads prompt-token probabilities" in result.rows[0]["context_relevance_reason"]


def test_a_wrapped_judge_reads_tokens_as_its_inner_one_does():
    """A dry run (judges/wrap.py) counts the token-evidence calls a run will make."""
    from ragmeter.judges.wrap import WrappedJudge

    assert WrappedJudge(LikelihoodScript({})).reads_tokens is True
    assert WrappedJudge(ScriptedJudge({})).reads_tokens is False
