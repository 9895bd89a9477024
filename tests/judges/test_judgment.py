"""Probability-weighted judgments: label probabilities, their alignment, and the expected
values metrics take from them, checked against hand-computed numbers."""

from __future__ import annotations

import json
import math

import httpx
import pytest

import ragmeter
from ragmeter.judges.base import JudgeReply
from ragmeter.judges.label_probs import LabelProbe, align, distribution, from_top_logprobs, label_fields, openai_steps
from ragmeter.judges.openai_compat import OpenAICompatJudge
from ragmeter.judges.replies import output_schema
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.judges.spec import parse_judge_spec
from ragmeter.metrics.schemas import Rating, verdicts

#: every statement in one call, the share supported: the mode before issue 72
ONE_CALL = {"verdicts": {"calls": "one"}, "combine": "mean"}

ROW = {"id": "r1", "user_input": "Where is the tall tower?", "response": "It is in Paris. It is tall.",
       "retrieved_contexts": ["The tower is in Paris."], "reference": "Paris. Tall."}


def reply(data: dict, labels: list | None) -> JudgeReply:
    return JudgeReply(text=json.dumps(data), labels=labels)


def verdicts_reply(pairs: list[tuple[int, float]]) -> JudgeReply:
    """Verdicts with P(verdict = 1) for each."""
    data = {"verdicts": [{"reason": "r", "verdict": v} for v, _ in pairs]}
    return reply(data, [{"field": "verdict", "probs": {"0": 1 - p, "1": p}} for _, p in pairs])


def run(metrics, script, **kw):
    return ragmeter.evaluate([ROW], metrics, judge=ScriptedJudge(script), cache=False, progress=False, **kw)


def test_label_fields_come_from_the_schema_enums():
    assert label_fields(output_schema(verdicts(2))) == {"verdict": ("0", "1")}
    assert label_fields(output_schema(Rating)) == {"rating": ("0", "1", "2")}
    assert label_fields({"properties": {"a": {"enum": ["x", "y"]}, "b": {"type": "string"}}}) == {"a": ('"x"', '"y"')}
    # one name with two different enums cannot be told apart: left out
    clash = {"properties": {"x": {"properties": {"v": {"enum": [0, 1]}}}, "y": {"properties": {"v": {"enum": [1, 2]}}}}}
    assert label_fields(clash) == {}


def test_distribution_renormalises_over_allowed_labels_only():
    # logits: "1" -> 2.0, "0" -> 0.0, " 1" (also label 1) -> 1.0, "{" (no label) -> 9.0 is ignored
    dist = distribution("", ['0', '1'], {"1": 2.0, "0": 0.0, " 1": 1.0, "{": 9.0})
    e = math.exp
    p1 = (e(2.0) + e(1.0)) / (e(2.0) + e(1.0) + e(0.0))
    assert dist["probs"]["1"] == pytest.approx(p1)
    assert dist["probs"]["0"] == pytest.approx(1 - p1)
    assert sum(dist["probs"].values()) == pytest.approx(1.0)
    # a token that fits two labels decides nothing; none left -> no distribution
    assert distribution("", ['"yes"', '"yolo"'], {'"y': 3.0}) is None
    # after a shared prefix, the next token decides
    assert distribution('"y', ['"yes"', '"yolo"'], {"es": 0.0, "olo": 0.0})["probs"] == {'"yes"': 0.5, '"yolo"': 0.5}


def test_probe_records_the_step_that_decides_each_label():
    probe = LabelProbe({"verdict": ("0", "1")})
    text = '{"verdicts": [{"reason": "a \\"verdict\\": x", "verdict": '
    calls = []

    def scores(typed, labels):
        calls.append(typed)
        return {"1": math.log(0.6), "0": math.log(0.2)}
    probe.observe(text[:30], scores)        # inside the reason string: no label position
    probe.observe(text, scores)             # right after the key
    probe.observe(text + "1", scores)       # decided: flushed
    probe.observe(text + '1}, {"reason": "b", "verdict":', lambda t, labels: {"0": 0.0, "1": 0.0})
    found = probe.finish()
    assert calls == [""]
    assert [f["probs"] for f in found] == [{"0": pytest.approx(0.25), "1": pytest.approx(0.75)},
                                           {"0": 0.5, "1": 0.5}]


