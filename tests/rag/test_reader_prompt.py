"""The baseline's reader prompt read back from its answers (issue 76 item 4): a decline said as
the prompt tells the reader to say it is a decline, not an echo of the prompt."""

from __future__ import annotations

import pytest

from ragmeter.rag.prompt import declines, echoes_prompt, load_answer_prompt


@pytest.mark.parametrize("language, answer", [
    ("spanish", "Los documentos no responden a la pregunta."),
    ("spanish", "Lo siento: los documentos no responden a la pregunta sobre el teletrabajo."),
    ("english", "The documents do not answer the question."),
])
def test_the_prompts_own_decline_is_a_decline_not_an_echo(language, answer):
    prompt = load_answer_prompt(language=language)
    assert not echoes_prompt(answer, prompt)
    assert declines(answer, prompt)


@pytest.mark.parametrize("language, answer", [
    ("spanish", "Da una respuesta completa a la pregunta: el plazo es de 30 días."),
    ("spanish", "Pregunta: ¿cuántos días?"),
    ("english", "Respond only to the question asked; the answer is 30 days."),
])
def test_an_answer_repeating_the_instructions_is_still_an_echo(language, answer):
    prompt = load_answer_prompt(language=language)
    assert echoes_prompt(answer, prompt)
    assert not declines(answer, prompt)


def test_an_answer_is_not_a_decline_for_holding_its_words_apart():
    prompt = load_answer_prompt(language="english")
    assert not declines("The documents do not answer the questionnaire's second part.", prompt)
    assert not declines("The plan covers 30 days.", prompt)


def test_the_decline_sentence_is_not_part_of_what_the_reader_is_sent():
    """Declaring the decline changes no prompt the generator sees, so no answer cache."""
    prompt = load_answer_prompt(language="english")
    assert prompt.version == prompt.model_copy(update={"decline": None}).version
