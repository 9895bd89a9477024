"""Agreement measures against hand-computed values and scikit-learn."""

from __future__ import annotations

import random

import pytest

from ragmeter.meta_eval import balanced_accuracy, roc_auc, word_overlap


def test_roc_auc_hand_computed_with_ties():
    # positives 0.9, 0.5; negatives 0.5, 0.1: pairs (0.9>0.5, 0.9>0.1, 0.5=0.5 -> 1/2, 0.5>0.1) = 3.5/4
    assert roc_auc([0.9, 0.5, 0.5, 0.1], [1, 1, 0, 0]) == 0.875
    assert roc_auc([0.0, 0.0, 0.0], [1, 0, 1]) == 0.5
    with pytest.raises(ValueError):
        roc_auc([0.1, 0.2], [1, 1])


def test_roc_auc_matches_scikit_learn():
    from sklearn import metrics as sklearn_metrics

    rng = random.Random(0)
    labels = [rng.randint(0, 1) for _ in range(200)]
    scores = [round(rng.random(), 1) for _ in range(200)]  # many ties
    assert roc_auc(scores, labels) == pytest.approx(sklearn_metrics.roc_auc_score(labels, scores), abs=1e-12)


def test_balanced_accuracy_and_word_overlap():
    assert balanced_accuracy([1.0, 0.4, 0.6, 0.0], [1, 1, 0, 0]) == 0.5
    assert balanced_accuracy([1.0, 0.5, 0.0], [1, 1, 0]) == 1.0
    assert word_overlap("¿Quién ganó la liga?", ["La liga la ganó el Madrid."]) == pytest.approx(2 / 3)
    assert word_overlap("a b", ["x"]) == 0.0


def test_pearson_and_spearman_match_scipy():
    from scipy import stats

    from ragmeter.meta_eval import pearson, spearman

    rng = random.Random(3)
    x = [round(rng.random(), 1) for _ in range(50)]
    y = [v + rng.random() for v in x]
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y)[0])
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y)[0])
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
