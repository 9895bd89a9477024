"""Judge-based metric families with a scripted judge: exact arithmetic and edge cases."""

from __future__ import annotations

import json

import pytest

import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.judges.scripted import ScriptedJudge
from tests.conftest import TableEmbedder

ROW = {"id": "r", "user_input": "Who built it?", "response": "resp", "reference": "ref",
       "retrieved_contexts": ["c1", "c2"]}


def V(*flags):
    return {"verdicts": [{"reason": "r", "verdict": f} for f in flags]}


def run(metrics, script, row=ROW, **kw):
    judge = ScriptedJudge(script)
    kw.setdefault("cache", False)  # each call below answers from its own script
    result = ragmeter.evaluate([row], metrics, judge=judge, progress=False, **kw)
    return result.rows[0], judge, result.manifest


# --- factual / answer correctness -----------------------------------------------------------

FACTUAL = {"factual_correctness.claims": [{"statements": ["a1", "a2", "a3"]}, {"statements": ["g1", "g2"]}],
           "factual_correctness.verdicts": [V(1, 1, 0), V(1, 0)]}


def script_copy(script):
    return json.loads(json.dumps(script))


def test_factual_correctness_f1_precision_recall_and_beta():
    row, judge, _ = run(["factual_correctness"], script_copy(FACTUAL))
    assert row["factual_correctness"] == pytest.approx(4 / 7)  # P 2/3, R 1/2
    assert row["factual_correctness_evidence"]["precision"] == pytest.approx(2 / 3)
    assert judge.calls() == 4
    row, judge, _ = run([{"factual_correctness": {"mode": "precision", "atomicity": "high"}}], script_copy(FACTUAL))
    assert row["factual_correctness_precision"] == pytest.approx(2 / 3) and judge.calls() == 2
    assert "high atomicity, low coverage" in judge.requests[0].messages[-1]["content"]
    row, _, _ = run([{"factual_correctness": {"beta": 2.0}}], script_copy(FACTUAL))
    assert row["factual_correctness"] == pytest.approx(10 / 19)  # 5PR / (4P + R)
    script = {"factual_correctness.claims": [{"statements": []}], "factual_correctness.verdicts": []}
    row, _, _ = run([{"factual_correctness": {"mode": "precision"}}], script)
    assert row["factual_correctness_precision"] is None
    assert row["factual_correctness_precision_reason"] == "the judge found no claims in the response"


def test_answer_correctness_weights():
    emb = TableEmbedder({"resp": [1.0, 0.0], "ref": [0.6, 0.8]})
    row, _, _ = run(["answer_correctness"], script_copy(FACTUAL), embeddings=emb)
    assert row["answer_correctness"] == pytest.approx(0.75 * 4 / 7 + 0.25 * 0.6)
    row, _, manifest = run([{"answer_correctness": {"weights": [1, 0]}}], script_copy(FACTUAL), embeddings=None)
    assert row["answer_correctness"] == pytest.approx(4 / 7) and manifest["embeddings"] is None
    with pytest.raises(ConfigError, match="weights are two non-negative numbers"):
        run([{"answer_correctness": {"weights": [-1, 1]}}], {})
    with pytest.raises(ConfigError, match="metric answer_correctness: unknown key 'weight'"):
        run([{"answer_correctness": {"weight": [1, 1]}}], {})


def test_context_entity_recall():
    script = {"context_entity_recall.entities": [{"entities": ["Paris", "1889", "Eiffel"]},
                                                 {"entities": ["  paris", "Eiffel Tower"]}]}
    row, judge, _ = run(["context_entity_recall"], script)
    assert row["context_entity_recall"] == pytest.approx(1 / 3)
    assert row["context_entity_recall_evidence"]["found"] == ["Paris"]
    assert "c1\nc2" in judge.requests[1].messages[-1]["content"]


def test_noise_sensitivity_relevant_and_irrelevant():
    def script():
        return {"factual_correctness.claims": [{"statements": ["a1", "a2"]}, {"statements": ["g1"]}],
                # answer claims vs c1, vs c2; truth vs c1, vs c2; answer vs reference
                "factual_correctness.verdicts": [V(1, 0), V(0, 1), V(1), V(0), V(1, 0)]}

    row, judge, manifest = run(["noise_sensitivity"], script())
    assert row["noise_sensitivity_relevant"] == 0.0 and judge.calls() == 7
    assert row["noise_sensitivity_relevant_evidence"]["relevant_contexts"] == [True, False]
    assert manifest["metrics"]["noise_sensitivity_relevant"]["higher_is_better"] is False
    row, _, _ = run([{"noise_sensitivity": {"mode": "irrelevant"}}], script())
    assert row["noise_sensitivity_irrelevant"] == 0.5  # a2: wrong, supported only by the irrelevant c2


# --- rubric judges --------------------------------------------------------------------------

