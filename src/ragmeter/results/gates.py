"""CI gates: should this run fail the build?

Three kinds, each one `GateResult`:
- threshold: a metric's mean (`gate: mean`) or the pessimistic end of its 95% interval
  (`gate: lower`) must clear its bar. The bar is read in the metric's direction: at least
  the bar when higher is better, at most when lower is better (noise_sensitivity).
  An interval gate with fewer than MIN_ROWS_FOR_INTERVAL scored rows cannot decide: a
  bootstrap interval over a handful of rows is too narrow to trust, and would pass.
- unscored: the share of unscored rows of any metric must not exceed `max_unscored`.
- flagged: no metric may flag more rows with a flag than `max_flagged` allows it
  (`addressed_to_judge=0`: no answer may vote for itself; `contexts_disagree=5`).
- failed: a run-level rule, not a metric's: more (row, metric) pairs stayed failed after
  their judge calls' retries and a last try than `max_failed` allows (exit 3). Present
  only when some pair failed; the CLI, `evaluate()` and `EvaluationResult.passes()` (so the
  pytest plugin) all apply it.
- baseline: a metric fails when it is significantly worse than the baseline run (paired
  sign-flip test, Holm-adjusted across metrics, at ALPHA) and its mean drop is larger than
  `max_drop`; merely lower is not a failure. Below MIN_ROWS_FOR_INTERVAL pairs it cannot
  decide either: a paired test over four rows can never find a drop, so it would always pass.

A gate that cannot decide is not passed: the run exits 2 (with the reason) rather than 1, and
a data file or baseline too small for it is refused before any judge call.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragmeter.errors import ConfigError
from ragmeter.results.manifest import Manifest, MetricRecord
from ragmeter.stats import MIN_ROWS_FOR_INTERVAL, interval_text

GateMode = Literal["mean", "lower", "calibrated"]
#: an interval gate needs at least this many scored rows to decide


class GateSettings(BaseModel):
    """The gates of a run, from RunConfig (which validates the bars): `thresholds:` etc. in
    the config, --fail-under etc. on the CLI."""

    model_config = ConfigDict(extra="forbid")

    thresholds: dict[str, float] = Field(default_factory=dict)
    gate: GateMode = "mean"
    max_unscored: float | None = Field(default=None, ge=0, le=1)
    #: per flag (`addressed_to_judge`, `no_claim`, `contexts_disagree`), the most rows a metric may flag
    max_flagged: dict[str, int] = Field(default_factory=dict)
    baseline: str | None = None
    max_drop: float = Field(default=0.0, ge=0, le=1)
    min_rows: int = Field(default=MIN_ROWS_FOR_INTERVAL, ge=MIN_ROWS_FOR_INTERVAL)

    @property
    def active(self) -> bool:
        return bool(self.thresholds or self.max_unscored is not None or self.max_flagged or self.baseline)

    def check_metrics(self, labels: list[str], names: dict[str, str] | None = None) -> None:
        """Before any judge call: every threshold names a metric of the run, by its column
        (`recall@5`) or, where one column has it, by the name the metric table prints
        (`recall@k`); `names` maps each column to that name."""
        names = names or {}
        for key in [k for k in self.thresholds if k not in labels]:
            columns = [label for label, name in names.items() if name == key]
            if len(columns) == 1:
                self.thresholds[columns[0]] = self.thresholds.pop(key)
        unknown = [m for m in self.thresholds if m not in labels]
        if unknown:
            shown = [f"{label} ({names[label]})" if names.get(label, label) != label else label for label in labels]
            raise ConfigError(f"threshold for unknown metric(s) {', '.join(unknown)}: this run's metrics are "
                              f"{', '.join(shown)}")


    def check_rows(self, rows: int) -> None:
        """Before any judge call: an interval gate has enough rows to decide."""
        if self.gate == "lower" and self.thresholds and rows < self.min_rows:
            raise ConfigError(f"--gate lower needs at least {self.min_rows} rows to decide and the data has {rows}: "
                              "use more rows, or --gate mean")

    def check_baseline(self, baseline: Any, labels: list[str], ids: list[str]) -> None:
        """Before any judge call: the baseline run can be compared with this one, over enough
        shared rows for the paired test to decide (the same rule as an interval gate's)."""
        if not any(m in baseline.metrics for m in labels):
            raise ConfigError(f"baseline {baseline.source} has none of this run's metrics ({', '.join(labels)}; "
                              f"it has {', '.join(baseline.metrics)})")
        known = set(baseline.ids)
        if not any(i in known for i in ids):
            raise ConfigError(f"baseline {baseline.source} shares no row ids with this run's data: it is not a run "
                              "over the same test set")
        shared = sum(i in known for i in ids)
        if shared < self.min_rows:
            raise ConfigError(f"baseline {baseline.source} shares {shared} row ids with this run's data; a baseline "
                              f"gate needs at least {self.min_rows} pairs to decide (a paired test over fewer can "
                              "never find a drop)")


class GateResult(BaseModel):
    kind: Literal["threshold", "unscored", "flagged", "baseline", "failed"]
    metric: str
    passed: bool
    message: str
    #: False when too few rows were scored to decide (then `passed` is False too): exit 2, not 1
    decided: bool = True
    value: float | None = None
    bar: float | None = None
    higher_is_better: bool = True


class GateReport(BaseModel):
    """Every gate's outcome; falsy when any failed, so `assert report` shows why."""

    results: list[GateResult]
    #: per failing metric, its worst rows ("id score: reason"), for failure messages
    worst: dict[str, list[str]] = Field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def failures(self) -> list[GateResult]:
        return [r for r in self.results if not r.passed]

    @property
    def exit_code(self) -> int:
        """0 passed, 3 too many failed judge calls, 1 a gate failed, 2 no gate failed but some
        could not decide (too few rows)."""
        failures = self.failures()
        if not failures:
            return 0
        if any(f.kind == "failed" for f in failures):
            return 3
        return 1 if any(f.decided for f in failures) else 2

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        """One line (pytest shows a repr's newlines as \\n): each failure, then its worst rows."""
        if self.passed:
            return f"<gates passed: {'; '.join(g.message for g in self.results) or 'none set'}>"
        parts = []
        for gate in self.failures():
            worst = self.worst.get(gate.metric, [])
            parts.append(gate.message + (f" -- worst rows: {' || '.join(worst)}" if worst else ""))
        return "gates failed: " + " ;; ".join(parts)

    __str__ = __repr__

    def with_worst_rows(self, rows: list[dict[str, Any]], ids: list[str], count: int = 3) -> GateReport:
        """A copy naming the `count` lowest-scored rows (highest, where lower is better) of each
        failing threshold, each as one short line: id, score, the judge's first reason."""
        worst: dict[str, list[str]] = {}
        for gate in self.failures():
            if gate.kind != "threshold":
                continue
            scored = [(row[gate.metric], row_id, row) for row_id, row in zip(ids, rows)
                      if row.get(gate.metric) is not None]
            scored.sort(key=lambda t: (t[0] if gate.higher_is_better else -t[0], t[1]))
            worst[gate.metric] = [f"{row_id} {value:.3f}: {_one_reason(row, gate.metric)}"
                                  for value, row_id, row in scored[:count]]
        return self.model_copy(update={"worst": worst})


def _one_reason(row: dict[str, Any], metric: str, limit: int = 100) -> str:
    """The first reason the judge wrote in a row's evidence (else the row's own reason), cut
    at a word boundary: a failure message is read, not parsed."""
    from ragmeter.judges.reasons import UNWRITTEN_PREFIX

    def reasons(node: Any) -> Any:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "reason" and isinstance(value, str) and value and not value.startswith(UNWRITTEN_PREFIX):
                    yield value
                yield from reasons(value)
        elif isinstance(node, list):
            for item in node:
                yield from reasons(item)

    text = next(reasons(row.get(f"{metric}_evidence")), None) or row.get(f"{metric}_reason") or "-"
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def parse_fail_under(text: str | None) -> dict[str, float]:
    """`faithfulness=0.8,context_recall=0.7` -> {name: bar}."""
    bars: dict[str, float] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if name.strip() in bars:
            raise ConfigError(f"--fail-under names {name.strip()} twice: give each metric one bar")
        try:
            bars[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise ConfigError(f"--fail-under expects METRIC=NUMBER[,METRIC=NUMBER...], got '{item.strip()}'")
        if not math.isfinite(bars[name.strip()]):
            raise ConfigError(f"--fail-under {item.strip()}: a bar must be a finite number")
        if not 0 <= bars[name.strip()] <= 1:  # a bar of 2 could never be met, a bar of -1 never missed
            raise ConfigError(f"--fail-under {item.strip()}: the bar is outside [0, 1] (scores are in [0, 1])")
    return bars


def evaluate_gates(settings: GateSettings, metrics: Mapping[str, MetricRecord], comparison: Any = None) -> GateReport:
    """`metrics`: the manifest's per-metric records; `comparison`: compare(baseline, this run)."""
    results = [_threshold(name, bar, metrics[name], settings) for name, bar in settings.thresholds.items()]
    if settings.max_unscored is not None:
        results += [_unscored(name, record, settings.max_unscored) for name, record in metrics.items()]
    results += [_flagged(name, flag, record, limit) for flag, limit in settings.max_flagged.items()
                for name, record in metrics.items() if record.flags is not None]
    if comparison is not None:
        results += [_baseline(c, settings.max_drop, comparison.alpha, settings.min_rows)
                    for c in comparison.metrics.values()]
    return GateReport(results=results)


def failed_calls(manifest: Manifest, limit: float) -> GateResult | None:
    """The `max_failed` rule over a finished run's manifest; None when no pair failed."""
    faults = manifest.faults
    failed = faults.failed_calls
    if not failed:
        return None
    pairs = manifest.dataset.rows * max(1, len(manifest.metrics))
    share, rows = failed / pairs, faults.failed_rows
    message = (f"{failed} of {pairs} (row, metric) pairs stayed failed after their judge calls' retries and a last "
               f"try ({share:.1%}; {faults.recovered_calls} recovered on that try); rows "
               f"{', '.join(rows[:5])}{' …' if failed > 5 else ''} are unscored: run again to retry only those")
    return GateResult(kind="failed", metric="(judge calls)", passed=share <= limit, value=share, bar=limit,
                      higher_is_better=False, message=message)


def _threshold(name: str, bar: float, record: MetricRecord, settings: GateSettings) -> GateResult:
    higher = record.higher_is_better
    word = ">=" if higher else "<="
    mean, ci, n = record.mean, record.ci95, record.n
    if mean is None:
        return GateResult(kind="threshold", metric=name, passed=False, bar=bar, higher_is_better=higher,
                          message=f"{name}: no scored rows, cannot check {word} {bar}")
    if settings.gate == "mean":
        value, what = mean, "mean"
    elif settings.gate == "calibrated":
        calibrated = record.calibrated or {}
        if not calibrated.get("ci95"):
            why = calibrated.get("note") or "no human labels for it"
            return GateResult(kind="threshold", metric=name, passed=False, bar=bar, value=mean, higher_is_better=higher,
                              message=f"{name}: no calibrated interval ({why}); a calibrated gate needs at least "
                                      "20 labelled rows")
        ci, n = calibrated["ci95"], calibrated["labels"]
        value, what = (ci[0], "calibrated 95% CI lower end") if higher else (ci[1], "calibrated 95% CI upper end")
    elif n < settings.min_rows or not ci:
        return GateResult(kind="threshold", metric=name, passed=False, decided=False, bar=bar, value=mean,
                          higher_is_better=higher,
                          message=f"{name}: cannot decide: only {n} scored rows; an interval gate needs at least "
                                  f"{settings.min_rows} (use more rows, or --gate mean)")
    else:
        value, what = (ci[0], "95% CI lower end") if higher else (ci[1], "95% CI upper end")
    passed = value >= bar if higher else value <= bar
    return GateResult(kind="threshold", metric=name, passed=passed, value=value, bar=bar, higher_is_better=higher,
                      message=f"{name}: {what} {value:.4f} {'' if passed else 'not '}{word} {bar} (n={n})")


def _unscored(name: str, record: MetricRecord, limit: float) -> GateResult:
    unscored, n = record.unscored, record.n
    share = unscored / (n + unscored) if n + unscored else 0.0
    passed = share <= limit
    return GateResult(kind="unscored", metric=name, passed=passed, value=share, bar=limit,
                      message=f"{name}: {unscored} of {n + unscored} rows unscored ({share:.1%}), "
                              f"{'within' if passed else 'over'} the limit {limit:.1%}")


def _flagged(name: str, flag: str, record: MetricRecord, limit: int) -> GateResult:
    rows = (record.flags or {}).get(flag, 0)
    passed = rows <= limit
    return GateResult(kind="flagged", metric=name, passed=passed, value=float(rows), bar=float(limit),
                      higher_is_better=False,
                      message=f"{name}: {rows} row(s) flagged {flag}, "
                              f"{'within' if passed else 'over'} the limit {limit}")


def known_flags() -> tuple[str, ...]:
    """The flags a metric writes in its rows' evidence (`flags`), the names `max_flagged` takes."""
    from ragmeter.metrics.faithfulness import NO_CLAIM
    from ragmeter.reading.addressed import FLAG as ADDRESSED
    from ragmeter.reading.conflicts import FLAG as DISAGREE

    return tuple(sorted((ADDRESSED, DISAGREE, NO_CLAIM)))


def flag_problem(limits: Mapping[str, int]) -> str | None:
    """Why `limits` cannot be a max_flagged setting (a flag no metric sets, a negative count),
    or None: a misspelt flag would pass every run."""
    from difflib import get_close_matches

    known = known_flags()
    for flag, rows in limits.items():
        if flag not in known:
            close = get_close_matches(flag, known, n=1, cutoff=0.75)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            return f"unknown flag '{flag}'{hint}: the flags a metric sets are {', '.join(known)}"
        if rows < 0:
            return f"{flag}={rows}: the most rows flagged must be 0 or more"
    return None


def parse_max_flagged(text: str | None) -> dict[str, int]:
    """`addressed_to_judge=0,no_claim=2` -> {flag: most rows}."""
    import re

    limits: dict[str, int] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        flag, sep, value = item.partition("=")
        if not sep or not flag.strip():
            raise ConfigError(f"--max-flagged expects FLAG=ROWS[,FLAG=ROWS...] (e.g. addressed_to_judge=0), "
                              f"got '{item.strip()}'")
        if not re.fullmatch(r"[0-9]+", value.strip()):  # ASCII digits: str.isdigit() takes '²', int() does not
            raise ConfigError(f"--max-flagged {item.strip()}: ROWS must be a whole number of rows (0 or more), "
                              f"got '{value.strip()}'")
        limits[flag.strip()] = int(value)
    problem = flag_problem(limits)
    if problem:
        raise ConfigError(f"--max-flagged: {problem}")
    return limits


def _baseline(c: Any, max_drop: float, alpha: float, min_rows: int = MIN_ROWS_FOR_INTERVAL) -> GateResult:
    if c.difference is None or c.n < min_rows:
        return GateResult(kind="baseline", metric=c.metric, passed=False, decided=False,
                          message=f"{c.metric}: cannot decide: {c.n} rows scored in both runs; a baseline gate "
                                  f"needs at least {min_rows} pairs")
    drop = -c.difference if c.higher_is_better else c.difference
    passed = not (c.verdict == "worse" and drop > max_drop)
    detail = (f"{c.metric}: {c.mean_a:.4f} -> {c.mean_b:.4f} ({c.difference:+.4f}, 95% CI "
              f"{interval_text(c.ci95, c.n, '{0:+.3f} {1:+.3f}')}, p(Holm)={c.p_holm:.3g}, n={c.n})")
    if passed:
        why = "not significantly worse" if c.verdict != "worse" else f"worse by {drop:.4f} <= max drop {max_drop}"
    else:
        why = f"significantly worse than the baseline, by more than {max_drop}"
    return GateResult(kind="baseline", metric=c.metric, passed=passed, value=c.difference, bar=max_drop,
                      message=f"{detail}: {why}")
