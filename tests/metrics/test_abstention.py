"""Abstention as an outcome (metrics/abstention.py), with the judge scripted at its boundary."""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter.judges.base import JudgeReply
from ragmeter.judges.scripted import ScriptedJudge

RATES = ["abstention", "correct_abstention", "false_confidence", "over_refusal"]
ROW = {"id": "r1", "user_input": "When did the museum open?", "response": "The documents do not say.",
       "retrieved_contexts": ["The museum holds 4,000 paintings."]}


def verdict(label: int, p_one: float | None = None) -> JudgeReply:
    probs = None if p_one is None else [{"field": "verdict", "probs": {"0": 1 - p_one, "1": p_one}}]
    return JudgeReply(text=f'{{"verdict": {label}}}', labels=probs)


def run(rows, script, metrics=RATES, cache=False, **options):
    judge = ScriptedJudge(script)
    specs = [{m: options} if options else m for m in metrics]
    result = ragmeter.evaluate(rows, specs, judge=judge, cache=cache, progress=False)
    return result, judge


@pytest.mark.parametrize(("declined", "answerable", "outcome", "shares"), [
    (1, 0, "correct abstention", [1, 1, 0, 0]),
    (0, 0, "false confidence", [0, 0, 1, 0]),
    (1, 1, "over-refusal", [0, 0, 0, 1]),
    (0, 1, "answered", [1, 0, 0, 0]),
])
def test_each_outcome_falls_in_its_rate(declined, answerable, outcome, shares, tmp_path):
    script = {"abstention.declines": verdict(declined), "abstention.answerable": verdict(answerable)}
    result, judge = run([ROW], script, cache=str(tmp_path / "cache.sqlite"))
    row = result.rows[0]
    assert [row[m] for m in RATES] == shares
    assert row["abstention_evidence"]["outcome"] == outcome
    assert row["false_confidence_reason"].startswith(outcome)
    # the four metrics ask the same two questions: two calls, not eight (the cache shares them)
    assert judge.calls("abstention.declines") == judge.calls("abstention.answerable") == 1


def test_probabilities_weigh_each_row_and_the_four_outcomes_sum_to_one():
    script = {"abstention.declines": verdict(1, 0.8), "abstention.answerable": verdict(1, 0.9)}
    row = run([ROW], script, metrics=[*RATES])[0].rows[0]
    assert row["over_refusal"] == pytest.approx(0.72)
    assert row["correct_abstention"] == pytest.approx(0.08)
    assert row["false_confidence"] == pytest.approx(0.02)
    assert row["abstention"] == pytest.approx(0.08 + 0.18)
    assert row["abstention_evidence"]["declined"] == 0.8 and row["abstention_evidence"]["outcome"] == "over-refusal"


def test_judgment_label_counts_the_labels_only():
    script = {"abstention.declines": verdict(1, 0.8), "abstention.answerable": verdict(1, 0.9)}
    row = run([ROW], script, metrics=["over_refusal"], judgment="label")[0].rows[0]
    assert row["over_refusal"] == 1.0


def test_run_rates_are_means_over_every_row_and_lower_is_better_where_it_should_be():
    rows = [{**ROW, "id": f"r{i}"} for i in range(4)]
    script = {"abstention.declines": [verdict(1), verdict(0), verdict(0), verdict(1)],
              "abstention.answerable": [verdict(0), verdict(0), verdict(1), verdict(1)]}
    result, _ = run(rows, script, metrics=["false_confidence"])
    assert result.summary()["false_confidence"]["mean"] == pytest.approx(0.25)
    from ragmeter.metrics import get_metric
    assert not get_metric("false_confidence").higher_is_better and not get_metric("over_refusal").higher_is_better
    assert get_metric("abstention").higher_is_better


def test_the_prompts_send_the_answer_and_the_contexts_in_the_run_language():
    script = {"abstention.declines": verdict(1), "abstention.answerable": verdict(0)}
    judge = ScriptedJudge(script)
    ragmeter.evaluate([ROW], ["abstention"], judge=judge, cache=False, progress=False, language="spanish")
    declines, answerable = judge.requests
    assert "The documents do not say." in declines.messages[-1]["content"]
    assert "niega a responder" in declines.messages[0]["content"]
    assert "The museum holds 4,000 paintings." in answerable.messages[-1]["content"]


def test_an_empty_response_is_unscored_without_a_call():
    result, judge = run([{**ROW, "response": "  "}], {}, metrics=["correct_abstention"])
    assert result.rows[0]["correct_abstention"] is None
    assert "empty" in result.rows[0]["correct_abstention_reason"]
    assert judge.calls() == 0


def test_likelihood_answerability_borrows_context_relevance_prompt_and_needs_token_reads():
    from ragmeter.metrics import get_metric
    from ragmeter.prompts.prompt_set import PromptSet

    metric = get_metric({"abstention": {"answerability": "likelihood"}})
    prompts = PromptSet.build([metric], "spanish")
    assert prompts.get("context_relevance", "likelihood").language == "spanish"
    assert get_metric("abstention").borrowed_prompts == ()
    result, judge = run([ROW], {"abstention.declines": verdict(1)}, metrics=["abstention"], answerability="likelihood")
    assert result.rows[0]["abstention"] is None
    assert "reads prompt-token probabilities" in result.rows[0]["abstention_reason"]


def test_a_row_whose_retriever_found_nothing_has_contexts_that_cannot_answer():
    """Issue 65 item 11: a row with no retrieved contexts was unscored; its contexts cannot
    answer, so an answer there is false confidence and a decline a correct abstention, with
    no call to read contexts that are not there. A row without the field stays unknown."""
    empty = [{**ROW, "id": "e", "response": "It opened in 1901.", "retrieved_contexts": [" "]},
             {**ROW, "id": "d", "retrieved_contexts": []}, {**ROW, "id": "n", "retrieved_contexts": None}]

    def reply(request):  # declines where the answer says so; the contexts would always answer
        if request.tag == "abstention.declines":
            return verdict(int("do not say" in request.messages[-1]["content"]))
        return verdict(1)

    result, judge = run(empty, reply)
    rows = {r["id"]: r for r in result.rows}
    assert [rows["e"][m] for m in RATES] == [0, 0, 1, 0]  # answered from nothing: false confidence
    assert [rows["d"][m] for m in RATES] == [1, 1, 0, 0]  # declined: correct
    assert rows["n"]["abstention"] is None and "no retrieved_contexts on this row" in rows["n"]["abstention_reason"]
    assert judge.calls("abstention.answerable") == 0
    with pytest.raises(Exception, match="retrieved_contexts"):
        run([{k: v for k, v in ROW.items() if k != "retrieved_contexts"}], reply)  # the field absent from the data
