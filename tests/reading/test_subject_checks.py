"""No-model checks of a test-set question (issue 62): it names its subject, its answer rests
on its quote, the corpus's language."""

from ragmeter.reading.questions import dominant_language, folded_words, names_subject, naming_words
from ragmeter.reading.quotes import answer_rests_on, quoted

DOC = "The textwrap module wraps text. TextWrapper has a `break_on_hyphens` attribute; see PEP 0257."


def subject(language="english"):
    return (naming_words("textwrap", language, short=True) | naming_words("Text wrapping and filling", language)
            | naming_words("TextWrapper", language))


def test_a_question_names_a_word_of_its_subject_or_a_name_its_document_holds():
    held = folded_words(DOC)
    assert names_subject("What does textwrap.shorten return?", subject(), held)
    assert names_subject("What is the default of `break_on_hyphens`?", subject(), held)  # a name the doc holds
    assert names_subject("What does PEP 257 require?", subject(), held)  # 0257 and 257 are one number
    assert not names_subject("What is the default value of the parameter?", subject(), held)
    assert not names_subject("What is the default of `skip`?", subject(), held)  # a name the doc does not hold
    assert names_subject("Anything at all?", set(), held)  # no subject words: nothing to check
    # two-letter names come from a file's name only (tr.txt), in Spanish too
    tr = naming_words("tr", "spanish", short=True)
    assert names_subject("¿Qué opciones de tr existen?", tr, set(), "spanish")
    assert not names_subject("¿Qué opciones de la orden existen?", tr, set(), "spanish")


def test_a_quote_must_be_in_the_chunk_and_hold_the_answer():
    chunk = "The tower was  completed in 1889 for the World's Fair.\nIt is 330 metres tall."
    assert quoted("the tower was completed in 1889", chunk)  # spacing and case aside
    assert not quoted("The Eiffel Tower was completed in 1889", "Wraps text to 70 columns by default.")
    assert answer_rests_on("In 1889.", "completed in 1889")
    assert answer_rests_on("Completed in 1889.", "was completed in 1889", "When was it built?")
    assert not answer_rests_on("Gustave Eiffel designed it.", "completed in 1889")
    assert answer_rests_on("Yes.", "anything")  # no word to check


def test_the_corpus_language_is_the_one_whose_stop_words_it_holds():
    assert dominant_language("La sentencia try funciona de la siguiente manera: primero se ejecuta la cláusula.") \
        == "spanish"
    assert dominant_language("The try statement works as follows: first the try clause is run.") == "english"
    assert dominant_language("12345 67890") is None
