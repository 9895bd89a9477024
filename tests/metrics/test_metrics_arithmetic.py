"""Seed 000's worked examples and the edge cases, with the judge scripted."""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter.embeddings.base import cosine
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.metrics.context_precision import average_precision
from ragmeter.metrics.context_relevance import relevance
from ragmeter.metrics.response_relevancy import relevancy
from tests.conftest import TableEmbedder

EINSTEIN = {"id": "e1", "user_input": "Where and when was Einstein born?",
            "response": "Einstein was born in Germany on 20th March 1879.",
            "retrieved_contexts": ["Albert Einstein (born 14 March 1879) was a German-born theoretical physicist."],
            "reference": "Albert Einstein was born in Germany on 14 March 1879."}

#: faithfulness with the judge writing the statements (Ragas), as these tests script it: every
#: statement in one verdicts call and the share supported, the mode before issue 72
RAGAS_FAITHFULNESS = {"faithfulness": {"statements": "judge", "verdicts": {"calls": "one"}, "combine": "mean"}}


def v(*flags: int) -> dict:
    return {"verdicts": [{"reason": f"r{i}", "verdict": f} for i, f in enumerate(flags)]}


def evaluate(rows, metrics, script, embedder=None, **kw):
    judge = ScriptedJudge(script)
    result = ragmeter.evaluate(rows, metrics, judge=judge, embeddings=embedder or TableEmbedder({}),
                               cache=False, progress=False, **kw)
    return result, judge


def test_average_precision_seed_example():
    assert round(average_precision([0, 1, 1]), 4) == 0.5833
    assert average_precision([1, 1, 1]) == 1.0
    assert average_precision([0, 0, 0]) == 0.0
    assert average_precision([1, 0, 0]) == 1.0
    assert average_precision([0, 0, 1]) == pytest.approx(1 / 3)


def test_context_precision_seed_example_through_the_engine():
    row = {**EINSTEIN, "retrieved_contexts": ["irrelevant", "relevant a", "relevant b"]}
    result, judge = evaluate([row], ["context_precision"], {"context_precision.usefulness": v(0, 1, 1)})
    out = result.rows[0]
    assert round(out["context_precision"], 4) == 0.5833
    assert [x["verdict"] for x in out["context_precision_evidence"]["verdicts"]] == [0, 1, 1]
    assert judge.calls() == 1
    # the schema demands exactly one verdict per chunk
    schema = judge.requests[0].schema
    assert schema["properties"]["verdicts"]["minItems"] == schema["properties"]["verdicts"]["maxItems"] == 3


def test_context_precision_with_reference_sends_the_reference():
    result, judge = evaluate([EINSTEIN], ["context_precision_with_reference"],
                             {"context_precision_with_reference.usefulness": v(1)})
    assert result.rows[0]["context_precision_with_reference"] == 1.0
    assert "reference: Albert Einstein was born in Germany" in judge.requests[0].messages[-1]["content"]


def test_faithfulness_einstein_example_is_one_half():
    script = {"faithfulness.statements": {"statements": ["Einstein was born in Germany.",
                                                         "Einstein was born on 20th March 1879."]},
              "faithfulness.verdicts": v(1, 0)}
    result, judge = evaluate([EINSTEIN], [RAGAS_FAITHFULNESS], script)
    out = result.rows[0]
    assert out["faithfulness"] == 0.5
    assert [s["statement"] for s in out["faithfulness_evidence"]["statements"]] == [
        "Einstein was born in Germany.", "Einstein was born on 20th March 1879."]
    assert out["faithfulness_reason"] == "1 of 2 statements supported by the contexts"
    assert judge.calls() == 2


def test_faithfulness_zero_statements_is_unscored_not_nan():
    result, judge = evaluate([EINSTEIN], [RAGAS_FAITHFULNESS], {"faithfulness.statements": {"statements": []}})
    out = result.rows[0]
    assert out["faithfulness"] is None
    assert out["faithfulness_reason"] == "the judge found no statements in the response"
    assert judge.calls("faithfulness.verdicts") == 0
    assert result.manifest["metrics"]["faithfulness"]["unscored"] == 1
    assert result.manifest["metrics"]["faithfulness"]["n"] == 0


def test_faithfulness_repeated_statements_are_dropped_before_verdicts():
    script = {"faithfulness.statements": {"statements": ["A is B.", "a is  b.", "C is D."]},
              "faithfulness.verdicts": v(1, 1)}
    result, judge = evaluate([EINSTEIN], [RAGAS_FAITHFULNESS], script)
    assert result.rows[0]["faithfulness"] == 1.0
    assert result.rows[0]["faithfulness_evidence"]["repeats_dropped"] == 1


