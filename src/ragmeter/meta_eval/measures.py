"""Agreement measures between a metric's scores and human labels, and the no-model floor.

ROC-AUC is computed from ranks (Mann-Whitney U, ties counted half), Kendall's tau-b and
Cohen's kappa directly, so the core package needs neither scikit-learn nor scipy; unit
tests check them against both.
"""

from __future__ import annotations

from typing import Any

from ragmeter.reading.words import share_held
from ragmeter.stats import best_threshold as stats_best_threshold


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
    if not pos or not neg:
        raise ValueError("balanced accuracy needs both positive and negative labels")
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


def word_overlap(query: str, passages: list[str]) -> float:
    """The floor: share of the query's words (3+ letters) found in the passages. No model."""
    share = share_held(query, passages)
    return 0.0 if share is None else share


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


def kendall_tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b (ties in either variable adjusted), as scipy.stats.kendalltau."""
    import numpy as np

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    sa, sb = np.sign(a[:, None] - a[None, :]), np.sign(b[:, None] - b[None, :])
    concordance = float((sa * sb).sum()) / 2
    pairs_a, pairs_b = float((sa != 0).sum()) / 2, float((sb != 0).sum()) / 2
    return concordance / (pairs_a * pairs_b) ** 0.5 if pairs_a and pairs_b else 0.0


def cohen_kappa(a: list[Any], b: list[Any], weights: str | None = None) -> float:
    """Agreement beyond chance between two raters' categories; `weights="quadratic"` for
    ordinal categories (numbers), where near misses count partly."""
    categories = sorted(set(a) | set(b))
    index = {c: i for i, c in enumerate(categories)}
    k, n = len(categories), len(a)
    if k < 2 or n == 0:
        return 1.0
    observed = [[0.0] * k for _ in range(k)]
    for x, y in zip(a, b):
        observed[index[x]][index[y]] += 1 / n
    rows = [sum(r) for r in observed]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def weight(i: int, j: int) -> float:
        if weights == "quadratic":
            return ((categories[i] - categories[j]) / (categories[-1] - categories[0])) ** 2
        return 0.0 if i == j else 1.0

    disagree = sum(weight(i, j) * observed[i][j] for i in range(k) for j in range(k))
    chance = sum(weight(i, j) * rows[i] * cols[j] for i in range(k) for j in range(k))
    return 1 - disagree / chance if chance else 1.0


def best_threshold(scores: list[float], labels: list[int]) -> float:
    """stats.best_threshold; labels of one class have no best cut (a ValueError, as
    balanced_accuracy gives)."""
    found = stats_best_threshold(scores, labels)
    if found is None:
        raise ValueError("a threshold needs both positive and negative labels")
    return found
