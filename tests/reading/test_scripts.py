"""Readers in any script (issue 74 item 3): the sentence splitter knew the capitals A-Z and
ÁÉÍÓÚÑÜ only, so a sentence opening with À, Ç, Ö or any Greek or Cyrillic letter was never cut
from the one before it (a Russian paragraph of three sentences read as one), and a Chinese
paragraph, written without spaces, was one sentence. A toy language written in Cyrillic checks
the readers that take a language's words."""

from __future__ import annotations

import pytest

from ragmeter.judge_check.claims import claim_sentences
from ragmeter.reading import languages
from ragmeter.reading.blocks import units
from ragmeter.reading.identify import language_mismatch
from ragmeter.reading.languages import ENGLISH, Vocabulary
from ragmeter.reading.literals import negations
from ragmeter.reading.sentences import split_sentences, starts_sentence


@pytest.mark.parametrize("text, sentences", [
    ("Москва — столица России. Это крупнейший город страны. В нём живут 13 миллионов человек.",
     ["Москва — столица России.", "Это крупнейший город страны.", "В нём живут 13 миллионов человек."]),
    ("Η Αθήνα είναι η πρωτεύουσα. Έχει πολλά μουσεία.", ["Η Αθήνα είναι η πρωτεύουσα.", "Έχει πολλά μουσεία."]),
    ("Le musée ouvre le matin. À midi, il ferme. Ça dure une heure.",
     ["Le musée ouvre le matin.", "À midi, il ferme.", "Ça dure une heure."]),
    ("Die Tür ist offen. Öffnen Sie das Fenster.", ["Die Tür ist offen.", "Öffnen Sie das Fenster."]),
    ("东京是日本的首都。它很大。", ["东京是日本的首都。", "它很大。"]),
    ("Ver p. ej. la tabla. El resto sigue.", ["Ver p. ej. la tabla.", "El resto sigue."]),
    ("Vivió en EE. UU. durante años. Volvió en 1990.", ["Vivió en EE. UU. durante años.", "Volvió en 1990."]),
    ("Llegó a EE. UU. Allí trabajó.", ["Llegó a EE. UU.", "Allí trabajó."]),  # "UU." may end a sentence
    ("Ver la pág. 4 del informe. Fin.", ["Ver la pág. 4 del informe.", "Fin."]),
    ("I love art. It is great.", ["I love art.", "It is great."]),
    ("It ends here. but this is lowercase, so it goes on.", ["It ends here. but this is lowercase, so it goes on."]),
])
def test_sentences_are_cut_in_any_script(text, sentences):
    assert split_sentences(text) == sentences


def test_a_sentences_first_letter_in_any_script():
    assert [starts_sentence(c) for c in "AÀÇÖΣДЖ中ع7aàçöσдж_-"] == [True] * 10 + [False] * 9


def test_an_answers_units_and_a_contexts_claims_in_cyrillic():
    answer = "Сервер слушает порт 8080. ✅ Проверено. Всё работает."
    assert units(answer) == ["Сервер слушает порт 8080.", "✅ Проверено.", "Всё работает."]
    context = "Сервер слушает порт 8080 на каждом узле кластера. Клиент подключается к нему через балансировщик."
    assert claim_sentences(context) == ["Сервер слушает порт 8080 на каждом узле кластера.",
                                        "Клиент подключается к нему через балансировщик."]


#: a toy language written in Cyrillic letters: English words transliterated
CYRILLIC = Vocabulary(
    name="cyrtoy", code="qx", aliases=(), negations=("нот", "невер"), negation_endings=(),
    stop_words=frozenset({"тхе", "оф", "из", "вхат", "анд"}), abbreviations=frozenset({"ег"}),
    asking=frozenset({"пурпосе"}), yes_no=frozenset({"ес", "но"}), pointing=r"тхе\s+пассаге",
    addressing=ENGLISH.addressing, refusal="Тхе документс до нот ансвер тхис.", samples=ENGLISH.samples)


@pytest.fixture()
def cyrillic():
    languages.register(CYRILLIC)
    yield CYRILLIC
    languages.unregister("cyrtoy")


def test_a_language_in_another_script_is_read_with_its_own_words(cyrillic):
    assert negations("Тхе сервер из нот реади. Ит невер вас.", "cyrtoy") == 2
    assert negations("The server is not ready.", "cyrtoy") == 0  # English words are not this run's
    assert not language_mismatch("Вхат из тхе порт оф тхе сервер анд тхе клиент?", "cyrtoy")
    assert language_mismatch("What is the port of the server and the client?", "cyrtoy")
