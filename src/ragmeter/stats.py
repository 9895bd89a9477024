"""Uncertainty for aggregates: percentile bootstrap over rows (seeded, so a re-run prints
the same interval), for one metric's mean and for an index averaged over metrics."""

from __future__ import annotations

import warnings
from typing import Any

RESAMPLES = 2000
SEED = 0
#: resampled cells held in memory at once: large datasets are resampled in batches
BATCH_CELLS = 4_000_000
#: fewer rows get no interval, in every table, report and JSON: a bootstrap over 2 values
#: printed -0.453 to -0.348 beside "no significant difference (p = 1)". The interval gate
#: needs as many rows.
MIN_ROWS_FOR_INTERVAL = 10


def interval_text(ci: Any, n: int, form: str = "{0:.3f}-{1:.3f}") -> str:
    """An interval as printed, or why there is none ("n<10" below MIN_ROWS_FOR_INTERVAL)."""
    if ci:
        return form.format(*ci)
    return f"n<{MIN_ROWS_FOR_INTERVAL}" if 0 < n < MIN_ROWS_FOR_INTERVAL else "-"


def _index_batches(rng: Any, rows: int, resamples: int) -> Any:
    """Row indices for `resamples` resamples, a batch at a time; the same draws as one big
    array (the generator is consumed in the same order), at bounded memory."""
    per_batch = max(1, BATCH_CELLS // max(rows, 1))
    for start in range(0, resamples, per_batch):
        yield rng.integers(0, rows, size=(min(per_batch, resamples - start), rows))


def score_summary(values: list[float | None], unscored_reasons: dict[Any, int] | None = None,
                  resamples: int = RESAMPLES) -> dict[str, Any]:
    """A metric's aggregate over its rows (None: unscored), as manifest.json holds it: the mean,
    its bootstrap interval, how many rows were scored and why the others were not. The
    engine and `merge` both average through here, so a merged run reads as one run."""
    return score_summaries({"": values}, {"": unscored_reasons or {}}, resamples)[""]


def score_summaries(columns: dict[str, Any], unscored_reasons: dict[str, dict[Any, int]],
                    resamples: int = RESAMPLES) -> dict[str, dict[str, Any]]:
    """score_summary of each column, the same figures, with the bootstrap draws shared
    (bootstrap_mean_cis): a run's metrics are summarised together. A column is a list (None:
    unscored) or a float array (NaN: unscored), as results/tally.py keeps it; each is read as
    a float array, so a million rows cost 8 MB a metric here, not a list of float objects."""
    import numpy as np

    scored = {}
    for name, values in columns.items():
        data = np.asarray(values, dtype=float)  # None -> NaN; a Tally's array is read in place
        scored[name] = data[~np.isnan(data)]
    cis = bootstrap_mean_cis([v if len(v) >= MIN_ROWS_FOR_INTERVAL else v[:0] for v in scored.values()],
                             resamples=resamples)
    out = {}
    for (name, values), ci in zip(scored.items(), cis):
        reasons = sorted(unscored_reasons.get(name, {}).items(), key=lambda kv: -kv[1])[:10]
        # summed in row order as Python's sum does (numpy's pairwise sum differs in the last digits)
        mean = sum(values.tolist()) / len(values) if len(values) else None
        out[name] = {"mean": mean, "ci95": list(ci) if ci else None, "n": len(values),
                     "unscored": len(columns[name]) - len(values), "unscored_reasons": dict(reasons)}
    return out


def bootstrap_mean_ci(values: list[float], level: float = 0.95, resamples: int = RESAMPLES,
                      seed: int = SEED) -> tuple[float, float] | None:
    """Percentile interval of the mean; None without values."""
    return bootstrap_mean_cis([values], level, resamples, seed)[0]


def bootstrap_mean_cis(columns: list[Any], level: float = 0.95, resamples: int = RESAMPLES,
                       seed: int = SEED) -> list[tuple[float, float] | None]:
    """bootstrap_mean_ci of each column. Columns of one length share their row draws: alone,
    each would draw the very same indices (same seed, same length), so a run's six metrics
    over the same rows draw once, not six times (drawing was half of the work)."""
    import numpy as np

    out: list[tuple[float, float] | None] = [None] * len(columns)
    by_length: dict[int, list[int]] = {}
    for i, column in enumerate(columns):
        if len(column):
            by_length.setdefault(len(column), []).append(i)
    for length, members in by_length.items():
        data = [np.asarray(columns[i], dtype=float) for i in members]
        means: list[list[Any]] = [[] for _ in members]
        for picks in _index_batches(np.random.default_rng(seed), length, resamples):
            for found, values in zip(means, data):
                found.append(values[picks].mean(axis=1))
        for i, found in zip(members, means):
            out[i] = _percentiles(np.concatenate(found), level)
    return out


def index_with_ci(columns: dict[str, list[float | None]], level: float = 0.95, resamples: int = RESAMPLES,
                  seed: int = SEED) -> dict[str, Any] | None:
    """Mean over components of each component's mean over its scored rows, with a bootstrap
    interval that resamples rows (so components measured on the same rows move together)."""
    import numpy as np

    used = {k: v for k, v in columns.items() if any(x is not None for x in v)}
    if not used:
        return None
    matrix = np.array([[np.nan if x is None else x for x in v] for v in used.values()], dtype=float).T
    value = float(np.mean(np.nanmean(matrix, axis=0)))
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a component with no row in a resample
        draws = np.concatenate([np.nanmean(np.nanmean(matrix[picks], axis=1), axis=1)  # per component, then over
                                for picks in _index_batches(rng, matrix.shape[0], resamples)])
    ci = _percentiles(draws[~np.isnan(draws)], level) if matrix.shape[0] >= MIN_ROWS_FOR_INTERVAL else None
    return {"value": value, "components": list(used), "ci95": ci, "rows": int(matrix.shape[0])}


def _percentiles(draws: Any, level: float) -> tuple[float, float]:
    import numpy as np

    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    # not rounded: a rounded bound can fall on the wrong side of the unrounded mean
    return float(low), float(high)


#: sign flips for the paired test; with n <= EXACT_FLIPS non-zero differences every one of the 2**n
PERMUTATIONS = 10_000
EXACT_FLIPS = 12
#: above this many pairs the paired statistics use their large-sample (normal) form: the
#: bootstrap distribution of a mean and the sign-flip distribution of a sum are then normal
#: to well within the Monte Carlo error of 2,000 resamples, at a thousandth of the cost
LARGE_SAMPLE = 20_000


def mean_ci(values: list[float], level: float = 0.95) -> tuple[float, float] | None:
    """Interval of a mean: the percentile bootstrap, or above LARGE_SAMPLE values the normal
    interval it converges to (as paired_ci); none below MIN_ROWS_FOR_INTERVAL."""
    if len(values) < MIN_ROWS_FOR_INTERVAL:
        return None
    return paired_ci(values, level)[0]


def paired_ci(diffs: list[float], level: float = 0.95, resamples: int = RESAMPLES,
              seed: int = SEED) -> tuple[tuple[float, float] | None, str]:
    """Interval of the mean paired difference and how it was computed: a percentile bootstrap
    over pairs (what the two runs share about a row cancels out), or for more than
    LARGE_SAMPLE pairs the normal interval it converges to; none below MIN_ROWS_FOR_INTERVAL."""
    if len(diffs) < MIN_ROWS_FOR_INTERVAL:
        return None, f"none: n < {MIN_ROWS_FOR_INTERVAL}"
    if len(diffs) <= LARGE_SAMPLE:
        return bootstrap_mean_ci(diffs, level, resamples, seed), "bootstrap"
    from statistics import NormalDist

    import numpy as np

    data = np.asarray(diffs, dtype=float)
    half = NormalDist().inv_cdf(0.5 + level / 2) * float(data.std()) / len(data) ** 0.5
    return (float(data.mean()) - half, float(data.mean()) + half), "normal"


def sign_flip_p(diffs: list[float], permutations: int = PERMUTATIONS, seed: int = SEED) -> float:
    """Two-sided p-value of a paired randomisation test: under "no difference" each row's
    difference is as likely negative as positive, so its sign is flipped at random and the
    mean difference compared with the observed one. Zero differences change nothing and are
    set aside. Exact (all 2**n flips) for a few; Monte Carlo with the observed assignment
    counted, (1 + hits) / (1 + draws), so p is never 0; above LARGE_SAMPLE the normal limit
    of the sign-flip distribution (mean 0, variance the sum of squares). Identical runs: 1."""
    import numpy as np

    data = np.asarray(diffs, dtype=float)
    data = data[data != 0]
    if data.size == 0:
        return 1.0
    observed = abs(data.sum())
    if data.size > LARGE_SAMPLE:
        from math import erfc, sqrt

        return erfc(observed / sqrt(float(np.sum(data ** 2))) / sqrt(2))
    tolerance = 1e-9 * max(1.0, float(np.abs(data).sum()))  # float noise must not decide a tie
    if data.size <= EXACT_FLIPS:
        signs = 1 - 2 * ((np.arange(2 ** data.size)[:, None] >> np.arange(data.size)) & 1)
        return float(np.mean(np.abs(signs @ data) >= observed - tolerance))
    rng = np.random.default_rng(seed)
    total, hits, per_batch = data.sum(), 0, max(1, BATCH_CELLS // data.size)
    for start in range(0, permutations, per_batch):
        count = min(per_batch, permutations - start)
        raw = np.frombuffer(rng.bytes(count * ((data.size + 7) // 8)), dtype=np.uint8).reshape(count, -1)
        kept = np.unpackbits(raw, axis=1)[:, : data.size]  # 1: sign kept, 0: flipped
        sums = 2 * (kept.astype(float) @ data) - total
        hits += int(np.sum(np.abs(sums) >= observed - tolerance))
    return (1 + hits) / (1 + permutations)


def holm(p_values: dict[str, float]) -> dict[str, float]:
    """Holm's step-down adjustment: controls the chance of any false "significant" across
    the metrics compared together, without assuming they are independent."""
    order = sorted(p_values, key=p_values.__getitem__)
    adjusted: dict[str, float] = {}
    running = 0.0
    for rank, name in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p_values[name]))
        adjusted[name] = running
    return adjusted


def proportion_ci(successes: int, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a share (pass rates): unlike the normal interval it stays
    inside [0, 1] and is not empty at 0 or n successes. None for n = 0."""
    from statistics import NormalDist

    if n <= 0:
        return None
    z = NormalDist().inv_cdf(0.5 + level / 2)
    share = successes / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (share * (1 - share) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_ci(stat: Any, columns: list[Any], resamples: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of any `stat(*columns)` over rows resampled together (seeded): for
    agreement measures (ROC-AUC, correlations) and calibration error. A resample the statistic
    cannot use (one class only for ROC-AUC: a ValueError) is drawn again."""
    import random

    rng = random.Random(seed)
    n = len(columns[0])
    values: list[float] = []
    while len(values) < resamples:
        picks = [rng.randrange(n) for _ in range(n)]
        try:
            values.append(stat(*[[c[i] for i in picks] for c in columns]))
        except ValueError:
            continue
    values.sort()
    tail = (1 - level) / 2
    return values[int(tail * resamples)], values[min(resamples - 1, int((1 - tail) * resamples))]


def best_threshold(scores: Any, labels: Any) -> float | None:
    """The cut (score >= cut reads as 1) with the best balanced accuracy against 0/1 labels;
    ties go to the cut nearest 0.5, so an uninformative half does not pick an extreme. None
    when the labels are all one class."""
    import numpy as np

    yhat, y = np.asarray(scores, dtype=float), np.asarray(labels)
    positives, negatives = y == 1, y == 0
    if not positives.any() or not negatives.any():
        return None
    candidates = []
    for t in np.unique(yhat):
        said = yhat >= t
        accuracy = (said[positives].mean() + (~said[negatives]).mean()) / 2
        candidates.append((round(float(accuracy), 12), -abs(float(t) - 0.5), float(t)))
    return max(candidates)[2]


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0-100), as latency reports use; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]
