"""Uncertainty for aggregates: percentile bootstrap over rows (seeded, so a re-run prints
the same interval), for one metric's mean and for an index averaged over metrics."""

from __future__ import annotations

import warnings
from typing import Any

RESAMPLES = 2000
SEED = 0
#: resampled cells held in memory at once: large datasets are resampled in batches
BATCH_CELLS = 4_000_000


def _index_batches(rng: Any, rows: int, resamples: int) -> Any:
    """Row indices for `resamples` resamples, a batch at a time; the same draws as one big
    array (the generator is consumed in the same order), at bounded memory."""
    per_batch = max(1, BATCH_CELLS // max(rows, 1))
    for start in range(0, resamples, per_batch):
        yield rng.integers(0, rows, size=(min(per_batch, resamples - start), rows))


def bootstrap_mean_ci(values: list[float], level: float = 0.95, resamples: int = RESAMPLES,
                      seed: int = SEED) -> tuple[float, float] | None:
    """Percentile interval of the mean; None without values."""
    import numpy as np

    if not values:
        return None
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.concatenate([data[picks].mean(axis=1) for picks in _index_batches(rng, len(data), resamples)])
    return _percentiles(means, level)


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
    return {"value": value, "components": list(used), "ci95": _percentiles(draws[~np.isnan(draws)], level),
            "rows": int(matrix.shape[0])}


def _percentiles(draws: Any, level: float) -> tuple[float, float]:
    import numpy as np

    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    # not rounded: a rounded bound can fall on the wrong side of the unrounded mean
    return float(low), float(high)
