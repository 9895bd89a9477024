"""Label probabilities on the real bundled judges: valid distributions, a supported claim
above an unsupported one, and a cached re-run that reproduces them exactly."""

from __future__ import annotations

import warnings

import pytest

import ragmeter
from ragmeter.judges.bundled import GEMMA_NOTE, JudgeValidityWarning
from ragmeter.judges.llamacpp.verdicts import NEAR_BAR
from tests.bundled import GEMMA

pytestmark = pytest.mark.model

QWEN = "llamacpp:qwen-coder-1.5b"
CONTEXT = ["The Eiffel Tower is a wrought-iron lattice tower in Paris, France, completed in 1889."]
ROWS = [{"id": "supported", "user_input": "Where is the Eiffel Tower?", "response": "The Eiffel Tower is in Paris.",
         "retrieved_contexts": CONTEXT},
        {"id": "unsupported", "user_input": "Where is the Eiffel Tower?",
         "response": "The Eiffel Tower is in Rome, Italy.", "retrieved_contexts": CONTEXT}]
METRICS = ["faithfulness", "context_relevance"]


@pytest.mark.parametrize("judge", [GEMMA, QWEN])
def test_probabilities_are_distributions_ordered_and_cached(judge, tmp_path):
    cache = tmp_path / "c.sqlite"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JudgeValidityWarning)
        first = ragmeter.evaluate(ROWS, METRICS, judge=judge, cache=cache, progress=False)
    # the small judge says it is not for decisions, from the API as from the CLI
    assert [str(w.message)[:40] for w in caught] == ([GEMMA_NOTE[:40]] if judge == GEMMA else [])
    for row in first.rows:
        statement = row["faithfulness_evidence"]["statements"][0]
        assert 0.0 <= statement["p_supported"] <= 1.0
        # the score is the verdict's probability, or 0 where a literal detail is in no context
        expected = 0.0 if statement.get("not_in_contexts") else statement["p_supported"]
        assert row["faithfulness"] == pytest.approx(expected, abs=1e-4)
        for probs in row["context_relevance_evidence"]["rating_probs"]:
            assert set(probs) == {"0", "1", "2"}
            assert all(0.0 <= p <= 1.0 for p in probs.values())
            assert sum(probs.values()) == pytest.approx(1.0, abs=1e-3)
        assert row["faithfulness_evidence"]["judgment"] == "probability"
    supported, unsupported = first.rows
    assert all("not_in_contexts" not in r["faithfulness_evidence"]["statements"][0] for r in first.rows)
    if judge == QWEN:  # Gemma is at chance (README): its two scores are a coin flip (0.6849 and 0.6857)
        assert supported["faithfulness"] > unsupported["faithfulness"]
    assert first.manifest["metrics"]["faithfulness"]["judgment"] == {"probability": 2}

    again = ragmeter.evaluate(ROWS, METRICS, judge=judge, cache=cache, progress=False)
    assert sum(m["judge_calls"] for m in again.manifest["metrics"].values()) == 0
    for a, b in zip(first.rows, again.rows):
        for metric in METRICS:
            assert a[metric] == b[metric] and a[f"{metric}_evidence"] == b[f"{metric}_evidence"]

    labels = ragmeter.evaluate(ROWS, [{"faithfulness": {"judgment": "label"}}], judge=judge, cache=cache,
                               progress=False)
    assert labels.manifest["metrics"]["faithfulness"]["judge_calls"] == 0  # same replies, read as labels
    assert [r["faithfulness"] for r in labels.rows] == [
        0.0 if s.get("not_in_contexts") else float(s["verdict"])
        for s in (r["faithfulness_evidence"]["statements"][0] for r in first.rows)]


def test_instruct_judge_separates_the_claims_clearly(tmp_path):
    rows = ragmeter.evaluate(ROWS, ["faithfulness"], judge=QWEN, cache=tmp_path / "c.sqlite", progress=False).rows
    # measured: 0.898 and 0.091; the base 270M model gives 0.270 and 0.264
    assert rows[0]["faithfulness"] > 0.8 and rows[1]["faithfulness"] < 0.2


