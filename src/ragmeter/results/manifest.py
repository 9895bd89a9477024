"""The run record's schema (manifest.json beside the results): version, config, judge
identity, prompt versions, per-metric aggregates and accounting, and run timings. Scripts
and CI read it; run/record.py writes it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    """Unknown keys refused, assignments checked: a run fills its manifest in steps (the
    results file, labels, gates) on the typed object, which is written as it stands."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def __getitem__(self, key: str) -> Any:
        """The value as manifest.json holds it (`result.manifest["metrics"]["faithfulness"]["ci95"]`
        is a list), for code written when `EvaluationResult.manifest` was that dict; a copy."""
        if key not in type(self).model_fields:
            raise KeyError(key)
        return self.model_dump(mode="json", include={key})[key]

    def get(self, key: str, default: Any = None) -> Any:
        """A key manifest.json holds, else `default` (as the dict's `get`)."""
        return self[key] if key in self.model_fields_set else default


class MetricRecord(_Strict):
    """One metric's aggregate, accounting and identity in manifest.json."""

    mean: float | None = Field(ge=0, le=1)  # every score is in [0, 1] (engine/local.py)
    ci95: tuple[float, float] | None
    n: int = Field(ge=0)
    unscored: int = Field(ge=0)
    unscored_reasons: dict[str, int]
    judgment: dict[str, int] | None = None  # rows per judgment mode, for metrics that have one
    #: rows the metric flagged, by flag (faithfulness: `contexts_disagree`)
    flags: dict[str, int] | None = None
    judge_calls: int
    prompt_tokens: int
    completion_tokens: int
    cache_hits: int
    reasks: int
    unparseable: int
    truncated: int
    embed_calls: int
    embed_cache_hits: int
    #: of the unscored: rows whose judge call failed its retries, twice (engine/failed_calls.py)
    failed: int = 0
    judge_seconds: float
    embed_seconds: float
    seconds: float
    version: str
    metric: str
    settings: dict[str, Any]
    required: list[str]
    higher_is_better: bool
    #: the human-mean estimate from labels (labels/calibrate.py Calibrated), when the run had labels
    calibrated: dict[str, Any] | None = None


class DatasetRecord(_Strict):
    source: str
    sha256: str | None
    rows: int = Field(ge=0)


class Faults(_Strict):
    retries: int
    timeouts: int
    reasks: int
    unparseable: int
    structured_output_refused: int
    #: Ray workers that died mid-run and were replaced (engine/ray.py)
    worker_restarts: int = 0
    http_errors: dict[str, int]
    processes: int
    #: (row, metric) pairs whose judge call failed its retries and its retry at the end
    failed_calls: int = 0
    #: pairs that failed their retries, then answered when tried again at the end
    recovered_calls: int = 0
    #: the first 20 rows with a failed call (a re-run judges only those)
    failed_rows: list[str] = Field(default_factory=list)
    #: times IN_A_ROW calls failed but the judge answered a call that succeeded before: the rows' failures
    judge_answered_probe: int = 0


class Manifest(_Strict):
    """manifest.json as a type: a run builds it once (run/record.py), fills in what comes later
    on it and writes `as_json()`; `load_run`, the summary printer and the CLI read it back."""

    ragmeter_version: str
    created_at: str
    python: str
    config: dict[str, Any]
    dataset: DatasetRecord
    judge: dict[str, Any] | None
    embeddings: dict[str, Any] | None
    language: str
    #: where the language came from: "given", the manifest beside the data, the rows' text (prompts/run_language.py)
    language_from: str | None = None
    prompts_dir: str | None
    prompts: dict[str, dict[str, dict[str, Any]]]
    prompt_notes: list[str]
    #: whether the run's language has the readers' vocabulary (reading/languages.py), for the
    #: metrics that read words: {language, covered, metrics, note: "not covered: french"}
    reading: dict[str, Any] | None = None
    cache: str
    truncation_policy: str
    metrics: dict[str, MetricRecord]
    rag_index: dict[str, Any] | None
    faults: Faults
    wall_seconds: float
    judge_seconds: float
    embed_seconds: float
    judge_load_seconds: float
    model_busy_seconds: float
    overhead_seconds: float
    cpu_seconds: float
    #: the dry run's estimate for this run (`--dry-run`), with the actuals beside it
    estimate: dict[str, Any] | None = None
    results_file: str | None = None
    #: the labels file the run's `calibrated` estimates came from
    labels: str | None = None
    #: gate outcomes when the run had gates (gates.py): {passed, mode, results: [...]}
    gates: dict[str, Any] | None = None
    #: the shard folders `ragmeter merge` joined into this run
    merged_from: list[str] | None = None
    #: reasons written later by `ragmeter explain`: per metric, rows, judge calls, rows left as they were
    explained: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        """The object written to manifest.json: the keys this run set, no others."""
        return self.model_dump(mode="json", exclude_unset=True)


def index_of(columns: dict[str, list[float | None]]) -> dict[str, Any] | None:
    """The RAG Index over these citation metrics' score columns (None without any)."""
    from ragmeter.stats import index_with_ci

    names = list(columns)
    if not names:
        return None
    index = index_with_ci(columns)
    if index is None:
        return {"value": None, "components": [], "missing": names}
    return {**index, "missing": [n for n in names if n not in index["components"]]}
