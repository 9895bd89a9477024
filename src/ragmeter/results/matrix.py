"""Many runs side by side: runs x metrics, each mean with its 95% interval over the rows every
run has; each run against a baseline with the paired difference, its interval and a sign-flip
p-value, Holm-adjusted over every (run, metric) pair; and the same by slice of a column.

Rows are paired by id, as `compare` pairs two runs; a row counts for a metric where both runs
scored it. Under MIN_ROWS_FOR_INTERVAL rows (a small slice) a mean has no interval (said so)
and a difference keeps its exact sign-flip p-value; the slices' tests are adjusted together,
apart from the whole-data ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ragmeter.errors import DataError
from ragmeter.results.compare import ALPHA, Verdict, check_unique_ids, verdict
from ragmeter.results.gates import GateReport, GateSettings
from ragmeter.results.runs import Run, load_run
from ragmeter.stats import holm, mean_ci, paired_ci, sign_flip_p

#: the value of a row that has no value in the `--by` column
NO_VALUE = "(none)"
#: slices compared with --by, the largest first (a column of ids would make one per row)
MAX_SLICES = 20


class Cell(BaseModel):
    """One run's mean of one metric, and (for a run other than the baseline) its paired
    difference from the baseline."""

    n: int
    mean: float | None
    ci95: tuple[float, float] | None
    #: rows both this run and the baseline scored, and the baseline's mean over them
    pairs: int = 0
    baseline_mean: float | None = None
    difference: float | None = None
    difference_ci95: tuple[float, float] | None = None
    p_value: float | None = None
    p_holm: float | None = None
    verdict: Verdict | None = None


class RunRow(BaseModel):
    run: str
    label: str
    cells: dict[str, Cell]


class Slice(BaseModel):
    value: str
    rows: int
    runs: list[RunRow]
    #: "LABEL: metric" where a run is significantly worse than the baseline in this slice
    worse: list[str] = []


class ManyComparison(BaseModel):
    """`compare(RUN, RUN, RUN, ...)`, written as compare.json."""

    baseline: str
    metrics: list[str]
    higher_is_better: dict[str, bool]
    #: rows every run has (the ones compared), and each run's own row count
    shared_rows: int
    rows: dict[str, int]
    runs: list[RunRow]
    #: per metric, the label of the run with the best mean
    best: dict[str, str]
    alpha: float = ALPHA
    #: how many (run, metric) pairs Holm's adjustment was over
    tests: int = 0
    by: str | None = None
    slices: list[Slice] = []
    #: slices the data has; those beyond the MAX_SLICES largest are not compared unless asked
    slices_total: int = 0
    #: metrics some runs have and others not: left out, with who lacks them
    not_compared: dict[str, str] = {}
    #: per run whose shared ids ask another question than the baseline's, why (compare.testset_note)
    testset_differs: dict[str, str] = {}

    def worse(self) -> list[str]:
        """"LABEL: metric" for each run significantly worse than the baseline on the whole data."""
        return [f"{r.label}: {m}" for r in self.runs for m, c in r.cells.items() if c.verdict == "worse"]


def compare_many(runs: list[str | Path | Run], baseline: str | Path | Run | None = None,
                 metrics: list[str] | None = None, by: str | None = None, alpha: float = ALPHA,
                 run_names: list[str] | None = None, max_slices: int | None = MAX_SLICES) -> ManyComparison:
    """Compare runs (folders or loaded runs) on their shared rows and metrics against `baseline`
    (one of them, or another run; default: the first). `names`: the runs' short names (default:
    their folders' names), in the order of `runs`. With `by`, the `max_slices` largest slices
    (None: every one; chosen by size, before any test, so Holm over them stays valid)."""
    loaded, base = with_baseline(runs, baseline)
    for run in loaded:
        if not run.ids:
            raise DataError("the run has no rows (an empty shard?): nothing to compare", source=run.source)
        check_unique_ids(run)
    shared = _shared_ids(loaded, base)
    labels = _labels(loaded) if run_names is None else {id(r): n for r, n in zip(loaded, run_names)}
    names, missing = _metrics(loaded, metrics)
    higher = {m: base.manifest.metrics[m].higher_is_better for m in names}
    rows = _table(loaded, base, labels, shared, names)
    tests = _adjust({(row.label, m): c for row in rows for m, c in row.cells.items()}, alpha, higher)
    result = ManyComparison(baseline=labels[id(base)], metrics=names, higher_is_better=higher,
                            shared_rows=len(shared), rows={labels[id(r)]: len(r.ids) for r in loaded},
                            runs=rows, best=_best(rows, names, higher), alpha=alpha, tests=tests,
                            not_compared=missing, testset_differs=_testsets(loaded, base, labels, shared))
    if by is not None:
        result.by, result.slices, result.slices_total = by, *_slices(loaded, base, labels, shared, names, by, alpha,
                                                                     higher, max_slices)
    return result


def _testsets(loaded: list[Run], base: Run, labels: dict[int, str], shared: list[str]) -> dict[str, str]:
    """The runs whose shared ids ask another question (or expect another reference) than the
    baseline's, as two-run compare says it: runs over another test set with the same ids."""
    from ragmeter.results.compare import testset_differs

    found = {}
    for run in loaded:
        if run is base or run.manifest.dataset.sha256 == base.manifest.dataset.sha256:
            continue
        differing = testset_differs(base, run, shared)
        if differing:
            found[labels[id(run)]] = (f"{len(differing)} of the {len(shared):,} shared ids ask another question or "
                                      f"expect another reference than in {labels[id(base)]} (first: {differing[0]})")
    return found


