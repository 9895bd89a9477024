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
    ranked = sorted(scores)
    rank: dict[float, float] = {}
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j] == ranked[i]:
            j += 1
        rank[ranked[i]] = (i + j + 1) / 2  # mean 1-based rank of the tie block
        i = j
    u = sum(rank[s] for s in pos) - len(pos) * (len(pos) + 1) / 2
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