def test_align_maps_distributions_to_json_paths_and_refuses_mismatches():
    data = {"verdicts": [{"reason": "r", "verdict": 1}, {"reason": "r", "verdict": 0}]}
    found = [{"field": "verdict", "probs": {"0": 0.1, "1": 0.9}}, {"field": "verdict", "probs": {"0": 0.7, "1": 0.3}}]
    fields = {"verdict": ("0", "1")}
    assert align(data, found, fields) == {"verdicts.0.verdict": {"0": 0.1, "1": 0.9},
                                          "verdicts.1.verdict": {"0": 0.7, "1": 0.3}}
    assert align(data, found[:1], fields) == {}          # one distribution for two labels
    assert align(data, None, fields) == {}
    assert align({"rating": 2}, [{"field": "rating", "probs": {"0": 1.0}}], {"rating": ("0", "1", "2")}) == {}


def test_faithfulness_is_the_mean_probability_of_supported():
    script = {"faithfulness.verdicts": verdicts_reply([(1, 0.8), (0, 0.3)])}
    result = run([{"faithfulness": {"statements": "sentences", **ONE_CALL}}], script)
    row = result.rows[0]
    assert row["faithfulness"] == pytest.approx(0.55)
    assert [s["p_supported"] for s in row["faithfulness_evidence"]["statements"]] == [0.8, 0.3]
    assert [s["verdict"] for s in row["faithfulness_evidence"]["statements"]] == [1, 0]  # the labels are kept
    assert row["faithfulness_evidence"]["judgment"] == "probability"
    assert result.manifest["metrics"]["faithfulness"]["judgment"] == {"probability": 1}


def test_judgment_label_ignores_the_probabilities():
    script = {"faithfulness.verdicts": verdicts_reply([(1, 0.8), (0, 0.3)])}
    result = run([{"faithfulness": {"statements": "sentences", "judgment": "label", **ONE_CALL}}], script)
    assert result.rows[0]["faithfulness"] == 0.5
    assert result.rows[0]["faithfulness_evidence"]["statements"][0]["p_supported"] is None
    assert result.manifest["metrics"]["faithfulness"]["judgment"] == {"label": 1}


def test_each_part_is_a_claim_in_a_call_of_its_own_by_default():
    def script(request):  # P(supported) 0.7 for the part about height, 0.9 for the other
        claim = request.messages[-1]["content"].partition("statements:")[2]
        return verdicts_reply([(1, 0.7 if "tall" in claim else 0.9)])
    judge = ScriptedJudge(script)
    result = ragmeter.evaluate([ROW], ["faithfulness"], judge=judge, cache=False, progress=False)
    evidence = result.rows[0]["faithfulness_evidence"]
    # each sentence a claim in a call of its own, one verdict each, and no views
    assert judge.calls() == 2 and "views" not in evidence
    assert [r.schema["properties"]["verdicts"]["maxItems"] for r in judge.requests] == [1, 1]
    assert [s["statement"] for s in evidence["statements"]] == ["It is in Paris.", "It is tall."]
    assert [s["p_supported"] for s in evidence["statements"]] == [0.9, 0.7]
    assert result.rows[0]["faithfulness"] == pytest.approx(0.7)  # the weakest part counts


def test_context_precision_is_average_precision_of_expected_usefulness():
    script = {"context_precision.usefulness": verdicts_reply([(0, 0.2), (1, 0.9)])}
    row = {**ROW, "retrieved_contexts": ["a", "b"]}
    result = ragmeter.evaluate([row], ["context_precision"], judge=ScriptedJudge(script), cache=False, progress=False)
    # (0.2 * 0.2/1 + 0.9 * (0.2+0.9)/2) / (0.2 + 0.9)
    assert result.rows[0]["context_precision"] == pytest.approx((0.04 + 0.9 * 0.55) / 1.1)