def test_restored_prompt_prefix_gives_the_same_reply_as_a_computed_one():
    """The shared prefix (instruction, few-shot example) is evaluated once and its KV cells
    restored for later rows: a reply must not depend on whether its prefix was restored, in
    this run (memory) or from a file an earlier run saved (disk, issue 63)."""
    import asyncio

    from ragmeter.judges.base import JudgeRequest
    from ragmeter.judges.llamacpp.judge import LlamaCppJudge
    from ragmeter.judges.spec import make_judge

    schema = {"type": "object", "properties": {"verdict": {"type": "integer", "enum": [0, 1]},
                                               "reason": {"type": "string", "maxLength": 60}},
              "required": ["verdict", "reason"]}
    shared = [{"role": "system", "content": "Is the claim supported by the context? Reply in JSON."},
              {"role": "user", "content": "context: The sky is blue.\nclaim: The sky is green."},
              {"role": "assistant", "content": '{"verdict": 0, "reason": "The context says blue."}'}]
    requests = [JudgeRequest(shared + [{"role": "user", "content": f"context: {CONTEXT[0]}\nclaim: {row['response']}"}],
                             schema, 40) for row in ROWS]

    async def replies(order: list[int], prefixes: str) -> tuple[dict, int, int]:
        judge = make_judge({"spec": GEMMA, "prefixes": prefixes})
        assert isinstance(judge, LlamaCppJudge)
        out = {}
        for i in order:
            reply = await judge.complete(requests[i])
            out[i] = (reply.text, reply.labels)
        store = judge._prefixes.store
        return out, judge._prefixes.hits, store.reads if store is not None else -1

    computed, hits, reads = asyncio.run(replies([0, 1], "memory"))
    assert (hits, reads) == (1, -1)  # the second request restored what the first computed
    saved, hits, reads = asyncio.run(replies([1, 0], "disk"))
    assert (hits, reads) == (1, 0)  # computed and saved to disk, then restored
    restored, hits, reads = asyncio.run(replies([0, 1], "disk"))
    assert (hits, reads) == (2, 1)  # read from the file the run before saved: nothing evaluated
    assert computed == saved == restored


def test_reasons_change_the_tokens_written_never_the_scores(tmp_path):
    """The same rows with `reasons: all`, `failing` (the default) and `none`, each on a fresh
    cache: identical scores and verdict probabilities; the supported claim's reason is not
    written unless asked, the unsupported one's is; fewer completion tokens."""
    runs = {}
    for reasons in ("all", "failing", "none"):
        judge = {"spec": QWEN, "reasons": reasons}
        runs[reasons] = ragmeter.evaluate(ROWS, ["faithfulness"],
                                          judge=judge, cache=tmp_path / f"{reasons}.sqlite", progress=False)
    rows = {mode: run.rows for mode, run in runs.items()}
    for mode in ("failing", "none"):
        for a, b in zip(rows["all"], rows[mode]):
            assert a["faithfulness"] == b["faithfulness"]
    said = {mode: [r["faithfulness_evidence"]["statements"][0]["reason"] for r in rows[mode]] for mode in rows}
    assert said["failing"][0] == "no reason written (reasons: failing)" and said["failing"][1] == said["all"][1]
    assert said["none"] == ["no reason written (reasons: none)"] * 2 and not said["all"][0].startswith("no reason")
    tokens = {mode: run.manifest["metrics"]["faithfulness"]["completion_tokens"] for mode, run in runs.items()}
    assert tokens["none"] < tokens["failing"] < tokens["all"]
    assert runs["failing"].manifest["judge"]["reasons"] == "failing"


HTTPLIB = ["httplib2 is a comprehensive HTTP client library, httplib2.py supports many features left out of other "
           "HTTP libraries. More example usage can be found at:\n* https://github.com/httplib2/httplib2/wiki/Examples\n"
           "* https://github.com/httplib2/httplib2/wiki/Examples-Python3",
           "Zstandard is a fast compression algorithm. The training mode is selected with `zstd --train FILES`."]
