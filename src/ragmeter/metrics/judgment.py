"""Probability-weighted judgments: a label's expected value under the judge's own probabilities.

With `judgment: probability` (the default), a verdict counts as P(verdict = 1) and a
rating as its expected value, both read from the same decode that produced the label
(judges/label_probs.py): a judge 55% sure and one 99% sure no longer count the same.
With `judgment: label`, or where the backend gave no probabilities, the label itself
counts. Every row records which mode it used (`evidence.judgment`) and the manifest
counts them per metric.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ragmeter.judges.session import Answer

Judgment = Literal["probability", "label"]
PROBABILITY, LABEL, MIXED = "probability", "label", "mixed"
BINARY = {0: 0.0, 1: 1.0}


class JudgedOptions(BaseModel):
    """Settings of every metric that can weigh its judge's labels by their probabilities."""

    model_config = ConfigDict(extra="forbid")
    judgment: Judgment = "probability"


@dataclass(frozen=True)
class Weighed:
    """One judged label: its value for the score, the label, and the probabilities used."""

    value: float
    label: Any
    probs: dict[str, float] | None

    @property
    def mode(self) -> str:
        return LABEL if self.probs is None else PROBABILITY


def weigh(answer: Answer, path: str, label: object, scale: Mapping[Any, float], judgment: str) -> Weighed:
    """The expected value of `scale` over the label's probabilities at `path`, or the label's
    own value when probabilities are off or missing."""
    probs = answer.probs.get(path) if judgment == PROBABILITY else None
    if not probs:
        return Weighed(scale[label], label, None)
    value = sum(p * scale[json.loads(k)] for k, p in probs.items())
    return Weighed(value, label, {k: round(p, 4) for k, p in probs.items()})


def weigh_verdicts(answer: Answer, items: list[Any], judgment: str, list_key: str = "verdicts",
                   field: str = "verdict") -> list[Weighed]:
    """Each verdict of a list as P(verdict = 1) (or its 0/1 label)."""
    return [weigh(answer, f"{list_key}.{i}.{field}", getattr(item, field), BINARY, judgment)
            for i, item in enumerate(items)]


def mode_of(weighed: list[Weighed]) -> str:
    """The row's judgment mode: probability or label throughout (label when nothing was
    judged), or mixed."""
    modes = {w.mode for w in weighed} or {LABEL}
    return modes.pop() if len(modes) == 1 else MIXED


def p_one(w: Weighed) -> float | None:
    """P(verdict = 1) for the evidence, rounded; None in label mode."""
    return None if w.probs is None else round(w.value, 4)