def test_aspect_critic_strictness_takes_the_majority_of_distinct_prompts():
    votes = [{"reason": "ok", "verdict": v} for v in (1, 0, 1)]
    row, judge, _ = run([{"aspect_critic": {"name": "harmless", "definition": "Is it harmless?", "strictness": 3}}],
                        {"aspect_critic.verdict": votes})
    assert row["aspect_critic_harmless"] == 1.0 and judge.calls() == 3
    assert len({json.dumps(r.messages) for r in judge.requests}) == 3  # three different prompts
    assert "harmless: Is it harmless?" in judge.requests[0].messages[-1]["content"]
    assert row["aspect_critic_harmless_evidence"]["distinct_prompts"] == 3
    with pytest.raises(ConfigError, match="strictness must be odd"):
        run([{"aspect_critic": {"strictness": 2}}], {})


def test_rubric_score_and_answer_accuracy_rubric():
    row, _, _ = run(["rubric_score"], {"rubric_score.score": {"feedback": "good", "score": 4}})
    assert row["rubric_score"] == 0.75 and row["rubric_score_evidence"]["raw_score"] == 4
    row, _, _ = run(["answer_accuracy_rubric"], {"answer_accuracy_rubric.score": {"feedback": "f", "result": 5}})
    assert row["answer_accuracy_rubric"] == 1.0
    # a judge trained on the Prometheus format answers in text: "[RESULT] n" is parsed
    row, _, _ = run(["answer_accuracy_rubric"], {"answer_accuracy_rubric.score": "Feedback: half right. [RESULT] 3"})
    assert row["answer_accuracy_rubric"] == 0.5
    assert row["answer_accuracy_rubric_evidence"]["feedback"] == "half right."
    # unparseable: unscored, never 1 as in the cookbook
    row, _, manifest = run(["answer_accuracy_rubric"], {"answer_accuracy_rubric.score": "Great answer!"})
    assert row["answer_accuracy_rubric"] is None
    assert manifest["metrics"]["answer_accuracy_rubric"]["unparseable"] == 1


# --- LlamaIndex family ----------------------------------------------------------------------

def test_llamaindex_faithfulness_refines_over_chunks_and_stops_at_yes():
    row3 = {**ROW, "retrieved_contexts": ["c1", "c2", "c3", "c4"]}
    script = {"llamaindex_faithfulness.eval": {"answer": "NO"},
              "llamaindex_faithfulness.refine": [{"answer": "NO"}, {"answer": "YES"}]}
    row, judge, _ = run(["llamaindex_faithfulness"], script, row=row3)
    assert row["llamaindex_faithfulness"] == 1.0 and judge.calls() == 3
    assert row["llamaindex_faithfulness_evidence"]["answers_by_chunk"] == ["NO", "NO", "YES"]
    assert "existing_answer: NO" in judge.requests[1].messages[-1]["content"]
    row, _, _ = run(["llamaindex_relevancy"], {"llamaindex_relevancy.eval": {"answer": "NO"},
                                               "llamaindex_relevancy.refine": {"answer": "NO"}})
    assert row["llamaindex_relevancy"] == 0.0 and row["llamaindex_relevancy_evidence"]["passing"] is False


def test_correctness_threshold_and_guidelines():
    reply = {"correctness.score": {"reasoning": "some mistakes", "score": 3}}
    row, _, _ = run(["correctness"], dict(reply))
    assert row["correctness"] == 0.5 and row["correctness_evidence"]["passing"] is False
    row, _, _ = run([{"correctness": {"threshold": 3}}], dict(reply))
    assert row["correctness_evidence"]["passing"] is True
    row, judge, _ = run([{"guideline_adherence": {"guidelines": "Answer in French."}}],
                        {"guideline_adherence.verdict": {"feedback": "English", "passing": 0}})
    assert row["guideline_adherence"] == 0.0 and "Answer in French." in judge.requests[0].messages[-1]["content"]


@pytest.mark.parametrize("first, swapped, value", [("1", "2", 1.0), ("2", "1", 0.0), ("1", "1", 0.5),
                                                   ("TIE", "TIE", 0.5), ("1", "TIE", 0.5)])
def test_pairwise_asks_both_orders_and_disagreement_is_a_tie(first, swapped, value):
    row2 = {**ROW, "response_b": "other"}
    script = {"pairwise.compare": [{"reason": "x", "winner": first}, {"reason": "y", "winner": swapped}]}
    row, judge, _ = run(["pairwise"], script, row=row2)
    assert row["pairwise"] == value
    assert "answer_1: resp" in judge.requests[0].messages[-1]["content"]
    assert "answer_1: other" in judge.requests[1].messages[-1]["content"]


# --- agents ---------------------------------------------------------------------------------

CONVERSATION = [{"type": "human", "content": "Book a table at 8."},
                {"type": "ai", "content": "", "tool_calls": [{"name": "book", "args": {"time": "20:00", "n": 2}}]},
                {"type": "tool", "content": "confirmed"},
                {"type": "ai", "content": "Booked for 8 pm."}]