ONE_VERDICT_ROWS = [
    {"id": "name", "user_input": "What is the name of the HTTP client library?", "response": "httplib2",
     "retrieved_contexts": HTTPLIB},
    {"id": "train", "user_input": "How is the training mode for Zstd selected?",
     "response": "The training mode for Zstd is specified with the `--train` option.", "retrieved_contexts": HTTPLIB},
    {"id": "wrong", "user_input": "What is the name of the HTTP client library?", "response": "zstd",
     "retrieved_contexts": HTTPLIB},
    {"id": "cache", "user_input": "What does httplib2 support?",
     "response": "httplib2 supports fewer features than other HTTP libraries.", "retrieved_contexts": HTTPLIB}]


def test_one_verdict_the_shown_verdict_count_and_reasons_follow_the_calibrated_score(tmp_path):
    """Issue 35: the score, the verdict shown, "N of M supported" and which reasons `failing`
    writes come from one (calibrated) probability, on the default judge and its defaults."""
    result = ragmeter.evaluate(ONE_VERDICT_ROWS, ["faithfulness"], judge=QWEN, cache=tmp_path / "c.sqlite",
                               progress=False)
    scores = {row["id"]: row["faithfulness"] for row in result.rows}
    for row in result.rows:
        evidence = row["faithfulness_evidence"]
        (statement,) = evidence["statements"]
        assert statement["verdict"] == int(statement["p_supported"] >= 0.5), row["id"]
        assert row["faithfulness_reason"] == f"{statement['verdict']} of 1 statements supported by the contexts"
        unwritten = statement["verdict"] == 1 and statement["p_supported"] >= NEAR_BAR  # near the bar: written
        assert statement["reason"].startswith("no reason written") is unwritten, row["id"]
    # the short answer was judged with its question, against the sentence that holds it
    name = result.rows[0]["faithfulness_evidence"]
    assert name["statements_from"] == "short answer: question"
    assert name["statements"][0]["statement"] == "What is the name of the HTTP client library? httplib2"
    # excerpts are chosen per statement, each judged in a call of its own (issue 72)
    assert name["statements"][0]["excerpts"][0].startswith("httplib2 is a comprehensive HTTP client library")
    assert scores["name"] >= 0.5 > scores["wrong"]


ZSTD = ["zstd offers a special mode for small data, called dictionary compression. The training mode is started "
        "with `zstd --train FullPathToTrainingSet/* -o dictionaryName`. Compression levels range from 1 to 19; "
        "the default is 3."]


def test_token_evidence_shows_the_word_the_context_contradicts():
    """Issue 35: the claim tokens' PMI given the context, read by the in-process judge in two
    prefills. A copied sentence has no token the context makes much less likely; the inserted
    "not" is made far less likely; an unrelated sentence gains nothing on average."""
    import asyncio

    from ragmeter.judges.base import ClaimEvidence, JudgeRequest
    from ragmeter.judges.spec import make_judge
    from ragmeter.prompts.template import builtin_prompt

    prompt = builtin_prompt("faithfulness", "verdicts")
    judge = make_judge(QWEN)

    def read(claim: str) -> dict:
        inputs = {"contexts": ZSTD, "statements": [claim]}
        bare = prompt.messages({"contexts": [], "statements": [claim]})
        request = JudgeRequest(prompt.messages(inputs), max_tokens=4, evidence=ClaimEvidence((claim,), tuple(bare)))
        return asyncio.run(judge.complete(request)).evidence[0]

    copied = read("Compression levels range from 1 to 19.")
    negated = read("Compression levels do not range from 1 to 19.")
    unrelated = read("Paris is the capital of France.")
    verbatim = read("zstd offers a special mode for small data, called dictionary compression.")  # read after the context's copy
    assert copied["tokens"] >= 8 and copied["min"] > -2.0 and copied["mean"] > 1.0
    # the weakest token is where the claim leaves the context: "do" (of "do not"), after "Compression levels"
    assert negated["min"] < copied["min"] - 2.0 and negated["weakest"] == "do"
    assert unrelated["mean"] < 0.5 < copied["mean"]
    assert verbatim["tokens"] >= 12 and verbatim["mean"] > 1.0


