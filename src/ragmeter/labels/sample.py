"""Which rows people label: a seeded sample of the rows the judge scored, at random or spread
over the judge's scores (stratified by decile, so labels cover the whole range and the
calibration curve has points at both ends)."""

from __future__ import annotations

import random
from typing import Any, Literal

Strategy = Literal["random", "stratified"]


def sample_ids(run: Any, metric: str, size: int, seed: int = 0, strategy: Strategy = "random") -> list[str]:
    """Up to `size` ids of rows `metric` scored in `run` (a results.runs.Run), in a seeded order."""
    scored = [(i, s) for i, s in zip(run.ids, run.scores[metric]) if s is not None]
    rng = random.Random(seed)
    if strategy == "random" or len(scored) <= size:
        picked = [i for i, _ in scored]
        rng.shuffle(picked)
        return picked[:size]
    ranked = sorted(scored, key=lambda t: (t[1], t[0]))
    deciles = [ranked[len(ranked) * d // 10: len(ranked) * (d + 1) // 10] for d in range(10)]
    picked = []
    for d, band in enumerate(deciles):  # size // 10 from each band, the remainder from the first bands
        share = size // 10 + (1 if d < size % 10 else 0)
        picked += [i for i, _ in rng.sample(band, min(share, len(band)))]
    rng.shuffle(picked)
    return picked
