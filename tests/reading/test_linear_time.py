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
    addressed_to_judge(text)
    missing_each([text], ["a context"])
    excerpts("The server listens on port 8080.", [text, "another context"])
    disagreements(["The server listens on port 8080 by default."], [text, "another context"])
    assert time.perf_counter() - start < BOUND