def test_context_relevance_from_the_questions_likelihood_on_the_real_model():
    """Issue 35: a paragraph that answers the question makes its tokens more likely; another
    paragraph of the same document does not (one prefill pair per row, nothing decoded)."""
    question = "Which compression levels does zstd offer?"
    rows = [{"id": "answers", "user_input": question, "retrieved_contexts": ZSTD},
            {"id": "other", "user_input": question,
             "retrieved_contexts": ["httplib2 is a comprehensive HTTP client library that supports many features "
                                    "left out of other HTTP libraries."]}]
    result = ragmeter.evaluate(rows, [{"context_relevance": {"signal": "likelihood"}}], judge=QWEN, cache=False,
                               progress=False)
    answers, other = result.rows
    assert answers["context_relevance_evidence"]["token_pmi"]["mean"] > 0.5
    assert other["context_relevance_evidence"]["token_pmi"]["mean"] < 0.5
    assert answers["context_relevance"] > other["context_relevance"]
    assert result.manifest["metrics"]["context_relevance"]["judge_calls"] == 2


PRECISION_ROW = {"id": "p", "user_input": "Where is the Eiffel Tower?", "response": "The Eiffel Tower is in Paris.",
                 "retrieved_contexts": ["Bananas are yellow fruit rich in potassium.", CONTEXT[0],
                                        "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."]}


def test_verdict_lists_are_read_from_the_logits_and_reasons_written_only_for_failing_items(tmp_path):
    """Issue 38: each verdict read right after its item (no JSON decoded); `failing` writes the
    reason of a verdict of 0 only; the same request reads back the same reply, cached or not,
    in whatever company it is judged."""
    first = ragmeter.evaluate([PRECISION_ROW, *ROWS], ["context_precision"], judge=QWEN,
                              cache=tmp_path / "a.sqlite", progress=False)
    verdicts = first.rows[0]["context_precision_evidence"]["verdicts"]
    assert sorted(v["verdict"] for v in verdicts) == [0, 1, 1]  # one chunk of no use (which one: the judge's call)
    for v in verdicts:
        unwritten = v["verdict"] == 1 and v["p_useful"] >= NEAR_BAR
        assert v["reason"].startswith("no reason written (reasons: failing)") is unwritten
        assert v["verdict"] == int(v["p_useful"] >= 0.5)
    stats = first.manifest["metrics"]["context_precision"]
    assert stats["completion_tokens"] <= 40 * 3  # only the one reason was sampled, for three rows
    alone = ragmeter.evaluate([PRECISION_ROW], ["context_precision"], judge=QWEN, cache=tmp_path / "b.sqlite",
                              progress=False)  # another company, a fresh cache: the same reply
    assert alone.rows[0]["context_precision_evidence"] == first.rows[0]["context_precision_evidence"]
    again = ragmeter.evaluate([*ROWS, PRECISION_ROW], ["context_precision"], judge=QWEN,
                              cache=tmp_path / "a.sqlite", progress=False)
    assert again.manifest["metrics"]["context_precision"]["judge_calls"] == 0
    assert again.rows[-1]["context_precision"] == first.rows[0]["context_precision"]


def test_text_lists_sample_only_their_text_and_end_where_the_model_ends_them(tmp_path):
    """Issue 38: the questions' and statements' JSON is written by ragmeter: fewer tokens
    sampled than a grammar decode of the same prompts, every list within its bounds, and the
    noncommittal flag read from the logits."""
    import asyncio

    from ragmeter.judges.base import JudgeRequest
    from ragmeter.judges.bundled import bundled
    from ragmeter.judges.llamacpp.judge import LlamaCppJudge
    from ragmeter.judges.replies import output_schema
    from ragmeter.metrics.schemas import statements

    def relevancy(verdicts: str) -> ragmeter.EvaluationResult:
        return ragmeter.evaluate(ROWS, ["response_relevancy"], judge={"spec": QWEN, "verdicts": verdicts},
                                 cache=tmp_path / f"{verdicts}.sqlite", progress=False)

    read, decoded = relevancy("read"), relevancy("decode")
    for row in read.rows:
        evidence = row["response_relevancy_evidence"]
        assert len(set(evidence["generated_questions"])) == 3 and evidence["noncommittal"] == 0
        assert all(q.endswith("?") for q in evidence["generated_questions"])
        assert evidence["generated_questions"][0] == "Where is the Eiffel Tower located?"

    tokens = [r.manifest["metrics"]["response_relevancy"]["completion_tokens"] for r in (read, decoded)]
    assert tokens[0] < tokens[1] - 2 * 10  # the skeleton (~14 tokens a reply) is not sampled

    judge = LlamaCppJudge(bundled_model=bundled("qwen-coder-1.5b"))
    system = "Break the answer into short standalone statements, one fact each. Reply in JSON."
    answer = "The Eiffel Tower is in Paris. It was completed in 1889. It is made of wrought iron."
    try:
        reply = asyncio.run(judge.complete(JudgeRequest(
            [{"role": "system", "content": system}, {"role": "user", "content": answer}],
            schema=output_schema(statements(6)), max_tokens=300)))
    finally:
        asyncio.run(judge.aclose())
    facts = statements(6).model_validate_json(reply.text).statements
    assert 2 <= len(facts) <= 6  # three facts: the model ended the list itself
    assert any("1889" in s for s in facts)