def test_context_relevance_is_the_expected_rating_over_two():
    probs = {"0": 0.1, "1": 0.3, "2": 0.6}   # expected rating 1.5
    script = {"context_relevance.rating1": reply({"rating": 2}, [{"field": "rating", "probs": probs}]),
              "context_relevance.rating2": reply({"rating": 1}, None)}   # no probabilities: the label counts
    result = run(["context_relevance"], script)
    row = result.rows[0]
    assert row["context_relevance"] == pytest.approx((1.5 / 2 + 1 / 2) / 2)
    assert row["context_relevance_evidence"]["expected_ratings"] == [1.5, 1.0]
    assert row["context_relevance_evidence"]["judgment"] == "mixed"


def test_correctness_uses_the_expected_score_for_value_and_threshold():
    probs = {"1": 0.0, "2": 0.0, "3": 0.5, "4": 0.25, "5": 0.25}   # expected 3.75 < 4
    script = {"correctness.score": reply({"reasoning": "ok", "score": 4}, [{"field": "score", "probs": probs}])}
    row = run(["correctness"], script).rows[0]
    assert row["correctness"] == pytest.approx((3.75 - 1) / 4)
    assert row["correctness_evidence"]["raw_score"] == 4 and row["correctness_evidence"]["passing"] is False


def test_llamaindex_faithfulness_is_p_yes_of_the_deciding_call():
    script = {"llamaindex_faithfulness.eval": reply({"answer": "NO"}, [{"field": "answer",
                                                                       "probs": {'"YES"': 0.4, '"NO"': 0.6}}])}
    row = run(["llamaindex_faithfulness"], script).rows[0]
    assert row["llamaindex_faithfulness"] == pytest.approx(0.4)
    assert row["llamaindex_faithfulness_evidence"]["passing"] is False


def test_probabilities_are_cached_with_the_reply(tmp_path):
    cache = tmp_path / "c.sqlite"
    spec = [{"faithfulness": {"statements": "sentences", **ONE_CALL}}]
    first = ragmeter.evaluate([ROW], spec, judge=ScriptedJudge({"faithfulness.verdicts": verdicts_reply(
        [(1, 0.8), (0, 0.3)])}), cache=cache, progress=False)
    again = ScriptedJudge({})
    second = ragmeter.evaluate([ROW], spec, judge=again, cache=cache, progress=False)
    assert again.calls() == 0
    assert second.rows[0]["faithfulness"] == first.rows[0]["faithfulness"] == pytest.approx(0.55)


def test_openai_steps_read_chat_and_completion_logprobs():
    chat = {"logprobs": {"content": [{"token": "1", "logprob": -0.1, "top_logprobs": [
        {"token": "1", "logprob": -0.1}, {"token": "0", "logprob": -2.4}]}]}}
    assert openai_steps(chat) == [("1", {"1": -0.1, "0": -2.4})]
    legacy = {"logprobs": {"tokens": ["1"], "top_logprobs": [{"1": -0.1, "0": -2.4}]}}
    assert openai_steps(legacy) == [("1", {"1": -0.1, "0": -2.4})]
    assert openai_steps({}) == []
    assert from_top_logprobs([], {"rating": ("0",)}) is None


def _tokens(text: str, at: str, alternatives: dict[str, float]) -> list[dict]:
    """Chat logprobs for `text`, one token per character, with alternatives where `at` begins."""
    out, cut = [], text.index(at)
    for i, ch in enumerate(text):
        top = [{"token": t, "logprob": lp} for t, lp in alternatives.items()] if i == cut else [
            {"token": ch, "logprob": 0.0}]
        out.append({"token": ch, "logprob": 0.0, "top_logprobs": top})
    return out