def test_context_recall_three_of_four_claims():
    ref = "Einstein was a physicist. He was born in Ulm. He was born in 1879. He won a Nobel Prize in 1921."
    result, judge = evaluate([{**EINSTEIN, "reference": ref}], ["context_recall"],
                             {"context_recall.attribution": v(1, 1, 0, 1)})
    out = result.rows[0]
    assert out["context_recall"] == 0.75
    assert [c["statement"] for c in out["context_recall_evidence"]["claims"]] == [
        "Einstein was a physicist.", "He was born in Ulm.", "He was born in 1879.", "He won a Nobel Prize in 1921."]
    assert [c["attributed"] for c in out["context_recall_evidence"]["claims"]] == [1, 1, 0, 1]
    assert "[4] He won a Nobel Prize in 1921." in judge.requests[0].messages[-1]["content"]


def test_sentence_splitter_keeps_numbers_and_abbreviations():
    from ragmeter.reading.sentences import split_sentences

    assert split_sentences("Everest is 8,849 m high. Dr. Smith agrees! Is it? Yes.") == [
        "Everest is 8,849 m high.", "Dr. Smith agrees!", "Is it?", "Yes."]
    assert split_sentences("  ") == []


def test_response_relevancy_mean_cosine_and_noncommittal():
    q = EINSTEIN["user_input"]
    table = {q: [1.0, 0.0, 0.0], "g1": [1.0, 0.0, 0.0], "g2": [0.0, 1.0, 0.0], "g3": [1.0, 1.0, 0.0]}
    script = {"response_relevancy.questions": {"questions": ["g1", "g2", "g3"], "noncommittal": 0}}
    result, _ = evaluate([EINSTEIN], ["response_relevancy"], script, TableEmbedder(table))
    expected = (1.0 + 0.0 + 1 / 2 ** 0.5) / 3
    assert result.rows[0]["response_relevancy"] == pytest.approx(expected)
    assert result.rows[0]["response_relevancy_evidence"]["generated_questions"] == ["g1", "g2", "g3"]
    script = {"response_relevancy.questions": {"questions": ["g1", "g2", "g3"], "noncommittal": 1}}
    result, _ = evaluate([EINSTEIN], ["response_relevancy"], script, TableEmbedder(table))
    assert result.rows[0]["response_relevancy"] == 0.0
    assert result.rows[0]["response_relevancy_reason"] == "noncommittal response"


def test_response_relevancy_asks_for_exactly_three_questions():
    script = {"response_relevancy.questions": {"questions": ["only one"], "noncommittal": 0}}
    result, judge = evaluate([EINSTEIN], ["response_relevancy"], script)
    assert result.rows[0]["response_relevancy"] is None  # one question is not three: re-asked, then unscored
    assert "unparseable" in result.rows[0]["response_relevancy_reason"]
    assert judge.calls() == 2
    assert result.manifest["metrics"]["response_relevancy"]["unparseable"] == 1


def test_relevancy_and_cosine_helpers():
    assert cosine([1, 0], [0, 1]) == 0.0
    assert relevancy([-0.2, -0.1], False) == 0.0  # clamped into [0, 1]
    assert relevancy([0.5, 0.7], True) == 0.0


def test_context_relevance_two_templates_averaged():
    script = {"context_relevance.rating1": {"rating": 2}, "context_relevance.rating2": {"rating": 1}}
    result, judge = evaluate([EINSTEIN], ["context_relevance"], script)
    assert result.rows[0]["context_relevance"] == 0.75
    assert judge.calls() == 2
    assert relevance([2, None]) == 1.0


def test_context_relevance_one_invalid_rating_uses_the_other():
    script = {"context_relevance.rating1": ["no json here", "still none"], "context_relevance.rating2": {"rating": 1}}
    result, _ = evaluate([EINSTEIN], ["context_relevance"], script)
    assert result.rows[0]["context_relevance"] == 0.5
    assert result.rows[0]["context_relevance_evidence"]["ratings"] == [None, 1]


def test_context_identical_to_question_is_zero_without_a_call():
    row = {**EINSTEIN, "retrieved_contexts": [EINSTEIN["user_input"]]}
    result, judge = evaluate([row], ["context_relevance"], {})
    assert result.rows[0]["context_relevance"] == 0.0
    assert judge.calls() == 0


