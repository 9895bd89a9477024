"""Pleias citation family: parsing both formats, alignment, text metrics, judged metrics,
RAG Index and generation, with hand-computed values."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

import ragmeter
from ragmeter.cache import Cache
from ragmeter.citations.align import local_alignment_score, reference_score, reprint_ratio
from ragmeter.citations.parse import CitationFormatError, parse_row, strip_citations
from ragmeter.errors import DataError
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.metrics.cited_quality import cited_statements
from tests.conftest import EXAMPLES

TEXT_METRICS = ["citation_reprint", "valid_quote", "valid_identifier", "unduplicated_quote"]
SPECIAL = ("<|query_start|>Who wrote it?<|query_end|>"
           "<|source_start|><|source_id_start|>1<|source_id_end|>Cervantes wrote Don Quixote in 1605.<|source_end|>"
           "<|source_start|><|source_id_start|>2<|source_id_end|>It has two parts.<|source_end|>")
GENERIC = ("### Query ###\nWho wrote it?\n\n### Sources ###\n**1**\nCervantes wrote Don Quixote in 1605.\n"
           "**2**\nIt has two parts.\n")


def row(answer: str, text: str = SPECIAL, rid: str = "r1") -> dict:
    return {"id": rid, "text": text,
            "generated_response": f"<|analysis_start|>why<|analysis_end|><|answer_start|>{answer}<|answer_end|>"}


# --- parsing -------------------------------------------------------------------------------

def test_special_token_format():
    parsed = parse_row(SPECIAL, row('Cervantes <ref name="1">Cervantes wrote Don Quixote</ref>.')["generated_response"])
    assert parsed.format == "special-tokens" and parsed.query == "Who wrote it?"
    assert [(s.id, s.text) for s in parsed.sources] == [("1", "Cervantes wrote Don Quixote in 1605."),
                                                        ("2", "It has two parts.")]
    assert parsed.analysis == "why"
    assert [(c.source_id, c.quote) for c in parsed.citations] == [("1", "Cervantes wrote Don Quixote")]


def test_generic_format_and_answer_sections():
    response = "### Analysis ###\nthinking\n\n### Referenced answer ###\nIt was Cervantes <ref name=\"1\">Cervantes wrote</ref>."
    parsed = parse_row(GENERIC, response)
    assert parsed.format == "generic" and parsed.query == "Who wrote it?" and parsed.analysis == "thinking"
    assert [s.id for s in parsed.sources] == ["1", "2"] and parsed.sources[1].text == "It has two parts."
    assert parsed.answer.startswith("It was Cervantes") and parsed.citations[0].quote == "Cervantes wrote"
    assert parse_row(GENERIC, 'Plain answer <ref name="2">two parts</ref>').answer.startswith("Plain answer")


def test_answer_without_answer_tags_is_what_follows_the_analysis():
    parsed = parse_row(SPECIAL, "<|analysis_start|>a<|analysis_end|>The answer.")
    assert parsed.answer == "The answer." and parsed.analysis == "a"


@pytest.mark.parametrize("text, response, message, field", [
    ("<|source_start|><|source_id_start|>1<|source_id_end|>x<|source_end|>", "a", "no query", "text"),
    ("<|query_start|>q<|query_end|>", "a", "no <\\|source_start\\|>", "text"),
    ("<|query_start|>q<|query_end|><|source_start|>x<|source_end|>", "a", "source 1 has no id", "text"),
    ("<|query_start|>q<|query_end|><|source_start|><|source_id_start|>1<|source_id_end|>x", "a",
     "no <\\|source_start\\|>", "text"),
    (SPECIAL.replace("id_start|>2<", "id_start|>1<"), "a", "source id\\(s\\) used twice: \\['1'\\]", "text"),
    (SPECIAL, "<|answer_start|>  <|answer_end|>", "no answer", "generated_response"),
    ("### Query ###\nq\n", "a", "no sources", "text"),
    ("**1**\nsource", "a", "no query", "text"),
])
def test_malformed_rows_say_what_is_wrong(text, response, message, field):
    with pytest.raises(CitationFormatError, match=message) as info:
        parse_row(text, response)
    assert info.value.field == field


def test_a_malformed_row_in_a_file_names_the_row_before_any_work(tmp_path):
    path = tmp_path / "cited.jsonl"
    rows = [row('ok <ref name="1">Cervantes wrote Don Quixote</ref>', rid="a"), row("x", text="### Query ###\nq", rid="b")]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match=r"cited.jsonl, line 2, field 'text': no sources"):
        ragmeter.evaluate(path, TEXT_METRICS, progress=False)


def test_cited_file_maps_onto_samples_for_other_metric_families():
    from ragmeter.io.datasets import load_dataset

    data = load_dataset(EXAMPLES / "pleias_sample.parquet")
    assert data.kind == "cited" and len(data) == 5
    first = data.samples[0]
    assert first.user_input == "When was the Eiffel Tower built?"
    assert first.retrieved_context_ids == ["1", "2"] and first.retrieved_contexts[1].startswith("The tower is 330")
    assert "<ref" in first.cited_response and "<ref" not in first.response
    assert first.response == "The Eiffel Tower was built between 1887 and 1889. It was then the tallest man-made structure."


# --- alignment -----------------------------------------------------------------------------

def test_alignment_hand_computed():
    assert reprint_ratio("The cat sat, on the MAT!", "Yesterday the cat sat on the mat quietly.") == 1.0
    # the(2) dog/cat(-1) sat on the mat(8) = 9 of 12
    assert reprint_ratio("the dog sat on the mat", "Yesterday the cat sat on the mat quietly.") == 0.75
    # a gap: "a b c" against "a x b c": 2 - 1 + 2 + 2 = 5 of 6
    assert local_alignment_score(["a", "b", "c"], ["a", "x", "b", "c"]) == 5
    assert reprint_ratio("nothing in common", "Completely different words here") == 0.0
    assert reprint_ratio("", "source") == 0.0 and reprint_ratio("quote", "") == 0.0


def test_fast_alignment_equals_the_textbook_dp():
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(6)]
    for _ in range(400):
        a = [rng.choice(vocab) for _ in range(rng.randint(0, 10))]
        b = [rng.choice(vocab) for _ in range(rng.randint(0, 25))]
        assert local_alignment_score(a, b) == reference_score(a, b)


# --- text metrics --------------------------------------------------------------------------

def scores(answer: str, metrics=TEXT_METRICS) -> dict:
    result = ragmeter.evaluate([row(answer)], metrics, progress=False)
    return {m: result.rows[0][m] for m in metrics} | {"_reasons": {m: result.rows[0][f"{m}_reason"] for m in metrics}}


def test_text_metrics_golden():
    verbatim = 'Cervantes <ref name="1">Cervantes wrote Don Quixote in 1605</ref>.'
    assert scores(verbatim) | {"_reasons": None} == {"citation_reprint": 1.0, "valid_quote": 1.0,
                                                    "valid_identifier": 1.0, "unduplicated_quote": 1.0,
                                                    "_reasons": None}
    # unknown id: reprint 0 and identifier 0 for that quote; a 2-word quote is not valid
    mixed = ('A <ref name="1">Cervantes wrote Don Quixote</ref>. B <ref name="9">It has two parts</ref>. '
             'C <ref name="2">two parts</ref>.')
    got = scores(mixed)
    assert got["citation_reprint"] == pytest.approx((1.0 + 0.0 + 1.0) / 3)
    assert got["valid_identifier"] == pytest.approx(2 / 3) and got["valid_quote"] == pytest.approx(2 / 3)
    # a repeat (ignoring case and punctuation) of an earlier quote
    repeated = ('A <ref name="1">Cervantes wrote Don Quixote</ref>. B <ref name="1">cervantes wrote, Don '
                'Quixote!</ref>. C <ref name="2">It has two parts</ref>.')
    assert scores(repeated)["unduplicated_quote"] == pytest.approx(2 / 3)


def test_paraphrased_quote_scores_lower_than_verbatim():
    para = scores('A <ref name="1">Cervantes authored Don Quixote around 1605</ref>.')["citation_reprint"]
    # cervantes(2) authored/wrote(-1) don quixote(4) around/in(-1) 1605(2) = 6 of 12
    assert para == 0.5


def test_no_citations_is_unscored_with_the_reason():
    got = scores("No quotes at all.")
    assert all(got[m] is None for m in TEXT_METRICS)
    assert got["_reasons"]["valid_quote"].startswith("the answer cites no sources")


# --- judged metrics ------------------------------------------------------------------------

def test_cited_statements_pairs_each_quote_with_its_sentence():
    answer = ('First claim. Built in 1889 <ref name="1">built 1887 to 1889</ref>. Tall <ref name="2">330 m</ref>'
              '<ref name="3">very tall</ref>.')
    assert cited_statements(answer) == [("Built in 1889", "built 1887 to 1889"), ("Tall", "330 m"),
                                        ("Tall", "very tall")]
    assert strip_citations(answer) == "First claim. Built in 1889. Tall."


def test_judged_metrics_with_a_scripted_judge():
    answers = ['One <ref name="1">Cervantes wrote Don Quixote</ref>. Two <ref name="2">It has two parts</ref>.',
               "I cannot answer from these sources."]
    rows = [row(a, rid=f"r{i}") for i, a in enumerate(answers)]
    script = {"query_adherence.label": [{"analysis": "ok", "label": "Partial answer"},
                                        {"analysis": "declines", "label": "Refusal"}],
              "language_quality.label": [{"analysis": "ok", "label": "Correct"}, {"analysis": "bad", "label": "Poor"}],
              "reasoning_quality.label": [{"analysis": "ok", "label": "Slightly flawed"},
                                          {"analysis": "x", "label": "Unsound"}],
              "grounded_statement.verdicts": {"verdicts": [{"reason": "yes", "verdict": 1},
                                                           {"reason": "no", "verdict": 0}]}}
    judge = ScriptedJudge(script)
    result = ragmeter.evaluate(rows, ["query_adherence", "language_quality", "reasoning_quality",
                                      "grounded_statement"], judge=judge, progress=False)
    first, second = result.rows
    assert (first["query_adherence"], first["language_quality"], first["reasoning_quality"]) == (1.0, 1.0, 1.0)
    assert first["grounded_statement"] == 0.5
    assert first["grounded_statement_evidence"]["citations"][1] == {"statement": "Two", "quotation": "It has two parts",
                                                                    "verdict": 0, "reason": "no"}
    # a refusal is excluded from the mean, with the judge's label kept as evidence
    assert second["query_adherence"] is None and "excluded from the mean" in second["query_adherence_reason"]
    assert second["query_adherence_evidence"]["label"] == "Refusal"
    assert second["language_quality"] == 0.0 and second["reasoning_quality"] == 0.0
    assert second["grounded_statement"] is None  # no citations
    assert judge.calls("grounded_statement.verdicts") == 1
    # the judge sees the answer without its quotes
    sent = next(r for r in judge.requests if r.tag == "language_quality.label").messages[-1]["content"]
    assert "<ref" not in sent and "Cervantes wrote" not in sent
    assert result.manifest["metrics"]["query_adherence"]["n"] == 1


def test_an_unparseable_label_is_unscored_not_a_failure():
    judge = ScriptedJudge({"language_quality.label": '{"analysis": "x", "label": "Excellent"}'})
    result = ragmeter.evaluate([row("Fine.")], ["language_quality"], judge=judge, progress=False)
    assert result.rows[0]["language_quality"] is None
    assert result.manifest["metrics"]["language_quality"]["unparseable"] == 1


# --- RAG Index and intervals ----------------------------------------------------------------

def test_rag_index_is_the_mean_of_component_means_with_an_interval():
    result = ragmeter.evaluate(EXAMPLES / "pleias_sample.parquet", TEXT_METRICS, progress=False)
    index = result.manifest["rag_index"]
    means = [result.manifest["metrics"][m]["mean"] for m in TEXT_METRICS]
    assert index["value"] == pytest.approx(sum(means) / 4)
    assert index["components"] == TEXT_METRICS and index["missing"] == [] and index["rows"] == 5
    # 5 rows: no interval anywhere (a bootstrap of 5 values is narrow by accident), and it says so
    assert index["ci95"] is None and result.manifest["metrics"]["valid_identifier"]["ci95"] is None
    from ragmeter.stats import index_with_ci, interval_text

    assert interval_text(index["ci95"], index["rows"]) == "n<10"
    columns = {"a": [0.0, 1.0] * 6, "b": [1.0] * 12}
    wide = index_with_ci(columns)
    low, high = wide["ci95"]
    assert wide["value"] == 0.75 and low <= 0.75 <= high and high - low > 0


def test_default_metrics_for_a_cited_file_are_the_citation_family():
    judge = ScriptedJudge(lambda request: {"verdicts": [{"reason": "r", "verdict": 1}] *
                                           request.schema["properties"]["verdicts"]["minItems"]}
                          if "verdicts" in request.schema["properties"] else {"analysis": "a", "label": "High"
                          if request.tag == "language_quality.label" else "Solid" if request.tag.startswith(
                              "reasoning") else "Actual answer"})
    result = ragmeter.evaluate(EXAMPLES / "pleias_sample.parquet", judge=judge, progress=False)
    assert list(result.manifest["metrics"]) == ["citation_reprint", "valid_quote", "valid_identifier",
                                                "unduplicated_quote", "query_adherence", "grounded_statement",
                                                "language_quality", "reasoning_quality"]
    assert len(result.manifest["rag_index"]["components"]) == 8


# --- generation ----------------------------------------------------------------------------

def test_generate_special_tokens_is_resumable(tmp_path):
    from ragmeter.rag.generate import generate_rows, write_generations

    records = [{"id": "a", "text": SPECIAL}, {"id": "b", "text": SPECIAL.replace("Who", "Whom")}]
    judge = ScriptedJudge(lambda request: "ana<|analysis_end|><|answer_start|>It was Cervantes")
    cache = Cache(tmp_path / "c.sqlite")
    first = asyncio.run(generate_rows(records[:1], judge, cache, "special-tokens"))
    assert judge.requests[0].prompt.endswith("<|analysis_start|>") and judge.requests[0].stop == ("<|answer_end|>",)
    again = asyncio.run(generate_rows(records, judge, cache, "special-tokens"))
    assert (first.generated, again.generated, again.cached) == (1, 1, 1) and judge.calls() == 2
    response = again.rows[0]["generated_response"]
    assert response == "<|analysis_start|>ana<|analysis_end|><|answer_start|>It was Cervantes<|answer_end|>"
    assert parse_row(records[0]["text"], response).answer == "It was Cervantes"
    parquet, samples = write_generations(again.rows, tmp_path / "out")
    import pyarrow.parquet as pq

    table = pq.read_table(parquet).to_pylist()
    assert [r["id"] for r in table] == ["a", "b"] and table[1]["generation_finish_reason"] == "stop"
    assert "=== row 1 (stop) ===" in samples.read_text()
    cache.close()


def test_generate_chat_sends_the_text_as_a_user_message(tmp_path):
    from ragmeter.rag.generate import generate_rows

    judge = ScriptedJudge(lambda request: "Cervantes <ref name=\"1\">Cervantes wrote</ref>")
    run = asyncio.run(generate_rows([{"text": GENERIC}], judge, Cache(tmp_path / "c.sqlite"), "chat"))
    assert judge.requests[0].messages == [{"role": "user", "content": GENERIC}] and judge.requests[0].prompt is None
    assert run.rows[0]["generated_response"].startswith("Cervantes <ref")


def test_plain_rows_with_cited_response_and_ids_work_too():
    rows = [{"id": "a", "cited_response": 'x <ref name="1">a b c</ref> y <ref name="3">d e</ref>',
             "retrieved_context_ids": ["1", "2"]}]
    result = ragmeter.evaluate(rows, ["valid_identifier", "valid_quote"], progress=False)
    row_ = result.rows[0]
    assert (row_["valid_identifier"], row_["valid_quote"]) == (0.5, 0.5)
    with pytest.raises(DataError, match="missing column 'retrieved_contexts' \\(required by citation_reprint\\)"):
        ragmeter.evaluate(rows, ["citation_reprint"], progress=False)


def test_generate_refuses_to_replace_responses_without_overwrite():
    from ragmeter.rag.generate import check_rows

    records = [{"text": SPECIAL}, row("x")]
    with pytest.raises(DataError, match=r"in.jsonl, row 2, field 'generated_response': already has a "
                                        r"generated_response; pass --overwrite"):
        check_rows(records, "in.jsonl")
    check_rows(records, "in.jsonl", overwrite=True)


def test_a_generation_cut_off_at_max_tokens_is_unscored_with_that_reason():
    cut = {"id": "cut", "text": SPECIAL, "generated_response": "<|analysis_start|>I think the answer",
           "generation_finish_reason": "length"}
    done = {**row('Cervantes <ref name="1">Cervantes wrote Don Quixote</ref>.', rid="done"),
            "generation_finish_reason": "stop"}
    result = ragmeter.evaluate([cut, done], ["valid_identifier", "citation_reprint"], progress=False)
    by_id = {r["id"]: r for r in result.rows}
    assert by_id["done"]["valid_identifier"] == 1.0
    assert by_id["cut"]["valid_identifier"] is None
    assert by_id["cut"]["valid_identifier_reason"].startswith("generation cut off at max_tokens")
    assert result.manifest["metrics"]["valid_identifier"]["n"] == 1


def test_generate_reads_model_settings_as_evaluate_reads_judge_settings(tmp_path):
    """--model-opt goes through the CLI's one judge-setting function: a bad pair is named with
    its flag, a good one reaches the judge's settings."""
    from tests.cli_runner import run_cli

    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "a", "text": SPECIAL}) + "\n")
    bad = run_cli("generate", "--input", str(data), "--model-opt", "seed")
    assert bad.returncode == 2 and "--model-opt expects KEY=VALUE, got 'seed'" in bad.stderr
    wrong = run_cli("generate", "--input", str(data), "--model", "openai-compat:http://127.0.0.1:9/v1#m",
                    "--model-opt", "n_threads=2")
    assert wrong.returncode == 2 and "does not use n_threads" in wrong.stderr