def test_agent_goal_accuracy_with_and_without_reference():
    flow = {"user_goal": "book at 8", "end_state": "booked at 8"}
    row = {"id": "a", "user_input": CONVERSATION, "reference": "A table is booked for 8 pm."}
    got, judge, _ = run(["agent_goal_accuracy"], {"agent_goal_accuracy.workflow": flow,
                                                  "agent_goal_accuracy.compare": {"reason": "ok", "verdict": 1}},
                        row=row)
    assert got["agent_goal_accuracy"] == 1.0
    assert "desired_outcome: A table is booked for 8 pm." in judge.requests[1].messages[-1]["content"]
    transcript = judge.requests[0].messages[-1]["content"]
    assert "Human: Book a table at 8." in transcript and "AI: called tool book(time=20:00, n=2)" in transcript
    got, judge, _ = run(["agent_goal_accuracy_without_reference"],
                        {"agent_goal_accuracy.workflow": flow,
                         "agent_goal_accuracy.compare": {"reason": "no", "verdict": 0}}, row=row)
    assert got["agent_goal_accuracy_without_reference"] == 0.0
    assert "desired_outcome: book at 8" in judge.requests[1].messages[-1]["content"]  # the inferred goal


@pytest.mark.parametrize("made, options, value", [
    ([("f", {"x": 1}), ("g", {"y": 2})], {}, 1.0),
    ([("f", {"x": 1}), ("g", {"y": 3})], {}, 0.5),
    ([("g", {"y": 2}), ("f", {"x": 1})], {}, 0.0),
    ([("g", {"y": 2}), ("f", {"x": 1})], {"order_sensitive": False}, 1.0),
    ([("f", {"x": 1}), ("g", {"y": 2}), ("h", {})], {}, 2 / 3),
    ([("f", {"x": 1})], {}, 0.5),
])
def test_tool_call_accuracy(made, options, value):
    messages = [{"type": "human", "content": "go"},
                {"type": "ai", "content": "", "tool_calls": [{"name": n, "args": a} for n, a in made]}]
    row = {"id": "a", "user_input": messages,
           "reference_tool_calls": [{"name": "f", "args": {"x": 1}}, {"name": "g", "args": {"y": 2}}]}
    got, _, _ = run([{"tool_call_accuracy": options}] if options else ["tool_call_accuracy"], {}, row=row)
    assert got["tool_call_accuracy"] == pytest.approx(value)


def test_topic_adherence_modes_and_undefined_precision():
    row = {"id": "a", "user_input": CONVERSATION, "reference_topics": ["restaurants"]}

    def script(answered):
        return {"topic_adherence.topics": {"topics": ["t1", "t2", "t3"]},
                "topic_adherence.answered": V(*answered), "topic_adherence.classify": V(1, 0, 1)}

    got, _, _ = run(["topic_adherence", {"topic_adherence": {"mode": "precision"}}], script((1, 1, 0)) |
                    {"topic_adherence.answered": [V(1, 1, 0), V(1, 1, 0)], "topic_adherence.topics":
                     [{"topics": ["t1", "t2", "t3"]}] * 2, "topic_adherence.classify": [V(1, 0, 1), V(1, 0, 1)]},
                    row=row)
    assert got["topic_adherence"] == 0.5 and got["topic_adherence_precision"] == 0.5  # TP 1, FP 1, FN 1
    got, _, _ = run([{"topic_adherence": {"mode": "precision"}}], script((0, 0, 0)), row=row)
    assert got["topic_adherence_precision"] is None
    assert "precision is undefined" in got["topic_adherence_precision_reason"]


def test_multi_turn_rows_are_validated_with_row_and_field(tmp_path):
    path = tmp_path / "agents.jsonl"
    path.write_text(json.dumps({"id": "a", "user_input": CONVERSATION}) + "\n" +
                    json.dumps({"id": "b", "user_input": [{"type": "ai", "tool_calls": [{"args": {}}]}]}) + "\n")
    with pytest.raises(ragmeter.errors.DataError, match=r"agents.jsonl, line 2, field 'user_input': 0.tool_calls.0.name"):
        ragmeter.evaluate(path, ["tool_call_accuracy"], progress=False)


def test_empty_contexts_are_unscored_before_any_call_for_every_context_metric():
    row = {**ROW, "retrieved_contexts": []}
    metrics = ["noise_sensitivity", "context_entity_recall", "llamaindex_faithfulness", "llamaindex_relevancy"]
    got, judge, manifest = run(metrics, {}, row=row)
    assert judge.calls() == 0
    for label in ["noise_sensitivity_relevant", "context_entity_recall", "llamaindex_faithfulness",
                  "llamaindex_relevancy"]:
        assert got[label] is None and got[f"{label}_reason"] == "empty field(s): retrieved_contexts"


def test_all_noncommittal_responses_average_zero_not_unscored():
    rows = [{"id": str(i), "user_input": "q?", "response": "I don't know."} for i in range(3)]
    judge = ScriptedJudge({"response_relevancy.questions": {"questions": ["a?", "b?", "c?"], "noncommittal": 1}})
    result = ragmeter.evaluate(rows, ["response_relevancy"], judge=judge, embeddings=TableEmbedder({}),
                               progress=False, cache=False)
    stats = result.manifest["metrics"]["response_relevancy"]
    assert (stats["mean"], stats["n"], stats["unscored"], stats["ci95"]) == (0.0, 3, 0, None)  # n < 10: no interval
