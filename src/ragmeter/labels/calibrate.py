"""What people would say, from many judged rows and a few labelled ones.

Prediction-powered inference (Angelopoulos et al., Science 2023; PPI++ with power tuning,
2023) through the `ppi-python` package: the judge's scores on every row, corrected by the
judge's error measured on the labelled rows, give an estimate of the human mean whose 95%
interval is valid whatever the judge's bias, and narrower than the labels' own when the
judge tracks people. Beside it: the labels-only interval, and how well the judge's scores
read as rates on the labelled rows (a binned reliability curve, the expected calibration
error with a bootstrap interval, and for 0/1 labels the score threshold that agrees best).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from ragmeter.errors import ConfigError
from ragmeter.labels.files import Labels, read_labels
from ragmeter.stats import best_threshold as stats_best_threshold
from ragmeter.stats import bootstrap_ci

#: fewer labels give no interval: PPI's is a large-sample interval
MIN_LABELS = 20
BINS = 5
RESAMPLES = 1000


class Calibrated(BaseModel):
    """One metric's human-mean estimate, as `calibrated` in manifest.json and calibration.json."""

    metric: str
    kind: Literal["binary", "rating"]
    labels: int  # labelled rows the judge scored
    judged: int  # scored rows without a label
    judge_mean: float | None  # over every scored row
    estimate: float | None = None  # the human mean, prediction-powered
    ci95: tuple[float, float] | None = None
    labels_mean: float | None = None
    labels_ci95: tuple[float, float] | None = None
    ece: float | None = None
    ece_ci95: tuple[float, float] | None = None
    threshold: float | None = None
    reliability: list[dict[str, float | int]] = []
    unscored_labelled: int = 0
    unknown_ids: list[str] = []
    note: str | None = None


def calibrate_run(run: Any, labels: Labels | str | Path, metrics: list[str] | None = None) -> dict[str, Calibrated]:
    """Every labelled metric of `run` (a results.runs.Run), or those named; `labels` read
    from a labels.jsonl path when given one."""
    if not isinstance(labels, Labels):
        labels = read_labels(labels, run.ids, run.metrics, run.manifest.dataset.sha256)
    wanted = metrics or sorted(set(labels.by_metric) | set(labels.unknown_ids))
    missing = [m for m in wanted if m not in run.metrics]
    if missing:
        raise ConfigError(f"metric(s) {', '.join(missing)} not in the run ({', '.join(run.metrics)})")
    return {m: calibrate_metric(m, dict(zip(run.ids, run.scores[m])), labels.by_metric.get(m, {}),
                                labels.binary.get(m, True), labels.unknown_ids.get(m, [])) for m in wanted}


def calibrate_metric(metric: str, scores: dict[str, float | None], labelled: dict[str, float], binary: bool = True,
                     unknown: list[str] | None = None) -> Calibrated:
    """`scores` by row id (None: unscored), `labelled` the 0-1 labels by row id."""
    import numpy as np

    pairs = [(labelled[i], s) for i, s in scores.items() if i in labelled and s is not None]
    rest = [s for i, s in scores.items() if i not in labelled and s is not None]
    scored = [s for s in scores.values() if s is not None]
    result = Calibrated(metric=metric, kind="binary" if binary else "rating", labels=len(pairs), judged=len(rest),
                        judge_mean=float(np.mean(scored)) if scored else None,
                        unscored_labelled=sum(1 for i in labelled if scores.get(i) is None),
                        unknown_ids=(unknown or [])[:10])
    if len(pairs) < MIN_LABELS:
        result.note = (f"{len(pairs)} labelled rows the judge scored: at least {MIN_LABELS} are needed for an "
                       "interval; label more rows (several labellers of one row count as one row, the mean of "
                       "their labels)")
        return result
    y = np.array([p[0] for p in pairs], dtype=float)
    yhat = np.array([p[1] for p in pairs], dtype=float)
    if float(y.min()) == float(y.max()):  # no variance: a classical or PPI interval is a point
        return _unanimous(result, y, yhat, binary)
    result.labels_mean = float(y.mean())
    result.labels_ci95 = _clip(_classical(y))
    result.estimate, result.ci95 = _ppi(y, yhat, np.array(rest, dtype=float))
    result.reliability = reliability(y, yhat)
    result.ece, result.ece_ci95 = _ece_with_interval(y, yhat)
    result.threshold = best_threshold(y, yhat) if binary else None
    return result


