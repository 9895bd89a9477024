"""`ragmeter meta-eval`: label kinds, measures against scipy/scikit-learn, every shared file."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from ragmeter.errors import DataError
from ragmeter.meta_eval import cohen_kappa, kendall_tau_b, meta_evaluate
from ragmeter.meta_eval.labels import label_kind, load_labelled

DATA = Path(__file__).resolve().parents[1] / "data" / "meta-eval"


def test_kendall_and_kappa_match_scipy_and_sklearn():
    from scipy import stats
    from sklearn import metrics

    rng = random.Random(3)
    x = [rng.choice([0.1, 0.4, 0.4, 0.7, 0.9]) for _ in range(40)]
    y = [rng.randint(1, 5) for _ in range(40)]
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    a, b = [rng.randint(1, 4) for _ in range(50)], [rng.randint(1, 4) for _ in range(50)]
    assert cohen_kappa(a, b) == pytest.approx(metrics.cohen_kappa_score(a, b))
    assert cohen_kappa(a, b, "quadratic") == pytest.approx(metrics.cohen_kappa_score(a, b, weights="quadratic"))


@pytest.mark.parametrize(("name", "kind"), [("q2_wow_faithfulness", "binary"), ("clapnq_answerability", "binary"),
                                            ("xquad_es_context_relevance", "binary"),
                                            ("ragchecker_pairwise_correctness", "pairwise")])
def test_every_shared_file_is_read_with_its_kind(name, kind):
    path = DATA / f"{name}.jsonl"
    assert label_kind(load_labelled(path), str(path)) == kind


def test_binary_measures_with_a_lexical_metric(tmp_path):
    # rouge of the answer against the reference: a judge-free scorer, so the figures are exact
    result = meta_evaluate(DATA / "q2_wow_faithfulness.jsonl", "rouge", out=tmp_path / "m", progress=False)
    assert (result.kind, result.rows, result.scored) == ("binary", 12, 12)
    agreement = result.metric_agreement
    assert set(agreement.measures) == {"roc_auc", "balanced_accuracy_held_out", "kappa_held_out"}
    auc = agreement.measures["roc_auc"]
    assert 0 <= auc.ci95[0] <= auc.value <= auc.ci95[1] <= 1
    assert agreement.threshold is not None
    assert result.floor.scorer == "word-overlap floor" and result.floor.n == 12
    saved = json.loads((tmp_path / "m" / "meta_eval.json").read_text())
    assert saved["metric_agreement"]["measures"]["roc_auc"]["value"] == pytest.approx(auc.value)
    assert (tmp_path / "m" / "manifest.json").is_file()  # the scored rows are a run: report, compare
    from ragmeter.report import write_report

    page = write_report(tmp_path / "m", out=tmp_path / "r.html").read_text()
    assert "Agreement with human labels" in page and "word-overlap floor" in page


def test_pairwise_measures(tmp_path):
    result = meta_evaluate(DATA / "ragchecker_pairwise_correctness.jsonl", "rouge", progress=False)
    assert (result.kind, result.rows, result.scored) == ("pairwise", 8, 8)
    assert set(result.metric_agreement.measures) == {"accuracy", "spearman", "kappa_of_signs"}
    assert 0 <= result.metric_agreement.measures["accuracy"].value <= 1


def test_ordinal_labels(tmp_path):
    rows = [{"id": str(i), "question": "q", "answer": "the cat sat" if i % 5 > 1 else "dogs run",
             "reference": "the cat sat", "label": 1 + i % 5} for i in range(20)]
    path = tmp_path / "ordinal.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = meta_evaluate(path, "exact_match", progress=False)
    assert result.kind == "ordinal"
    # exact match is 1 exactly for labels 3-5: a perfect monotone relation in ranks
    assert result.metric_agreement.measures["spearman"].value == pytest.approx(0.866, abs=1e-3)
    assert set(result.metric_agreement.measures) == {"spearman", "kendall_tau_b", "weighted_kappa"}


@pytest.mark.parametrize(("label", "message"), [
    ('"good"', "label 'good' is not binary (0/1), ordinal"),
    ("0.5", "label 0.5 is not binary"),
])
def test_labels_that_fit_no_kind(tmp_path, label, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "question": "q", "answer": "x", "label": 1}\n'
                    f'{{"id": "b", "question": "q", "answer": "y", "label": {label}}}\n')
    with pytest.raises(DataError, match=re.escape(f"bad.jsonl, line 2, field 'label': {message}")):
        meta_evaluate(path, "exact_match", progress=False)


def test_one_label_only_and_missing_label(tmp_path):
    path = tmp_path / "ones.jsonl"
    path.write_text('{"id": "a", "answer": "x", "reference": "x", "label": 1}\n'
                    '{"id": "b", "answer": "x", "reference": "x", "label": 1}\n')
    with pytest.raises(DataError, match="every label is 1"):
        meta_evaluate(path, "exact_match", progress=False)
    path.write_text('{"id": "a", "answer": "x", "reference": "x"}\n')
    with pytest.raises(DataError, match="line 1, field 'label': no label"):
        meta_evaluate(path, "exact_match", progress=False)


def test_cli_meta_eval(tmp_path):
    from typer.testing import CliRunner

    from ragmeter.cli import app

    out = CliRunner().invoke(app, ["meta-eval", str(DATA / "clapnq_answerability.jsonl"), "--metric", "rouge",
                                   "--out", str(tmp_path / "m")])
    assert out.exit_code == 0, out.output
    assert "roc_auc" in out.output and "word-overlap" in out.output  # its name wraps to fit 80 columns
    assert json.loads((tmp_path / "m" / "meta_eval.json").read_text())["kind"] == "binary"
