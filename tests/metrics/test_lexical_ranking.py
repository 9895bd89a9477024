"""Metrics without a judge: lexical, embedding similarity and ranking, golden values."""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter.errors import ConfigError
from tests.conftest import TableEmbedder


def score(row: dict, metrics: list, **kw) -> dict:
    result = ragmeter.evaluate([{"id": "r", **row}], metrics, progress=False, **kw)
    return result.rows[0]


def test_bleu_scores_the_whole_response_not_its_first_sentence():
    ref = "The cat sat on the mat."
    one = score({"response": "The cat sat on the mat.", "reference": ref}, ["bleu"])["bleu"]
    two = score({"response": "The cat sat on the mat. Then it slept all day long.", "reference": ref}, ["bleu"])
    assert one == 1.0
    assert 0 < two["bleu"] < 1  # Ragas would score 1.0: it compares only the first sentence
    assert two["bleu_evidence"]["bp"] == 1.0
    # precisions on the score's own 0-1 scale (sacrebleu's are percentages), shown as percentages
    assert two["bleu_evidence"]["precisions"] == [0.5, 0.4615, 0.4167, 0.3636]
    assert two["bleu_reason"] == (f"BLEU {two['bleu']:.4f} (1-4-gram precisions 50%, 46%, 42%, 36%; "
                                  "brevity penalty 1.000)")


def test_rouge_types_and_modes():
    row = {"response": "the cat sat", "reference": "the cat sat on the mat"}
    got = score(row, ["rouge", {"rouge": {"rouge_type": "rouge1", "mode": "precision"}},
                      {"rouge": {"rouge_type": "rouge1", "mode": "r", "as": "r1_recall"}}])
    assert got["rouge"] == pytest.approx(2 * 1.0 * 0.5 / 1.5)  # LCS 3: p = 1, r = 3/6
    assert got["rouge_rouge1_p"] == 1.0 and got["r1_recall"] == 0.5


def test_exact_match_string_presence_and_similarity():
    got = score({"response": "Paris is the capital.", "reference": "Paris"},
                ["exact_match", "string_presence", "string_similarity",
                 {"string_similarity": {"distance": "jaro_winkler", "as": "jw"}}])
    assert (got["exact_match"], got["string_presence"]) == (0.0, 1.0)
    assert got["string_similarity"] == pytest.approx(1 - 16 / 21)  # Levenshtein: 16 edits over 21 chars
    assert 0.8 < got["jw"] < 1.0
    with pytest.raises(ConfigError, match="metric string_similarity: distance"):
        score({"response": "a", "reference": "b"}, [{"string_similarity": {"distance": "cosine"}}])


def test_non_llm_context_metrics():
    row = {"retrieved_contexts": ["Paris is in France.", "Bananas are yellow.", "Paris is in France!"],
           "reference_contexts": ["Paris is in France.", "Rome is in Italy."]}
    got = score(row, ["non_llm_context_precision_with_reference", "non_llm_context_recall"])
    # relevant [1, 0, 1]: AP = (1/1 + 2/3) / 2
    assert got["non_llm_context_precision_with_reference"] == pytest.approx((1 + 2 / 3) / 2)
    # "Rome is in Italy." vs "Paris is in France.": below 0.5 similarity -> 1 of 2 retrieved
    assert got["non_llm_context_recall"] == 0.5


def test_semantic_similarity_with_and_without_threshold():
    emb = TableEmbedder({"a": [1.0, 0.0], "b": [0.6, 0.8], "c": [-1.0, 0.0]})
    row = {"response": "a", "reference": "b"}
    got = score(row, ["semantic_similarity", {"semantic_similarity": {"threshold": 0.7, "as": "sem_pass"}}],
                embeddings=emb)
    assert got["semantic_similarity"] == pytest.approx(0.6) and got["sem_pass"] == 0.0
    opposite = score({"response": "a", "reference": "c"}, ["semantic_similarity"], embeddings=emb)
    assert opposite["semantic_similarity"] == 0.0 and opposite["semantic_similarity_evidence"]["cosine"] == -1.0


