"""The readers take time linear in their input (issue 65 item 1): a run of one character made
the word and literal readers backtrack (a 100 KB answer of `_` ran past 300 s on the event
loop). Each pathological shape is read at 100 KB; the bound is loose on purpose (the quadratic
readers took about 2 minutes there, the linear ones take under 0.3 s; at 1 MB they take
under 2.2 s), so the test cannot flake on a busy machine and still fails on a quadratic
pattern, in minutes rather than hours."""

from __future__ import annotations

import time

import pytest

from ragmeter.reading.addressed import addressed_to_judge
from ragmeter.reading.blocks import blocks, units
from ragmeter.reading.conflicts import disagreements
from ragmeter.reading.excerpts import excerpts
from ragmeter.reading.literals import literals, missing_each
from ragmeter.reading.words import match_words

N = 100_000
BOUND = 5.0  # seconds for every reader over one shape


@pytest.mark.parametrize("text", ["_" * N, "-" * N, "`" * N, "a" * N, "{" * N, "a." * (N // 2), "a/" * (N // 2),
                                  "1." * (N // 2), "x\n" * (N // 2)],
                         ids=["underscores", "dashes", "backticks", "one-word", "braces", "dots", "slashes", "digits",
                              "lines"])
def test_every_reader_reads_a_long_run_of_one_character_in_linear_time(text):
    start = time.perf_counter()
    literals(text)
    match_words(text)
    blocks(text)
    units(text)
    addressed_to_judge(text, language="english")
    missing_each([text], ["a context"])
    excerpts("The server listens on port 8080.", [text, "another context"])
    disagreements(["The server listens on port 8080 by default."], [text, "another context"], language="english")
    assert time.perf_counter() - start < BOUND


@pytest.mark.parametrize("text", ["a" * N, "`" * N, "a." * (N // 2), "=\n" * (N // 2), "x\n" * (N // 2),
                                  ".. a:: b\n   c\n" * (N // 14), "A\n   b\n" * (N // 7)],
                         ids=["one-word", "backticks", "dots", "underlines", "lines", "directives", "man-sections"])
def test_the_test_set_readers_read_a_whole_document_in_linear_time(text):
    """A test set reads each whole document for its outline and its names (issue 62): a line
    per directive once rescanned the rest of the document (quadratic), a long word backtracked
    in the name pattern."""
    from ragmeter.reading.outline import outline
    from ragmeter.reading.questions import folded_words, names_subject, naming_words

    start = time.perf_counter()
    outline(text)
    names = naming_words(text, "english", names_only=True)
    names_subject("What does textwrap.wrap return?", naming_words(text, "english"), names | folded_words(text), language="english")
    assert time.perf_counter() - start < BOUND