def _unanimous(result: Calibrated, y: Any, yhat: Any, binary: bool) -> Calibrated:
    """Every label the same: the estimate is that label and the interval the rule of three's
    (no disagreement among n people bounds its rate below 3/n at 95%), never a point."""
    value, n = float(y[0]), len(y)
    if 0.0 < value < 1.0:  # a rating inside its scale: no bound without a spread to measure
        result.labels_mean = value
        result.note = (f"all {n} labels are the same rating ({value:g} of 0-1): labels with no spread give no "
                       "interval; label more varied rows")
        return result
    bound = min(1.0, 3.0 / n)
    ci = (1.0 - bound, 1.0) if value == 1.0 else (0.0, bound)
    result.labels_mean, result.estimate = value, value
    result.labels_ci95 = result.ci95 = ci
    result.reliability = reliability(y, yhat)
    result.ece, result.ece_ci95 = _ece_with_interval(y, yhat)
    result.threshold = best_threshold(y, yhat) if binary else None
    result.note = (f"all {n} labels are the same ({value:g}): the interval is the rule of three's, "
                   f"{ci[0]:.3f}-{ci[1]:.3f}, not from the labels' spread (they have none)")
    return result


def _ppi(y: Any, yhat: Any, unlabelled: Any) -> tuple[float, tuple[float, float]]:
    if unlabelled.size == 0:  # every scored row is labelled: the labels are the answer
        return float(y.mean()), _clip(_classical(y))
    import ppi_py

    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled)
    return float(min(1.0, max(0.0, float(point[0])))), _clip((float(low[0]), float(high[0])))


def _classical(y: Any) -> tuple[float, float]:
    import ppi_py

    low, high = ppi_py.classical_mean_ci(y, alpha=0.05)
    return float(low), float(high)


def _clip(ci: tuple[float, float]) -> tuple[float, float]:
    """The human mean lies in [0, 1]: an interval cut there covers it as often."""
    return max(0.0, ci[0]), min(1.0, ci[1])


def reliability(y: Any, yhat: Any, bins: int = BINS) -> list[dict[str, float | int]]:
    """Per equal-width bin of the judge's score: rows, mean score, mean label."""
    import numpy as np

    index = np.minimum((yhat * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        inside = index == b
        if inside.any():
            out.append({"low": b / bins, "high": (b + 1) / bins, "n": int(inside.sum()),
                        "mean_score": round(float(yhat[inside].mean()), 4),
                        "mean_label": round(float(y[inside].mean()), 4)})
    return out


def ece(y: Any, yhat: Any, bins: int = BINS) -> float:
    """Expected calibration error: the row-weighted gap between score and label per bin."""
    return sum(b["n"] * abs(b["mean_score"] - b["mean_label"]) for b in reliability(y, yhat, bins)) / len(y)


def _ece_with_interval(y: Any, yhat: Any) -> tuple[float, tuple[float, float]]:
    import numpy as np

    def stat(labels: list[float], scores: list[float]) -> float:
        return ece(np.asarray(labels), np.asarray(scores))

    low, high = bootstrap_ci(stat, [y.tolist(), yhat.tolist()], resamples=RESAMPLES)
    return round(ece(y, yhat), 4), (round(low, 4), round(high, 4))


def best_threshold(y: Any, yhat: Any) -> float | None:
    """stats.best_threshold of the judge's scores against the labels, to 4 decimals."""
    found = stats_best_threshold(yhat, y)
    return None if found is None else round(found, 4)
