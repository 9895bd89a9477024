"""What a run returns: its rows (in memory, or read from the results file when first used),
its manifest, where they were written, and its gates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter.results.compare import Comparison
from ragmeter.results.gates import (
    MIN_ROWS_FOR_INTERVAL,
    GateMode,
    GateReport,
    GateSettings,
    evaluate_gates,
    failed_calls,
)
from ragmeter.results.manifest import Manifest, MetricRecord
from ragmeter.results.runs import Run
from ragmeter.run.config import default


@dataclass
class EvaluationResult:
    """Rows with scores and evidence, the manifest, and where they were written (if anywhere)."""

    #: a list, or for a written run a sequence read from the results file when first used
    rows: Sequence[dict[str, Any]]
    #: manifest.json as a typed object (what `load_run(...).manifest` is); reads as the dict too:
    #: `result.manifest["metrics"]["faithfulness"]["mean"]`
    manifest: Manifest
    #: each row's id, in the rows' order
    ids: Sequence[str]
    results_path: Path | None = None
    manifest_path: Path | None = None
    #: the config's gates (thresholds, max_unscored, baseline), None when it sets none
    gates: GateReport | None = None
    #: compare(baseline, this run) when the config names a baseline
    comparison: Comparison | None = None
    #: a written run: its folder's Run, opened when first asked for
    _run: Callable[[], Run] | None = field(default=None, repr=False)

    def summary(self) -> dict[str, MetricRecord]:
        """Each metric's record: mean, ci95, n, unscored, calls, tokens, seconds."""
        return self.manifest.metrics

    def passes(self, gate: GateMode = "mean", min_rows: int = MIN_ROWS_FOR_INTERVAL,
               **thresholds: float) -> GateReport:
        """Gate these scores, e.g. `assert result.passes(faithfulness=0.8)`: falsy when a bar
        is missed; its repr lists the failures and each failing metric's worst rows."""
        settings = GateSettings(thresholds=thresholds, gate=gate, min_rows=min_rows)
        settings.check_metrics(list(self.manifest.metrics))
        report = evaluate_gates(settings, self.manifest.metrics)
        limit = self.manifest.config.get("max_failed", default("max_failed"))
        failed = failed_calls(self.manifest, limit)
        if failed is not None:  # the run's own rule: too many failed judge calls fail any gate
            report = GateReport(results=[*report.results, failed])
        return report.with_worst_rows(list(self.rows), list(self.ids))

    def as_run(self, source: str = "<in-memory>") -> Run:
        """This result as a finished run (what `load_run` returns for its folder): for
        `compare(result.as_run(), "runs/baseline")` and the report without writing it first."""
        if self._run is not None:
            return self._run()
        return Run.from_rows(self.manifest, list(self.rows), list(self.ids), source)

    def to_pandas(self) -> Any:
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def __repr__(self) -> str:
        means = ", ".join(f"{name}={m.mean:.4f}" if m.mean is not None else f"{name}=-"
                          for name, m in self.manifest.metrics.items())
        where = f", written to {self.results_path}" if self.results_path else ""
        return f"<EvaluationResult {len(self.rows)} rows: {means}{where}>"