def with_baseline(runs: list[str | Path | Run],
                  baseline: str | Path | Run | None = None) -> tuple[list[Run], Run]:
    """The runs loaded, the baseline first among them when it is not one of them (default:
    the first run), and the baseline; the runs' order is the order of every table."""
    loaded = [r if isinstance(r, Run) else load_run(r) for r in runs]
    base = loaded[0] if baseline is None else _find_baseline(loaded, baseline)
    return ([] if base in loaded else [base]) + loaded, base


def _find_baseline(loaded: list[Run], baseline: str | Path | Run) -> Run:
    if isinstance(baseline, Run):
        return baseline
    wanted = Path(baseline).resolve()
    for run in loaded:
        if Path(run.source).resolve() == wanted:
            return run
    return load_run(baseline)


def _shared_ids(loaded: list[Run], base: Run) -> list[str]:
    common = set(base.ids)
    for run in loaded:
        common &= set(run.ids)
    if not common:
        counts = ", ".join(f"{run.source}: {len(run.ids)}" for run in loaded)
        raise DataError(f"the runs share no row ids: they are not runs over the same data (rows: {counts})")
    return [i for i in base.ids if i in common]


def _metrics(loaded: list[Run], wanted: list[str] | None) -> tuple[list[str], dict[str, str]]:
    every = [m for m in loaded[0].metrics if all(m in r.metrics for r in loaded)]
    some = dict.fromkeys(m for r in loaded for m in r.metrics if m not in every)
    missing = {m: "not in " + ", ".join(r.source for r in loaded if m not in r.metrics) for m in some}
    if wanted is None:
        if not every:
            raise DataError("the runs share no metric: " + "; ".join(f"{r.source}: {', '.join(r.metrics)}"
                                                                     for r in loaded))
        return every, missing
    absent = [m for m in wanted if m not in every]
    if absent:
        raise DataError(f"metric(s) {', '.join(absent)} not in every run (shared: {', '.join(every) or 'none'})")
    return wanted, missing


def _labels(loaded: list[Run]) -> dict[int, str]:
    """Each run's short name: its folder's name, numbered where two share one."""
    names = [Path(r.source).name or r.source for r in loaded]
    return {id(r): name if names.count(name) == 1 else f"{name}#{n}" for n, (r, name) in
            enumerate(zip(loaded, names), start=1)}


def _table(loaded: list[Run], base: Run, labels: dict[int, str], ids: list[str], names: list[str]) -> list[RunRow]:
    """Every run's cells over `ids` (the tests against the baseline not yet adjusted); the
    baseline's scores are read once per metric, not once per run compared with it."""
    base_scores = {m: [base.score(i, m) for i in ids] for m in names}
    rows = []
    for run in loaded:
        cells = {m: _cell(base_scores[m], None) if run is base else
                 _cell([run.score(i, m) for i in ids], base_scores[m]) for m in names}
        rows.append(RunRow(run=run.source, label=labels[id(run)], cells=cells))
    return rows


