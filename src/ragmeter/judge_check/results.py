"""What a judge check found, as judge_check.json holds it: per metric, each check's pass
rate and the failing cases with their evidence."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class CheckResult(BaseModel):
    check: str
    expect: str
    description: str
    n: int
    unscored: int
    passed: int
    pass_rate: float | None
    ci95: tuple[float, float] | None
    median: float | None
    #: pass rate per prompt size k (contexts in the prompt)
    by_k: dict[str, float]
    #: the reader (reading/) that decides these cases, where it is not the judge
    reader: str | None = None


class Failure(BaseModel):
    """A case scored on the wrong side of 0.5, with what a person needs to see why."""

    id: str
    check: str
    k: int
    expect: str
    score: float | None
    answer: str
    edit: str
    reason: str
    evidence: dict[str, Any]


class MetricCheck(BaseModel):
    metric: str
    family: str
    cases: int
    #: ROC-AUC between should-be-high and should-be-low cases the judge decides (1.0: every
    #: high above every low); cases a reader decides (CheckResult.reader) are not in it
    roc_auc: float | None
    roc_auc_ci95: tuple[float, float] | None
    checks: list[CheckResult]
    failures: list[Failure]
    #: cases resting on the row's own contexts being relevant (the row named no reference)
    assumed_relevant: int = 0
    note: str = ""
    #: cases decided by a hand-written reader (reading/), outside the ROC-AUC
    reader_cases: int = 0


class JudgeCheckResult(BaseModel):
    """Written as judge_check.json."""

    data: str
    judge: str
    language: str
    seed: int
    sizes: list[int]
    sources: int
    metrics: dict[str, MetricCheck]
    #: the prompt sizes some case was built at, and why the others were not (too few rows)
    sizes_run: list[int] = []
    sizes_note: str | None = None
