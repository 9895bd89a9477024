"""Platt scaling of a bundled judge's verdict probabilities, so that a mean reads as a rate.

A small judge's P(verdict = 1) ranks well but sits near the middle: an answer unrelated to
its context and one copied from it may read 0.4 and 0.8. Platt scaling maps the log-odds
through a line fitted by logistic regression against human labels,
p' = 1 / (1 + exp(-(slope * logit(p) + intercept))): the order of the rows (and every
ROC-AUC) is unchanged, and the probabilities mean what they say on the data it was fitted
on. The lines ship for the bundled judges in `calibration.json`, one per prompt, fitted by
benchmarks/bench_validity.py on rows of the human-labelled files that the benchmark does
not report, and apply only to the exact prompt version they were fitted with: an edited or
translated prompt gets the judge's own probabilities, and the manifest says which prompts
were calibrated. A cached reply keeps the raw probabilities; calibration is applied on use.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

#: probabilities are kept this far from 0 and 1 before taking log-odds
EPSILON = 1e-6


@dataclass(frozen=True)
class Platt:
    """One fitted line for one prompt version and label field."""

    prompt: str  # "faithfulness.verdicts"
    version: str  # the prompt's content hash it was fitted with
    field: str  # the binary label field, e.g. "verdict"
    slope: float
    intercept: float
    fitted_on: str
    #: Where the backend reads token evidence (judges/llamacpp/token_evidence.py): which input field
    #: holds the claims and which the evidence, the weights on logit(p), 1, minimum and mean
    #: token PMI, and what they were fitted on. Claims without features get the line above.
    combiner: dict[str, Any] | None = None

    def apply(self, p_one: float) -> float:
        return apply_line(self.slope, self.intercept, p_one)

    def record(self) -> dict[str, object]:
        out = {"version": self.version, "field": self.field, "slope": self.slope, "intercept": self.intercept,
               "fitted_on": self.fitted_on}
        return {**out, "combiner": self.combiner} if self.combiner else out

    def line(self, found: Mapping[str, float] | None) -> tuple[float, float]:
        """(slope, intercept) for a claim: the combiner's with its PMI folded in, or the plain line."""
        if self.combiner is None or found is None:
            return self.slope, self.intercept
        return combined_line(self.combiner["weights"], found)

    def combiner_request(self) -> tuple[str, float, float, float, float] | None:
        """The combiner as a backend folds it into one line per claim (JudgeRequest.evidence)."""
        return None if self.combiner is None else (self.field, *self.combiner["weights"])


def calibrate(probs: dict[str, dict[str, float]], rule: Platt,
              evidence: Sequence[Mapping[str, float] | None] | None = None) -> dict[str, dict[str, float]]:
    """`probs` (JSON path -> {label: p}) with every binary distribution of `rule.field`
    replaced by its calibrated one (the i-th label of the field through the combiner with
    the i-th claim's token evidence, where there is some); other fields as they were."""
    out = {}
    for path, dist in probs.items():
        parts = path.split(".")
        one = None
        if parts[-1] == rule.field:
            index = int(parts[-2]) if len(parts) > 1 and parts[-2].isdigit() else 0
            found = evidence[index] if evidence and index < len(evidence) else None
            one = calibrated_one(dist, *rule.line(found))
        out[path] = dist if one is None else {"0": 1 - one, "1": one}
    return out


def combined_line(weights: Sequence[float], found: Mapping[str, Any]) -> tuple[float, float]:
    """A combiner's (slope, intercept) for one claim: weights on logit(p), 1, minimum and mean
    token PMI, the claim's PMI folded into the intercept. The backend writing the label and
    the session calibrating the score both use it, so they agree."""
    slope, intercept, w_min, w_mean = weights
    return slope, intercept + w_min * found["min"] + w_mean * found["mean"]


def apply_line(slope: float, intercept: float, p_one: float) -> float:
    """p' = sigmoid(slope * logit(p) + intercept), with p kept off 0 and 1."""
    p = min(1 - EPSILON, max(EPSILON, p_one))
    z = slope * math.log(p / (1 - p)) + intercept
    return 1 / (1 + math.exp(-z)) if z > -700 else 0.0


def calibrated_one(dist: dict[str, float], slope: float, intercept: float) -> float | None:
    """Calibrated P(1) of a binary label distribution ({"0": p, "1": q}); None for other labels."""
    if set(dist) != {"0", "1"}:
        return None
    return apply_line(slope, intercept, dist["1"] / ((dist["0"] + dist["1"]) or 1.0))


def favoured(dist: dict[str, float], slope: float, intercept: float) -> str | None:
    """The binary label ("0"/"1") the calibrated probability favours; None for other labels."""
    one = calibrated_one(dist, slope, intercept)
    return None if one is None else "1" if one >= 0.5 else "0"


@cache
def shipped(model: str) -> dict[str, Platt]:
    """The lines fitted for a bundled judge, by prompt key; a translated prompt's line under
    `key@language` (`faithfulness.verdicts@spanish`): each applies only to its prompt version."""
    text = resources.files("ragmeter.judges").joinpath("calibration.json").read_text(encoding="utf-8")
    entries = json.loads(text).get(model, {})
    return {key: Platt(prompt=key.partition("@")[0], **entry) for key, entry in entries.items()}


def line_for(rules: Mapping[str, Platt], key: str, version: str) -> Platt | None:
    """The line fitted for this prompt key and exact version (whatever its language), or None."""
    return next((r for r in rules.values() if r.prompt == key and r.version == version), None)


def fit(scores: list[float], labels: list[int], iterations: int = 100) -> tuple[float, float]:
    """Slope and intercept of the logistic regression of `labels` on logit(score), by
    Newton's method (two parameters, no penalty: the fit Platt describes)."""
    import numpy as np

    p = np.clip(np.asarray(scores, dtype=float), EPSILON, 1 - EPSILON)
    x = np.stack([np.log(p / (1 - p)), np.ones_like(p)], axis=1)
    y = np.asarray(labels, dtype=float)
    w = np.zeros(2)
    for _ in range(iterations):
        q = 1 / (1 + np.exp(-(x @ w)))
        hessian = x.T @ (x * (q * (1 - q))[:, None]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, x.T @ (y - q))
        w += step
        if np.abs(step).max() < 1e-10:
            break
    return float(w[0]), float(w[1])