def _cell(scores: list[float | None], base_scores: list[float | None] | None) -> Cell:
    """A run's cell from its scores over the rows and, for a run other than the baseline, the
    baseline's over the same rows."""
    values = [v for v in scores if v is not None]
    cell = Cell(n=len(values), mean=sum(values) / len(values) if values else None, ci95=mean_ci(values))
    pairs = [] if base_scores is None else [
        (x, y) for x, y in zip(base_scores, scores) if x is not None and y is not None]
    if not pairs:
        return cell
    diffs = [y - x for x, y in pairs]
    cell.pairs, cell.baseline_mean = len(pairs), sum(x for x, _ in pairs) / len(pairs)
    cell.difference = sum(diffs) / len(diffs)
    cell.difference_ci95 = paired_ci(diffs)[0]  # none under MIN_ROWS_FOR_INTERVAL pairs
    cell.p_value = sign_flip_p(diffs)  # exact for few pairs, as `compare` gives it
    return cell


def _adjust(cells: dict[tuple[str, ...], Cell], alpha: float, higher: dict[str, bool]) -> int:
    """Holm over every test among `cells` (keyed by (..., run label, metric)) together, and each
    difference's verdict from it; returns how many tests there were."""
    tested = {"\x00".join(key): c.p_value for key, c in cells.items() if c.p_value is not None}
    adjusted = holm(tested) if tested else {}
    for key, c in cells.items():
        c.p_holm = adjusted.get("\x00".join(key))
        if c.difference is not None:
            c.verdict = verdict(c.difference, c.p_holm, higher[key[-1]], alpha)
    return len(tested)


def _best(rows: list[RunRow], names: list[str], higher: dict[str, bool]) -> dict[str, str]:
    best = {}
    for m in names:
        scored = [(mean, r.label) for r in rows if (mean := r.cells[m].mean) is not None]
        if scored:
            pick = max(scored, key=lambda t: t[0]) if higher[m] else min(scored, key=lambda t: t[0])
            best[m] = pick[1]
    return best


def _slices(loaded: list[Run], base: Run, labels: dict[int, str], ids: list[str], names: list[str], by: str,
            alpha: float, higher: dict[str, bool], most: int | None) -> tuple[list[Slice], int]:
    groups: dict[str, list[str]] = {}
    found = False
    for i in ids:
        value = slice_value(base.row(i), by)
        found = found or value is not None
        groups.setdefault(NO_VALUE if value is None else value, []).append(i)
    if not found:
        scores = (*names, *(f"{m}_" for m in names))  # a metric's score, reason and evidence are no slices
        columns = sorted(k for k in base.row(ids[0]) if k not in names and not k.startswith(scores))
        raise DataError(f"--by {by}: no row of {base.source} has it (columns: {', '.join(columns)}; "
                        "a metadata key works too)")
    largest = sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))[:most]
    slices = [Slice(value=value, rows=len(members), runs=_table(loaded, base, labels, members, names))
              for value, members in largest]
    _adjust({(s.value, r.label, m): c for s in slices for r in s.runs for m, c in r.cells.items()}, alpha, higher)
    for s in slices:  # Holm over every slice's tests together: many slices, many chances to be unlucky
        s.worse = [f"{r.label}: {m}" for r in s.runs for m, c in r.cells.items() if c.verdict == "worse"]
    slices.sort(key=lambda s: (not s.worse, -s.rows, s.value))
    return slices, len(groups)


def slice_value(row: dict[str, Any], by: str) -> str | None:
    """A row's value in column `by`, or in its metadata, as text."""
    value = row.get(by)
    if value is None and isinstance(row.get("metadata"), dict):
        value = row["metadata"].get(by)
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def gate_runs(result: ManyComparison, runs: list[Run], settings: GateSettings) -> dict[str, GateReport]:
    """Each run's gates: its bars (`--fail-under`, `--gate`) on its own means, and for a run
    other than the baseline, no significant drop beyond `--max-drop` (the matrix's tests, Holm
    over every (run, metric) pair)."""
    from types import SimpleNamespace

    from ragmeter.results.compare import MetricComparison
    from ragmeter.results.gates import evaluate_gates

    by_source = {r.source: r for r in runs}
    reports = {}
    for row in result.runs:
        metrics = by_source[row.run].manifest.metrics
        against = None
        if row.label != result.baseline:
            against = SimpleNamespace(alpha=result.alpha, metrics={m: MetricComparison(
                metric=m, higher_is_better=result.higher_is_better[m], n=c.pairs, excluded=0,
                mean_a=c.baseline_mean, mean_b=None if c.difference is None or c.baseline_mean is None
                else c.baseline_mean + c.difference, difference=c.difference, ci95=c.difference_ci95,
                p_value=c.p_value, p_holm=c.p_holm, verdict=c.verdict or "no paired rows")
                for m, c in row.cells.items()})
        reports[row.label] = evaluate_gates(settings, metrics, against)
    return reports