def http_judge(log: list, with_logprobs: bool, reject: bool = False, ask: bool = True) -> OpenAICompatJudge:
    text = '{"rating": 2}'

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        body = json.loads(request.content)
        log.append(body)
        if reject and "logprobs" in body:
            return httpx.Response(400, text="logprobs is not supported")
        choice = {"message": {"content": text}, "finish_reason": "stop"}
        if with_logprobs:
            choice["logprobs"] = {"content": _tokens(text, "2", {"2": math.log(0.5), "1": math.log(0.25),
                                                                  "0": math.log(0.25)})}
        return httpx.Response(200, json={"choices": [choice], "usage": {}})
    return OpenAICompatJudge("http://judge.test/v1", "m", logprobs=ask, transport=httpx.MockTransport(handler))


def test_http_judge_asks_for_logprobs_and_uses_them():
    log: list = []
    row = ragmeter.evaluate([ROW], ["context_relevance"], judge=http_judge(log, True), cache=False,
                            progress=False).rows[0]
    assert log[0]["logprobs"] is True and log[0]["top_logprobs"] == 20
    assert row["context_relevance_evidence"]["expected_ratings"] == [1.25, 1.25]
    assert row["context_relevance"] == pytest.approx(0.625)
    assert row["context_relevance_evidence"]["judgment"] == "probability"


def test_http_judge_without_logprobs_falls_back_to_labels():
    log: list = []
    row = ragmeter.evaluate([ROW], ["context_relevance"], judge=http_judge(log, False), cache=False,
                            progress=False).rows[0]
    assert row["context_relevance"] == 1.0
    assert row["context_relevance_evidence"]["judgment"] == "label"


def test_http_judge_told_not_to_ask_for_logprobs_reads_labels():
    assert parse_judge_spec({"spec": "openai-compat:http://h/v1#m", "logprobs": "false"}).logprobs is False
    log: list = []
    row = ragmeter.evaluate([ROW], ["context_relevance"], judge=http_judge(log, False, ask=False), cache=False,
                            progress=False).rows[0]
    assert ["logprobs" in body for body in log] == [False, False]
    assert row["context_relevance"] == 1.0
    assert row["context_relevance_evidence"]["judgment"] == "label"


def test_http_judge_that_rejects_logprobs_is_asked_again_without():
    log: list = []
    judge = http_judge(log, False, reject=True)
    identity = judge.identity()
    row = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=False, progress=False).rows[0]
    assert row["context_relevance"] == 1.0
    assert ["logprobs" in body for body in log] == [True, False, False]
    assert judge.identity() == identity


def test_faithfulness_needs_the_question_only_when_the_judge_writes_statements():
    row = {**ROW, "user_input": ""}
    judge = ScriptedJudge({"faithfulness.verdicts": verdicts_reply([(1, 0.7)])})
    scored = ragmeter.evaluate([row], ["faithfulness"], judge=judge, cache=False, progress=False).rows[0]
    assert scored["faithfulness"] == pytest.approx(0.7)
    ragas = ragmeter.evaluate([row], [{"faithfulness": {"statements": "judge"}}], judge=ScriptedJudge({}),
                              cache=False, progress=False).rows[0]
    assert ragas["faithfulness"] is None and ragas["faithfulness_reason"] == "empty field(s): user_input"


def test_examples_are_shown_in_the_reply_schema_order():
    """The prompt file writes reason before verdict; the judge must write the verdict first, and
    the few-shot replies it sees follow that order."""
    judge = ScriptedJudge({"faithfulness.verdicts": verdicts_reply([(1, 0.9)])})
    ragmeter.evaluate([ROW], ["faithfulness"], judge=judge, cache=False, progress=False)
    example_reply = json.loads(judge.requests[0].messages[2]["content"])
    assert list(example_reply["verdicts"][0]) == ["verdict", "reason"]
    assert list(judge.requests[0].schema["$defs"]["Verdict"]["properties"]) == ["verdict", "reason"]


class CalibratedScript(ScriptedJudge):
    """A scripted judge carrying a Platt line for faithfulness.verdicts (as the bundled Qwen does)."""

    def __init__(self, script, version: str) -> None:
        super().__init__(script)
        from ragmeter.judges.calibration import Platt

        self.rule = Platt("faithfulness.verdicts", version, "verdict", 2.0, -1.0, "test")

    def calibration(self):
        return {"faithfulness.verdicts": self.rule}


