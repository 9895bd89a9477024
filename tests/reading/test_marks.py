"""Marks a reader reads past (reading/marks.py), emphasis that is no literal detail, and
sentences cut in the right places in the languages a page is written in."""

from __future__ import annotations

from ragmeter.reading.literals import literals
from ragmeter.reading.marks import item_number, list_marker, without_list_marker, without_marks
from ragmeter.reading.sentences import split_sentences


def test_list_markers_as_commonmark_writes_them():
    assert [list_marker(x) for x in ("- a", "  * b", "12) c", "3. d", "-x", "1.5 e", "**bold**")] == \
        ["- ", "  * ", "12) ", "3. ", None, None, None]
    assert (item_number("2. Run it"), item_number("- Run it")) == (2, None)
    assert without_list_marker("  + item") == "item"


def test_a_sentence_without_its_marks():
    assert without_marks("- **Note**: see [the guide](http://x.org) and `run()` __now__.") == \
        "Note: see the guide and run() now."


def test_emphasis_markers_are_no_literal_details():
    assert literals("__Label__: the **bold** value is 42.") == ["42"]
    assert literals("**Note**: keep `x_y` set.") == ["x_y"]


def test_abbreviations_with_spaces_do_not_cut_a_sentence():
    assert split_sentences("The U. S. Army was founded in 1775. It grew fast.") == \
        ["The U. S. Army was founded in 1775.", "It grew fast."]
    assert split_sentences("Use a tool, e. g. Make. It builds things.") == \
        ["Use a tool, e. g. Make.", "It builds things."]


def test_french_german_and_russian_paragraphs_cut_into_their_sentences():
    assert split_sentences("Le serveur écoute le port 8080. Il démarre, p. ex. avec systemd. Ça marche bien.") == \
        ["Le serveur écoute le port 8080.", "Il démarre, p. ex. avec systemd.", "Ça marche bien."]
    assert split_sentences("Der Server hört auf Port 8080. Er startet z. B. mit systemd. Das ist gut, d. h. stabil.") \
        == ["Der Server hört auf Port 8080.", "Er startet z. B. mit systemd.", "Das ist gut, d. h. stabil."]
    assert split_sentences("Сервер слушает порт 8080. Он запускается, т. е. сразу. Это удобно.") == \
        ["Сервер слушает порт 8080.", "Он запускается, т. е. сразу.", "Это удобно."]
    # a capital after the initials: only the initials keep the sentence whole
    assert split_sentences("Er startet z. B. Systemd. Das ist gut.") == ["Er startet z. B. Systemd.", "Das ist gut."]
    assert split_sentences("Он запускается, т. е. Сразу. Это удобно.") == ["Он запускается, т. е. Сразу.", "Это удобно."]
