"""Declines (metrics/faithfulness/steps.py Declines): a short answer the judge reads as
declining is scored as its claim that the contexts do not answer the question, 1 -
P(answerable), with abstention's two prompts; anything else goes to the verdicts (issue 61)."""

from __future__ import annotations

import ragmeter
from ragmeter.judges.scripted import ScriptedJudge

CONTEXT = "Git te ofrece un atajo sencillo para saltarte el área de preparación."
DECLINE = "Los documentos no responden a la pregunta."


def run(response: str, reads: int, answerable: int, **options):
    judge = ScriptedJudge({"abstention.declines": {"verdict": reads},
                           "abstention.answerable": {"verdict": answerable},
                           "faithfulness.verdicts": {"verdicts": [{"reason": "r", "verdict": 0}]}})
    result = ragmeter.evaluate([{"id": "r", "user_input": "¿Cómo borro una rama?", "response": response,
                                 "retrieved_contexts": [CONTEXT]}], [{"faithfulness": options}],
                               judge=judge, cache=False, progress=False, language="spanish")
    return result.rows[0], judge


def test_a_decline_over_contexts_that_do_not_answer_is_faithful_without_a_verdict_call():
    row, judge = run(DECLINE, reads=1, answerable=0)
    assert row["faithfulness"] == 1.0
    assert row["faithfulness_evidence"]["declined"] == {"declines": 1.0, "answerable": 0.0}
    assert row["faithfulness_reason"].startswith("a decline: P(the contexts answer the question) 0.00")
    assert (judge.calls("abstention.declines"), judge.calls("abstention.answerable"),
            judge.calls("faithfulness.verdicts")) == (1, 1, 0)


def test_a_decline_over_contexts_that_answer_is_not():
    row, _ = run(DECLINE, reads=1, answerable=1)
    assert row["faithfulness"] == 0.0 and row["faithfulness_evidence"]["statements"][0]["verdict"] == 0


def test_an_answer_that_does_not_decline_goes_to_the_verdicts():
    row, judge = run("Usa el atajo sencillo de Git.", reads=0, answerable=1)
    assert "declined" not in row["faithfulness_evidence"]
    assert (judge.calls("abstention.declines"), judge.calls("abstention.answerable"),
            judge.calls("faithfulness.verdicts")) == (1, 0, 1)


def test_an_answer_that_names_the_questions_subject_is_no_decline_and_costs_no_call():
    """"rama" is the question's: the answer says something about the subject (a reader, no call)."""
    row, judge = run("No se puede borrar una rama.", reads=1, answerable=0)
    assert judge.calls("abstention.declines") == 0 and "declined" not in row["faithfulness_evidence"]


def test_long_answers_and_the_off_switch_never_ask():
    long_answer = " ".join(["Git guarda una instantánea de tu proyecto cada vez que confirmas."] * 3)
    for response, options in ((long_answer, {}), (DECLINE, {"declines": {"mode": "off"}})):
        row, judge = run(response, reads=1, answerable=0, **options)
        assert judge.calls("abstention.declines") == 0 and "declined" not in row["faithfulness_evidence"]


def test_a_language_whose_folder_has_no_abstention_prompts_skips_the_step_and_says_so(tmp_path):
    """A prompts folder exported for faithfulness alone (before this step existed) still runs."""
    from tests.reading.test_languages import prompts_folder

    judge = ScriptedJudge({"faithfulness.verdicts": {"verdicts": [{"reason": "r", "verdict": 0}]}})
    row = ragmeter.evaluate([{"id": "r", "user_input": "Tahw si eht trop?", "response": "Ti seod ton yas.",
                              "retrieved_contexts": ["Eht revres sentsil no trop 8080."]}], ["faithfulness"],
                            judge=judge, language="toy", prompts_dir=prompts_folder(tmp_path), cache=False,
                            progress=False).rows[0]
    assert row["faithfulness_evidence"]["declines"] == "declines not read: no abstention prompts in this language"
    assert judge.calls("abstention.declines") == 0 and judge.calls("faithfulness.verdicts") == 1