@pytest.mark.parametrize("question, context, unshared, calls", [
    # the contexts hold no word the question asks about: 0, no call (issue 63)
    ("Where was the Eiffel Tower built?", "The Colosseum is an amphitheatre in the centre of Rome.", "zero", 0),
    ("Where was the Eiffel Tower built?", "The Colosseum is an amphitheatre in the centre of Rome.", "judge", 2),
    ("Where were the towers built?", "The tower was built in Paris for the fair.", "zero", 2),  # plural folded
    # a Spanish passage for an English question shares no word and may answer it: judged
    ("Where was the Eiffel Tower built?", "La torre se construyó en París para la exposición de 1889.", "zero", 2),
    ("eiffel tower paris", "The Colosseum is an amphitheatre in the centre of Rome.", "zero", 2),  # keywords: no language
])
def test_contexts_that_share_no_asked_word_score_0_without_a_call_when_asked(question, context, unshared, calls):
    script = {"context_relevance.rating1": {"rating": 2}, "context_relevance.rating2": {"rating": 2}}
    row = {"id": "r", "user_input": question, "retrieved_contexts": [context]}
    result, judge = evaluate([row], [{"context_relevance": {"unshared": unshared}}], script)
    assert judge.calls() == calls
    assert result.rows[0]["context_relevance"] == (0.0 if calls == 0 else 1.0)
    assert ("no_judge_call" in result.rows[0]["context_relevance_evidence"]) is (calls == 0)


@pytest.mark.parametrize("question, context", [
    ("How do I delete a user account?", "To remove a login, run userdel with the name."),
    ("What does the car cost?", "The vehicle is priced at 20,000 euros."),
    ("Does the tool have a CLI?", "A command-line interface ships with the package."),
])
def test_a_passage_in_other_words_is_judged_by_default(question, context):
    """Issue 77 item 4: no shared word is no rule that holds by construction."""
    script = {"context_relevance.rating1": {"rating": 2}, "context_relevance.rating2": {"rating": 2}}
    row = {"id": "r", "user_input": question, "retrieved_contexts": [context]}
    result, judge = evaluate([row], ["context_relevance"], script)
    assert judge.calls() == 2 and result.rows[0]["context_relevance"] == 1.0
    zero, _ = evaluate([row], [{"context_relevance": {"unshared": "zero"}}], script)
    assert zero.rows[0]["context_relevance"] == 0.0  # what the short-cut read


def test_one_template_asks_one_call():
    script = {"context_relevance.rating1": {"rating": 1}}
    result, judge = evaluate([EINSTEIN], [{"context_relevance": {"templates": "first"}}], script)
    assert result.rows[0]["context_relevance"] == 0.5 and judge.calls() == 1


def test_empty_contexts_are_unscored_with_reason_and_no_call():
    row = {**EINSTEIN, "retrieved_contexts": []}
    names = ["context_precision", "context_recall", "faithfulness", "context_relevance"]
    result, judge = evaluate([row], names, {})
    for name in names:
        assert result.rows[0][name] is None
        assert result.rows[0][f"{name}_reason"] == "empty field(s): retrieved_contexts"
        assert result.manifest["metrics"][name]["unscored"] == 1
    assert judge.calls() == 0


def test_summary_mean_and_n_ignore_unscored_rows():
    rows = [{**EINSTEIN, "id": "a"}, {**EINSTEIN, "id": "b", "response": "  "}, {**EINSTEIN, "id": "c"}]
    script = {"faithfulness.statements": [{"statements": ["x"]}, {"statements": ["y", "z"]}],
              "faithfulness.verdicts": [v(1), v(0, 1)]}
    result, _ = evaluate(rows, [RAGAS_FAITHFULNESS], script)
    m = result.manifest["metrics"]["faithfulness"]
    assert (m["n"], m["unscored"], m["mean"]) == (2, 1, 0.75)
    assert m["unscored_reasons"] == {"empty field(s): response": 1}
    assert m["judge_calls"] == 4


def test_excerpts_keep_one_short_context_whole_and_cut_the_rest_to_the_claims_sentences():
    from ragmeter.reading.excerpts import excerpts

    one = ["The tower is in Paris. It was built in 1889."]
    assert excerpts("The tower is in Paris.", one) == one  # one context under the budget: as it was
    short = ["The tower is in Paris.", "Roses grow in gardens."]
    assert excerpts("The tower is in Paris.", short) == ["The tower is in Paris."]  # several: always cut
    both = ["The tower is in Paris.", "It was built in 1889."]
    assert excerpts("The tower in Paris was built in 1889.", both) == both  # a claim two contexts make
    filler = " ".join(f"Sentence number {i} talks about gardens and roses." for i in range(30))
    long = [filler, "Gustave Eiffel's company built the tower. It opened in 1889 for the World's Fair. " + filler]
    shown = excerpts("The tower opened in 1889.", long)
    # only the second context has the claim's words; its best sentence comes with the one before it
    assert shown == ["Gustave Eiffel's company built the tower. It opened in 1889 for the World's Fair. …"]
    # markdown list items are sentences of their own even without a stop
    md = ["- first item about caching replies\n- second item about gardens\n\n" + filler]
    assert excerpts("caching replies", md, budget=10)[0].startswith("- first item about caching replies")
