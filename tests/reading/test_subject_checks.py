"""No-model checks of a test-set question (issue 62): it names its subject, its answer does
not restate it, the corpus's language."""

from ragmeter.reading.questions import (
    folded_words,
    names_subject,
    naming_words,
    restates_question,
)

DOC = "The textwrap module wraps text. TextWrapper has a `break_on_hyphens` attribute; see PEP 0257."


def subject(language="english"):
    return (naming_words("textwrap", language, short=True) | naming_words("Text wrapping and filling", language)
            | naming_words("TextWrapper", language))


def test_a_question_names_a_word_of_its_subject_or_a_name_its_document_holds():
    held = folded_words(DOC)
    assert names_subject("What does textwrap.shorten return?", subject(), held, language="english")
    assert names_subject("What is the default of `break_on_hyphens`?", subject(), held, language="english")  # a name the doc holds
    assert names_subject("What does PEP 257 require?", subject(), held, language="english")  # 0257 and 257 are one number
    assert not names_subject("What is the default value of the parameter?", subject(), held, language="english")
    assert not names_subject("What is the default of `skip`?", subject(), held, language="english")  # a name the doc does not hold
    assert names_subject("Anything at all?", set(), held, language="english")  # no subject words: nothing to check
    # two-letter names come from a file's name only (tr.txt), in Spanish too
    tr = naming_words("tr", "spanish", short=True)
    assert names_subject("¿Qué opciones de tr existen?", tr, set(), "spanish")
    assert not names_subject("¿Qué opciones de la orden existen?", tr, set(), "spanish")


def test_an_answer_whose_letters_stand_in_its_question_restates_it():
    assert restates_question("What is the name of the disk cache library?", "DiskCache.", language="english")
    assert not restates_question("What is the name of the disk cache library?", "python-diskcache 5.6", language="english")
    assert not restates_question("Is DiskCache thread-safe?", "Yes, DiskCache is thread-safe.", language="english")  # yes answers


