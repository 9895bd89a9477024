"""stats.py holds every statistic ragmeter reports: one bootstrap for any statistic, one best
threshold, one percentile (issue 39: they lived in four places)."""

from __future__ import annotations

import pytest

from ragmeter.stats import best_threshold, bootstrap_ci, percentile


def test_best_threshold_maximises_balanced_accuracy_and_breaks_ties_towards_a_half():
    scores, labels = [0.1, 0.4, 0.7, 0.9, 0.75, 0.2], [0, 0, 1, 1, 1, 0]
    assert best_threshold(scores, labels) == 0.7  # every positive at or above, every negative below
    assert best_threshold([0.2, 0.6, 0.9], [1, 1, 1]) is None  # one class: no cut
    assert best_threshold([0.3, 0.3, 0.6, 0.6], [1, 0, 1, 0]) == 0.6  # both cuts tie at 0.5: the nearer


def test_the_meta_eval_and_labels_thresholds_are_this_one():
    from ragmeter.labels.calibrate import best_threshold as labels_threshold
    from ragmeter.meta_eval.measures import best_threshold as meta_threshold

    scores, labels = [0.12345, 0.55555, 0.61111, 0.9], [0, 0, 1, 1]
    assert meta_threshold(scores, labels) == best_threshold(scores, labels) == 0.61111
    import numpy as np

    assert labels_threshold(np.array(labels), np.array(scores)) == 0.6111
    with pytest.raises(ValueError):
        meta_threshold([0.3], [1])


def test_bootstrap_ci_of_any_statistic_is_seeded_and_redraws_unusable_resamples():
    def mean_of_positives(values, labels):
        chosen = [v for v, y in zip(values, labels) if y]
        if not chosen:
            raise ValueError("no positive in this resample")
        return sum(chosen) / len(chosen)

    values, labels = [0.1, 0.2, 0.3, 0.9, 0.8, 0.7], [0, 0, 0, 1, 1, 1]
    low, high = bootstrap_ci(mean_of_positives, [values, labels], resamples=200, seed=3)
    assert 0.7 <= low <= 0.8 <= high <= 0.9
    assert bootstrap_ci(mean_of_positives, [values, labels], resamples=200, seed=3) == (low, high)


def test_percentile_is_nearest_rank():
    assert percentile([], 50) is None
    assert percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0
    assert percentile([5.0], 95) == 5.0
