"""Whether a text is written in the run's language is the identifier's to say (issue 74 item 3):
by English and Spanish stop words, French, Portuguese and Italian read as Spanish, so a French
question passed a Spanish test set's check and a French passage counted as written in Spanish."""

from __future__ import annotations

import pytest

from ragmeter.reading.identify import knows, language_mismatch, written_in

FOREIGN = {
    "french": "Combien de jours par semaine peut-on télétravailler ? La demande est adressée au responsable.",
    "german": "Wie viele Tage pro Woche darf man im Homeoffice arbeiten? Der Antrag geht an die Teamleitung.",
    "portuguese": "Quantos dias por semana se pode trabalhar remotamente? O pedido vai para o responsável.",
    "italian": "Quanti giorni alla settimana si può lavorare da casa? La richiesta va al responsabile.",
    "russian": "Сколько дней в неделю можно работать удалённо? Заявка подаётся руководителю.",
}


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_a_text_in_a_language_without_an_entry_is_neither_spanish_nor_english(name):
    text = FOREIGN[name]
    assert language_mismatch(text, "spanish") and language_mismatch(text, "english")
    assert not written_in(text, "spanish") and not written_in(text, "english")


def test_english_and_spanish_read_as_themselves_and_not_as_each_other():
    english, spanish = "How many days a week can I work from home?", "¿Cuántos días a la semana puedo teletrabajar?"
    assert written_in(english, "english") and not language_mismatch(english, "english")
    assert written_in(spanish, "spanish") and not language_mismatch(spanish, "spanish")
    assert language_mismatch(english, "spanish") and language_mismatch(spanish, "english")


def test_what_the_identifier_cannot_tell_is_no_mismatch_and_not_written_in():
    assert not language_mismatch("Kubernetes 1.29", "english") and not written_in("Kubernetes 1.29", "english")
    assert not language_mismatch("Combien de jours ?", "klingon") and not written_in("Combien", "klingon")


def test_the_identifier_knows_the_codes_of_the_languages_it_names():
    assert knows("en") and knows("es") and knows("ru") and not knows("qx")
