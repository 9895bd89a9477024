"""Agreement of a metric with human labels: the measures and the no-model floor.

Used by the validity benchmarks (and later by `ragmeter meta-eval`). Labelled files use the
schema of shared/data/meta-eval: {id, question, contexts[], answer, reference, label, ...}.
ROC-AUC is computed here from ranks (Mann-Whitney U, ties counted half) so the core
package needs no scikit-learn; a unit test checks it against scikit-learn.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_WORD = re.compile(r"\w+", re.UNICODE)


def load_labelled(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Labelled rows as ragmeter rows (user_input, retrieved_contexts, response, reference, label)."""
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            rows.append({"id": raw["id"], "user_input": raw["question"], "retrieved_contexts": raw["contexts"],
                         "response": raw.get("answer") or "", "reference": raw.get("reference") or "",
                         "label": raw["label"]})
    return rows[:limit] if limit else rows


def roc_auc(scores: list[float], labels: list[int]) -> float:
    """Probability that a random positive outscores a random negative (ties count 1/2)."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        raise ValueError("ROC-AUC needs both positive and negative labels")
    rank = ranks(scores)  # ties share their mean rank
    u = sum(r for r, y in zip(rank, labels) if y) - len(pos) * (len(pos) + 1) / 2
    return u / (len(pos) * len(neg))


def balanced_accuracy(scores: list[float], labels: list[int], threshold: float = 0.5) -> float:
    """Mean of the true-positive and true-negative rates at `threshold` (score >= threshold is 1)."""
    pos = [s >= threshold for s, y in zip(scores, labels) if y]
    neg = [s < threshold for s, y in zip(scores, labels) if not y]
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def word_overlap(query: str, passages: list[str]) -> float:
    """The floor: share of the query's words (3+ letters) found in the passages. No model."""
    q = words(query)
    return len(q & words(" ".join(passages))) / len(q) if q else 0.0


def pearson(x: list[float], y: list[float]) -> float:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else 0.0


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: list[float], y: list[float]) -> float:
    """Pearson of the ranks (ties averaged), as scipy.stats.spearmanr."""
    return pearson(ranks(x), ranks(y))


def balanced_sample(rows: list[dict[str, Any]], n: int | None, seed: int = 0) -> list[dict[str, Any]]:
    """Up to n rows, half positive and half negative, chosen with a fixed seed."""
    import random

    if not n or n >= len(rows):
        return rows
    rng = random.Random(seed)
    pos = [r for r in rows if r["label"]]
    neg = [r for r in rows if not r["label"]]
    picked = rng.sample(pos, min(len(pos), n // 2)) + rng.sample(neg, min(len(neg), n - n // 2))
    return sorted(picked, key=lambda r: r["id"])


def bootstrap_ci(stat: Any, columns: list[list[float]], resamples: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of `stat(*columns)` over rows resampled together (seeded). A
    resample the statistic cannot use (one class only for ROC-AUC) is drawn again."""
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