def test_platt_line_maps_log_odds_and_leaves_other_fields():
    from ragmeter.judges.calibration import Platt, calibrate

    rule = Platt("faithfulness.verdicts", "v", "verdict", 2.0, -1.0, "test")
    # logit(0.8) = ln 4; 2 ln 4 - 1 = 1.77259; sigmoid = 0.854779
    assert rule.apply(0.8) == pytest.approx(1 / (1 + math.exp(-(2 * math.log(4) - 1))))
    assert rule.apply(0.8) == pytest.approx(0.854779, abs=1e-6)
    probs = {"verdicts.0.verdict": {"0": 0.2, "1": 0.8}, "rating": {"0": 0.5, "1": 0.25, "2": 0.25}}
    out = calibrate(probs, rule)
    assert out["verdicts.0.verdict"]["1"] == pytest.approx(0.854779, abs=1e-6)
    assert out["verdicts.0.verdict"]["0"] == pytest.approx(1 - 0.854779, abs=1e-6)
    assert out["rating"] == probs["rating"]


def test_platt_fit_recovers_a_known_line():
    import random

    from ragmeter.judges.calibration import fit

    rng = random.Random(0)
    scores = [rng.uniform(0.02, 0.98) for _ in range(4000)]
    # labels drawn from the line 2 * logit(p) - 1
    labels = [int(rng.random() < 1 / (1 + math.exp(-(2 * math.log(p / (1 - p)) - 1)))) for p in scores]
    slope, intercept = fit(scores, labels)
    assert slope == pytest.approx(2.0, abs=0.15) and intercept == pytest.approx(-1.0, abs=0.15)


def test_calibration_applies_to_its_own_prompt_version_only_and_the_cache_keeps_raw(tmp_path):
    from ragmeter.prompts.template import builtin_prompt

    version = builtin_prompt("faithfulness", "verdicts").version
    script = {"faithfulness.verdicts": verdicts_reply([(1, 0.8)])}
    cache = tmp_path / "c.sqlite"
    row = {**ROW, "response": "The tall tower is in Paris."}
    calibrated = ragmeter.evaluate([row], ["faithfulness"], judge=CalibratedScript(script, version), cache=cache,
                                   progress=False)
    assert calibrated.rows[0]["faithfulness"] == pytest.approx(0.854779, abs=1e-6)
    assert calibrated.manifest["judge"]["calibration"]["faithfulness.verdicts"]["slope"] == 2.0
    first = CalibratedScript(script, version)
    ragmeter.evaluate([row], ["faithfulness"], judge=first, cache=False, progress=False)
    assert first.requests[0].label_lines == (("verdict", 2.0, -1.0),)  # the backend writes labels by the line
    # read back from the cache, the line is applied once more to the raw probability kept there
    again = ragmeter.evaluate([row], ["faithfulness"], judge=CalibratedScript({}, version), cache=cache,
                              progress=False)
    assert again.rows[0]["faithfulness"] == pytest.approx(0.854779, abs=1e-6)
    # a judge without the line writes its labels otherwise: a reply of its own, the raw probability
    plain_judge = ScriptedJudge(script)
    plain = ragmeter.evaluate([row], ["faithfulness"], judge=plain_judge, cache=cache, progress=False)
    assert plain.rows[0]["faithfulness"] == pytest.approx(0.8)
    assert plain_judge.calls() == 1 and plain_judge.requests[0].label_lines == ()
    # a line fitted on another version of the prompt is not applied (and that reply is the plain one)
    other = ragmeter.evaluate([row], ["faithfulness"], judge=CalibratedScript({}, "other-version"), cache=cache,
                              progress=False)
    assert other.rows[0]["faithfulness"] == pytest.approx(0.8)