def test_a_pass_near_the_bar_has_its_reason_written(tmp_path, monkeypatch):
    """Issue 76 item 8: every wrongly passed row read "no reason written (reasons: failing)".
    A verdict of 1 below NEAR_BAR has its reason written (raised here to 0.99 so that this
    pass, P about 0.8, is near it; the test above checks a pass above the bar has none)."""
    row = {"id": "near", "user_input": "¿Qué ofrece la empresa para teletrabajar?",
           "response": "La empresa ofrece equipo y una compensación por gastos.",
           "retrieved_contexts": ["La empresa entrega un portátil y una silla ergonómica. Los gastos de conexión "
                                  "se compensan con 35 euros al mes."]}
    monkeypatch.setattr("ragmeter.judges.llamacpp.verdicts.NEAR_BAR", 0.99)
    result = ragmeter.evaluate([row], ["faithfulness"], judge=QWEN, cache=tmp_path / "c.sqlite", progress=False,
                               language="spanish")
    (statement,) = result.rows[0]["faithfulness_evidence"]["statements"]
    assert statement["verdict"] == 1 and 0.5 <= statement["p_supported"] < 0.99
    assert statement["reason"] and not statement["reason"].startswith("no reason written")


def test_a_rows_own_prefix_is_shared_by_its_prompts_and_never_written_to_disk(tmp_path, monkeypatch):
    """Issue 75: row-first, a row's prompts share the row's KV cells (restored, not evaluated
    again), the reply is the same whichever prompt computed them, and no row's cells go to the
    prefix folder, where they would serve no other row."""
    import asyncio

    from ragmeter.judges.base import JudgeRequest
    from ragmeter.judges.llamacpp.judge import LlamaCppJudge
    from ragmeter.judges.spec import make_judge

    monkeypatch.setenv("RAGMETER_PREFIXES", str(tmp_path / "prefixes"))
    schema = {"type": "object", "properties": {"rating": {"type": "integer", "enum": [0, 1, 2]}},
              "required": ["rating"]}
    row = [{"role": "system", "content": "Read the question and the contexts; a task follows."},
           {"role": "user", "content": f"question: Where is the Eiffel Tower?\ncontexts:\n[1] {CONTEXT[0]}"}]
    tasks = ["Rate 0-2 how relevant the contexts are to the question.", "Rate 0-2 how well the contexts answer it."]
    requests = [JudgeRequest(row + [{"role": "user", "content": t}], schema, 8, row_prefix=True) for t in tasks]

    async def replies(order: list[int]) -> tuple[dict, int]:
        judge = make_judge({"spec": GEMMA, "prefixes": "disk"})
        assert isinstance(judge, LlamaCppJudge)
        out = {i: (r.text, r.labels) for i in order for r in [await judge.complete(requests[i])]}
        return out, judge._prefixes.hits

    first, hits = asyncio.run(replies([0, 1]))
    assert hits == 1  # the second prompt restored the row the first computed
    again, hits = asyncio.run(replies([1, 0]))
    assert hits == 1 and first == again
    assert not list((tmp_path / "prefixes").glob("**/*.kv"))  # nothing of the row on disk
