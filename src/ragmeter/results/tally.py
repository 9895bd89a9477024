"""What a run keeps of each row once it is written: per metric the score as one float (8
bytes a row, NaN when unscored), and running counts of why rows were unscored and which
judgment mode scored them. The aggregates in manifest.json need nothing else, so a run's
memory does not grow with its rows' text, reasons or evidence."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ragmeter.stats import score_summaries


class Tally:
    """Scores by metric, in dataset order."""

    def __init__(self, names: list[str]) -> None:
        self.values = {n: array("d") for n in names}
        self.reasons: dict[str, Counter[str | None]] = {n: Counter() for n in names}
        self.modes: dict[str, Counter[Any]] = {n: Counter() for n in names}
        #: rows a metric flagged (evidence `flags`, e.g. faithfulness's `contexts_disagree`)
        self.flags: dict[str, Counter[str]] = {n: Counter() for n in names}
        self._summaries: tuple[int, dict[str, dict[str, Any]]] | None = None  # (rows then, by metric)

    def add(self, scores: dict[str, Any]) -> None:
        """One row's Scores (metrics/base.py), by metric label."""
        for name, score in scores.items():
            # judgment: metrics/judgment.py's mode; absent for metrics without one
            self.add_value(name, score.value, score.reason, score.evidence.get("judgment"),
                           score.evidence.get("flags") or ())

    def add_value(self, name: str, value: float | None, reason: str | None = None, mode: Any = None,
                  flags: Iterable[str] = ()) -> None:
        """One row's score for one metric (None: unscored, for `reason`), and what it flagged."""
        self.flags[name].update(flags)
        if value is None:
            self.values[name].append(math.nan)
            self.reasons[name][reason] += 1
            return
        self.values[name].append(value)
        if mode is not None:
            self.modes[name][mode] += 1

    def __len__(self) -> int:
        return len(next(iter(self.values.values()), ()))

    def column(self, name: str) -> list[float | None]:
        return [None if math.isnan(v) else v for v in self.values[name]]

    def aggregate(self, name: str) -> dict[str, Any]:
        """manifest.json's figures for one metric; every metric's are computed together, once
        for the rows added so far (their bootstrap draws are shared: stats.bootstrap_mean_cis)."""
        if self._summaries is None or self._summaries[0] != len(self):
            self._summaries = (len(self), score_summaries(dict(self.values),
                                                          {n: dict(r) for n, r in self.reasons.items()}))
        modes, flags = dict(self.modes[name]), dict(self.flags[name])
        return {**self._summaries[1][name], **({"judgment": modes} if modes else {}),
                **({"flags": flags} if flags else {})}