RANK_ROW = {"retrieved_context_ids": ["d3", "d1", "d3", "d2", "d9"], "reference_context_ids": ["d1", "d2", "d5"]}


def test_ranking_metrics_golden():
    got = score(RANK_ROW, ["hit_rate@1", "hit_rate@2", "mrr", "precision@2", "recall@2", "recall", "ndcg@3"])
    assert (got["hit_rate@1"], got["hit_rate@2"], got["mrr"]) == (0.0, 1.0, 0.5)
    assert (got["precision@2"], got["recall@2"]) == (0.5, pytest.approx(1 / 3))
    assert got["recall"] == pytest.approx(2 / 3)  # d3 repeated counts once: ranked d3, d1, d2, d9
    # DCG = 1/log2(3) + 1/log2(4); ideal over all 3 relevant truncated at 3: 1 + 1/log2(3) + 1/2
    assert got["ndcg@3"] == pytest.approx((1 / 1.584962500721156 + 0.5) / (1 + 1 / 1.584962500721156 + 0.5))


def test_perfect_ranking_reaches_one_and_graded_ndcg_matches_scikit_learn():
    perfect = score({"retrieved_context_ids": ["a", "b", "x"], "reference_context_ids": ["a", "b"]}, ["ndcg@3"])
    assert perfect["ndcg@3"] == 1.0  # LlamaIndex's ideal over the retrieved length would give < 1
    from sklearn import metrics

    grades = {"a": 3, "b": 2, "c": 1, "d": 0}
    retrieved = ["c", "a", "d", "b"]
    got = score({"retrieved_context_ids": retrieved, "relevance_grades": grades}, ["ndcg@4", "ndcg@2"])
    true = [[grades[i] for i in retrieved]]
    predicted = [[4, 3, 2, 1]]  # the retrieved order
    assert got["ndcg@4"] == pytest.approx(metrics.ndcg_score(true, predicted, k=4))
    assert got["ndcg@2"] == pytest.approx(metrics.ndcg_score(true, predicted, k=2))


def test_a_row_without_relevant_ids_is_unscored():
    got = score({"retrieved_context_ids": ["a"], "reference_context_ids": [], "relevance_grades": {"a": 0}}, ["mrr"])
    assert got["mrr"] is None and got["mrr_reason"] == "no relevant context ids for this row"
    with pytest.raises(ConfigError, match="ranking metrics take a cut-off like ndcg@5"):
        score(RANK_ROW, ["ndcg@five"])


def test_metric_settings_from_a_config_file_and_the_command_line(tmp_path):
    import json as _json

    from typer.testing import CliRunner

    from ragmeter.cli import app

    data = tmp_path / "d.jsonl"
    data.write_text(_json.dumps({"id": "a", "response": "the cat sat", "reference": "the cat sat on the mat"}) + "\n")
    config = tmp_path / "run.yaml"
    config.write_text("dataset: d.jsonl\noutput: out\nmetrics:\n  - rouge: {rouge_type: rouge1, mode: recall, as: r1}\n"
                      "  - exact_match\n")
    runner = CliRunner()
    done = runner.invoke(app, ["run", str(config)])
    assert done.exit_code == 0, done.output
    manifest = _json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["metrics"]["r1"]["mean"] == 0.5 and manifest["metrics"]["r1"]["settings"]["rouge_type"] == "rouge1"
    done = runner.invoke(app, ["evaluate", str(data), "--metrics", "rouge", "--metric-opt", "rouge.mode=precision",
                               "--out", str(tmp_path / "o2")])
    assert done.exit_code == 0, done.output
    manifest = _json.loads((tmp_path / "o2" / "manifest.json").read_text())
    assert manifest["metrics"]["rouge_rougeL_p"]["mean"] == 1.0