class _Vocab:
    """Enough of a llama.cpp model for choosing a label token: five tokens."""

    texts = {0: " ", 1: "0", 2: "1", 3: " 0", 4: " 1"}

    def detokenize(self, ids):
        return "".join(self.texts[i] for i in ids).encode()

    def tokenize(self, text, add_bos=False, special=False):
        return [next(i for i, t in self.texts.items() if t == text.decode())]


def test_the_decoder_writes_the_label_the_calibrated_probability_favours():
    import numpy as np

    from ragmeter.judges.llamacpp.decode import calibrated_label

    logits = np.array([0.0, 1.0, 2.0, 0.5, 1.5])  # raw: "1" is the greedy token
    read = {"field": "verdict", "probs": {"0": 0.3, "1": 0.7}, "typed": ""}
    lowering = ("verdict", 2.0, -3.0)  # sigmoid(2 logit(0.7) - 3) = 0.213: calibrated, a 0
    assert calibrated_label(_Vocab(), logits, None, read, lowering, 2) == 1  # the best token that begins "0"
    assert calibrated_label(_Vocab(), logits, None, read, lowering, 4) == 1
    assert calibrated_label(_Vocab(), logits, None, read, lowering, 0) == 0  # whitespace decides nothing
    raising = ("verdict", 1.0, 0.0)  # the identity line: 0.7 stays a 1
    assert calibrated_label(_Vocab(), logits, None, read, raising, 2) == 2
    assert calibrated_label(_Vocab(), logits, None, read, None, 2) == 2  # no line for the field


def test_each_label_of_a_field_takes_its_own_line_where_there_are_several():
    from ragmeter.judges.llamacpp.decode import line_for

    one = (("verdict", 2.0, -1.0),)
    assert line_for(one, "verdict", 0) == line_for(one, "verdict", 3) == ("verdict", 2.0, -1.0)
    per_claim = (("verdict", 2.0, -1.0), ("verdict", 2.0, 0.5), ("rating", 1.0, 0.0))
    assert line_for(per_claim, "verdict", 1) == ("verdict", 2.0, 0.5)
    assert line_for(per_claim, "verdict", 5) == ("verdict", 2.0, 0.5)  # more labels than claims: the last
    assert line_for(per_claim, "rating", 0) == ("rating", 1.0, 0.0)
    assert line_for(per_claim, "score", 0) is None


def test_a_translated_prompt_gets_its_own_line_and_each_line_only_its_own_prompt():
    from ragmeter.judges.calibration import Platt, line_for, shipped
    from ragmeter.prompts.template import builtin_prompt

    english = builtin_prompt("faithfulness", "verdicts").version
    spanish = builtin_prompt("faithfulness", "verdicts", "spanish").version
    rules = shipped("qwen-coder-1.5b")
    # the bundled judge ships a line per language for faithfulness, each for its exact prompt version
    assert line_for(rules, "faithfulness.verdicts", english) is rules["faithfulness.verdicts"]
    assert line_for(rules, "faithfulness.verdicts", spanish) is rules["faithfulness.verdicts@spanish"]
    assert rules["faithfulness.verdicts@spanish"].prompt == "faithfulness.verdicts" and english != spanish
    assert line_for(rules, "faithfulness.verdicts", "edited") is None
    row = {**ROW, "response": "Está en París."}
    line = {"es": Platt("faithfulness.verdicts", spanish, "verdict", 2.0, -1.0, "test")}

    class Spanish(ScriptedJudge):
        def calibration(self):
            return line

    script = {"faithfulness.verdicts": verdicts_reply([(1, 0.8)])}
    judged = ragmeter.evaluate([row], ["faithfulness"], judge=Spanish(script), language="spanish", cache=False,
                               progress=False)
    assert judged.rows[0]["faithfulness"] == pytest.approx(0.854779, abs=1e-6)
    english_run = ragmeter.evaluate([row], ["faithfulness"], judge=Spanish(script), cache=False, progress=False)
    assert english_run.rows[0]["faithfulness"] == pytest.approx(0.8)  # the English prompt has no line here
