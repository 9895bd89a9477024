"""Answers that state nothing score 0, never unscored and never anywhere up to 0.95 (issue 76
item 6): numbered empty lines, the question repeated, the reader prompt repeated, the prompt's
own name for a document. By structure: nothing in them a context could support, so no judge
call is made for them."""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.prompts.reader import part_names, reader_instructions
from ragmeter.reading.blocks import units
from ragmeter.reading.echoes import empty_item, is_question, states_nothing

CONTEXTS = {"es": ["Se pueden teletrabajar hasta tres días por semana. Los martes son presenciales.",
                   "Los gastos de conexión se compensan con 35 euros al mes."],
            "en": ["Up to three days a week may be worked remotely. Tuesdays are office days.",
                   "Internet costs are paid back at 35 euros a month."]}
QUESTION = {"es": "¿Cuántos días a la semana se puede teletrabajar?",
            "en": "How many days a week may be worked remotely?"}
NOTHING = {
    "numbered headings": {"es": "Respuesta:\n" + "".join(f"# {i}.\n" for i in range(1, 12)),
                          "en": "Answer:\n" + "".join(f"# {i}.\n" for i in range(1, 12))},
    "numbered lines": {"es": "1.\n2.\n3.\n4.", "en": "1)\n2)\n3)"},
    "empty items": {"es": "1. \n2. \n3. \n- \n- ", "en": "- \n- \n* "},
    "the question": {"es": QUESTION["es"], "en": QUESTION["en"]},
    "the question labelled, twice": {"es": f"Pregunta: {QUESTION['es']}\n{QUESTION['es']}",
                                     "en": f"Question: {QUESTION['en']}\n{QUESTION['en']}"},
    "a question cut short": {"es": f"{QUESTION['es']}\n¿Cuántos días a la", "en": f"{QUESTION['en']}\n"},
    "the prompt": {"es": "Usando la información del contexto, da una respuesta completa a la pregunta.\n"
                         "Responde solo a lo que se pregunta; la respuesta debe ser breve y pertinente.",
                   "en": "Using the information contained in the context, give a comprehensive answer to the "
                         "question.\nRespond only to the question asked; the response should be concise."},
    "the prompt and question": {"es": "Ahora, esta es la pregunta que debes responder.\n\nPregunta: "
                                      + QUESTION["es"],
                                "en": "Now here is the question you need to answer.\n\nQuestion: " + QUESTION["en"]},
    "a document's name": {"es": "Documento 2", "en": "Document 1, Document 2."},
}


def judged(language: str, response: str) -> tuple[dict[str, object], ScriptedJudge]:
    judge = ScriptedJudge(lambda request: {"verdicts": [{"reason": "ok", "verdict": 1}] * 8, "verdict": 1})
    row = {"id": "r", "user_input": QUESTION[language], "retrieved_contexts": CONTEXTS[language],
           "response": response}
    result = ragmeter.evaluate([row], ["faithfulness"], judge=judge, cache=False, progress=False,
                               language="spanish" if language == "es" else "english")
    return result.rows[0], judge


@pytest.mark.parametrize("language", ["es", "en"])
@pytest.mark.parametrize("shape", list(NOTHING))
def test_an_answer_that_states_nothing_scores_0_without_a_call(shape, language):
    out, judge = judged(language, NOTHING[shape][language])
    assert out["faithfulness"] == 0.0, out["faithfulness_reason"]
    assert "states nothing a context could support" in out["faithfulness_reason"]
    assert judge.calls() == 0


@pytest.mark.parametrize("language, response", [
    ("es", "Hasta tres días por semana."), ("es", "3."), ("es", "¿Cuántos días? Hasta tres por semana."),
    ("es", "Responde solo a lo que se pregunta: tres días por semana."), ("es", "Respuesta:\n3."),
    ("en", "Answer:\n3."), ("en", "The plant opened in:\n1998."), ("en", "Chapters:\n5.\n7."),
    ("en", "Up to three days a week (Document 1)."), ("en", "1. Three days a week\n2. Tuesdays in the office"),
])
def test_an_answer_that_states_something_is_judged(language, response):
    assert not states_nothing(units(response), reader_instructions(), part_names())
    out, judge = judged(language, response)
    assert judge.calls() >= 1 and "states nothing" not in str(out["faithfulness_reason"])


@pytest.mark.parametrize("language, response", [
    ("es", "Los documentos no responden a la pregunta."), ("es", "La respuesta no se deduce del contexto."),
    ("en", "The answer cannot be deduced from the context."),
])
def test_a_decline_in_the_prompts_own_words_is_read_as_a_decline_not_as_stating_nothing(language, response):
    """A review found "The answer cannot be deduced from the context." scored 0 as a repeat of
    the reader prompt's decline line: it is the decline that line asks for."""
    assert not states_nothing(units(response), reader_instructions(), part_names())
    out, _ = judged(language, response)
    assert "states nothing" not in str(out["faithfulness_reason"])


def test_the_units_that_state_nothing():
    assert [empty_item(u) for u in ("1.", "12)", "-", "# 3.", "3", "1. Three", "a.")] == \
        [True, True, True, True, False, False, False]
    assert [is_question(u) for u in ("¿Qué es?", "¿Qué es", "1. What is it?", "What is it", "It is 3.")] == \
        [True, True, True, False, False]
