"""Short answers judged with their question, and excerpts that hold the claim's sentence
(issue 35, parts 1 and 2), with the judge scripted."""

from __future__ import annotations

import pytest

from ragmeter.metrics.faithfulness import is_short
from ragmeter.reading.excerpts import excerpts
from tests.metrics.test_metrics_arithmetic import evaluate, v

HTTPLIB = ["httplib2 is a comprehensive HTTP client library, httplib2.py supports many features left out of "
           "other HTTP libraries. It caches responses and follows redirects. More example usage can be found "
           "at:\n* https://github.com/httplib2/httplib2/wiki/Examples\n* https://github.com/httplib2/httplib2/wiki"
           "/Examples-Python3",
           "Zstandard is a fast compression algorithm. The training mode is selected with `zstd --train FILES`."
           " Dictionaries help small data compress better than anything else can."]
ROW = {"id": "h1", "user_input": "What is the name of the HTTP client library?", "response": "httplib2",
       "retrieved_contexts": HTTPLIB}


@pytest.mark.parametrize(("answer", "short"), [
    ("httplib2", True), ("0-99", True), ("Yes, it does.", True), ("Training mode.", True),
    ("the ISC license", True), ("France is in Western Europe.", False),
    ("It caches responses and follows many redirects", False), ("", False)])
def test_a_short_answer_is_a_name_a_number_or_a_fragment_not_a_short_sentence(answer, short):
    assert is_short(answer) is short


def test_by_default_a_short_answer_is_judged_with_its_question_in_one_call():
    result, judge = evaluate([ROW], ["faithfulness"], {"faithfulness.verdicts": v(1)})
    evidence = result.rows[0]["faithfulness_evidence"]
    assert [s["statement"] for s in evidence["statements"]] == ["What is the name of the HTTP client library? httplib2"]
    assert evidence["statements_from"] == "short answer: question"
    assert judge.calls() == 1
    # the excerpts were chosen with the question: the sentence that says what httplib2 is, not the URL lines
    shown = evidence["statements"][0]["excerpts"]  # each statement is shown excerpts of its own (issue 72)
    assert shown[0].startswith("httplib2 is a comprehensive HTTP client library")
    assert "github.com" not in " ".join(shown)


REWRITE = {"faithfulness": {"short_answers": "rewrite"}}


def test_a_short_answer_can_be_rewritten_with_its_question_and_that_statement_is_judged():
    rewritten = "The HTTP client library is named httplib2."
    result, judge = evaluate([ROW], [REWRITE], {"faithfulness.statements": {"statements": [rewritten]},
                                                "faithfulness.verdicts": v(1)})
    out = result.rows[0]
    assert out["faithfulness"] == 1.0
    evidence = out["faithfulness_evidence"]
    assert [s["statement"] for s in evidence["statements"]] == [rewritten]
    assert evidence["statements_from"] == "short answer: rewrite"
    statements_request = judge.requests[0]
    assert statements_request.tag == "faithfulness.statements"
    assert "What is the name of the HTTP client library?" in statements_request.messages[-1]["content"]
    assert statements_request.schema["properties"]["statements"]["maxItems"] == 1  # one claim, not four
    # the excerpts were chosen with the question: the sentence that says what httplib2 is, not the URL lines
    shown = evidence["statements"][0]["excerpts"]
    assert shown[0].startswith("httplib2 is a comprehensive HTTP client library")
    assert "github.com" not in " ".join(shown)


def test_a_rewrite_that_drops_the_answer_is_not_trusted_question_and_answer_are_judged_together():
    script = {"faithfulness.statements": {"statements": ["The library caches responses."]},
              "faithfulness.verdicts": v(0)}
    result, judge = evaluate([ROW], [REWRITE], script)
    claims = [s["statement"] for s in result.rows[0]["faithfulness_evidence"]["statements"]]
    assert claims == ["What is the name of the HTTP client library? httplib2"]
    assert judge.calls("faithfulness.verdicts") == 1


def test_short_answers_alone_and_rows_without_a_question():
    result, judge = evaluate([ROW], [{"faithfulness": {"short_answers": "alone"}}], {"faithfulness.verdicts": v(1)})
    assert [s["statement"] for s in result.rows[0]["faithfulness_evidence"]["statements"]] == ["httplib2"]
    no_question = {k: val for k, val in ROW.items() if k != "user_input"}
    result, judge = evaluate([no_question], ["faithfulness"], {"faithfulness.verdicts": v(0)})
    assert [s["statement"] for s in result.rows[0]["faithfulness_evidence"]["statements"]] == ["httplib2"]
    assert result.rows[0]["faithfulness_evidence"]["statements_from"] == "parts"
    assert judge.calls("faithfulness.statements") == 0


def test_a_yes_answer_may_be_stated_rather_than_repeated():
    row = {**ROW, "user_input": "Can zstd train dictionaries?", "response": "Yes."}
    stated = "Zstd can train dictionaries."
    result, _ = evaluate([row], [REWRITE], {"faithfulness.statements": {"statements": [stated]},
                                            "faithfulness.verdicts": v(1)})
    assert [s["statement"] for s in result.rows[0]["faithfulness_evidence"]["statements"]] == [stated]


def test_excerpts_choose_by_the_question_too_and_not_by_url_lines():
    shown = excerpts("httplib2", HTTPLIB, question="What is the name of the HTTP client library?")
    assert shown[0].startswith("httplib2 is a comprehensive HTTP client library")
    assert "github.com" not in " ".join(shown)
    # without the question the URL lines still lose: their addresses are not words of a sentence
    assert "github.com" not in " ".join(excerpts("httplib2", HTTPLIB))
    # a claim that holds an address is matched against addresses
    assert "Examples-Python3" in " ".join(excerpts("See https://github.com/httplib2/httplib2/wiki/Examples-Python3",
                                                   HTTPLIB))
    # the code line that shows `--train` is the evidence for a claim about it
    found = excerpts("The training mode for Zstd is specified with the --train option", HTTPLIB)
    assert any("zstd --train" in e for e in found)


def test_of_two_sentences_holding_the_claim_the_focused_one_ranks_first():
    licence = ("Permission is hereby granted to any person obtaining a copy of zstd software and associated "
               "documentation files to deal in the software without restriction including the rights to use "
               "copy modify merge publish distribute sublicense and sell copies of the compression software.")
    contexts = ["Zstd is a compression tool written in C. It is fast.", licence, licence.replace("copy ", "copies ")]
    shown = excerpts("zstd compression", contexts)  # three sentences hold both words; two are kept
    assert shown[0].startswith("Zstd is a compression tool") and len(shown) == 2
