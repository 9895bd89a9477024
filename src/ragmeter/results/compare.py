"""Did run B change anything against run A, or is it noise? Paired statistics per metric.

Rows are paired by id; a row counts for a metric only when both runs scored it. Per metric:
both means over the paired rows, the mean difference B - A with a paired-bootstrap 95%
interval, a two-sided sign-flip p-value, and Holm's adjustment across the metrics compared
together. `verdict` reads the difference in the metric's own direction (`higher_is_better`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from ragmeter.errors import DataError
from ragmeter.results.runs import Run, load_run
from ragmeter.stats import MIN_ROWS_FOR_INTERVAL, interval_text
from ragmeter.text import plain, print_table, printable

ALPHA = 0.05
TOP_ROWS = 5

Verdict = Literal["better", "worse", "no significant difference", "no paired rows"]


class RowChange(BaseModel):
    """A row whose score moved most, with both runs' reason and evidence."""

    id: str
    a: float
    b: float
    difference: float
    question: str | None
    reason_a: str | None
    reason_b: str | None
    evidence_a: Any = None
    evidence_b: Any = None


class MetricComparison(BaseModel):
    metric: str
    higher_is_better: bool
    n: int
    excluded: int  # shared rows unscored in A or B (or both)
    mean_a: float | None
    mean_b: float | None
    difference: float | None  # mean of B - A over the paired rows
    ci95: tuple[float, float] | None
    p_value: float | None
    p_holm: float | None = None
    #: "bootstrap" (percentile, paired) or "normal" (its large-sample form, above 20,000 pairs)
    interval_method: str | None = None
    verdict: Verdict = "no paired rows"
    #: where the interval and the verdict seem to say different things, why (else None)
    note: str | None = None
    changed: list[RowChange] = []


class Comparison(BaseModel):
    """The result of `compare(a, b)`, written as compare.json."""

    run_a: str
    run_b: str
    #: the same test set: the same ids, each asking the same question with the same reference
    #: (the answers, and so the files' hashes, differ between two RAGs: that is the point)
    same_dataset: bool
    dataset_a: str | None
    dataset_b: str | None
    #: shared ids whose question or reference differ between the runs, and the first of them
    questions_differ: int = 0
    first_differing: str | None = None
    shared_rows: int
    only_in_a: int
    only_in_b: int
    alpha: float = ALPHA
    metrics: dict[str, MetricComparison]
    #: metrics one run has and the other has not: not compared, and said so ("only in A")
    not_compared: dict[str, str] = {}

    def worse(self) -> list[str]:
        return [m for m, c in self.metrics.items() if c.verdict == "worse"]

    def better(self) -> list[str]:
        return [m for m, c in self.metrics.items() if c.verdict == "better"]


def compare(a: str | Path | Run, b: str | Path | Run, metrics: list[str] | None = None,
            top: int = TOP_ROWS, alpha: float = ALPHA) -> Comparison:
    """Compare run folders (or loaded runs) A and B on their shared metrics, or `metrics`."""
    run_a = a if isinstance(a, Run) else load_run(a)
    run_b = b if isinstance(b, Run) else load_run(b)
    for run in (run_a, run_b):
        if not run.ids:
            raise DataError("the run has no rows (an empty shard?): nothing to compare", source=run.source)
        check_unique_ids(run)
    in_b = set(run_b.ids)
    shared = [i for i in run_a.ids if i in in_b]
    if not shared:
        raise DataError(f"runs {run_a.source} and {run_b.source} share no row ids: they are not runs over "
                        f"the same data (A has {len(run_a.ids)} rows, B {len(run_b.ids)})")
    names = _metric_names(run_a, run_b, metrics)
    results = {name: _compare_metric(run_a, run_b, shared, name, top) for name in names}
    adjusted = _holm({n: r.p_value for n, r in results.items() if r.p_value is not None})
    for name, result in results.items():
        result.p_holm = adjusted.get(name)
        result.verdict = verdict(result.difference, result.p_holm, result.higher_is_better, alpha)
        result.note = _interval_note(result, alpha, len(adjusted))
    same_file = run_a.manifest.dataset.sha256 == run_b.manifest.dataset.sha256
    differing = [] if same_file else testset_differs(run_a, run_b, shared)
    return Comparison(run_a=run_a.source, run_b=run_b.source,
                      same_dataset=not differing and len(shared) == len(run_a.ids) == len(run_b.ids),
                      dataset_a=run_a.manifest.dataset.sha256, dataset_b=run_b.manifest.dataset.sha256,
                      questions_differ=len(differing), first_differing=differing[0] if differing else None,
                      shared_rows=len(shared), only_in_a=len(run_a.ids) - len(shared),
                      only_in_b=len(run_b.ids) - len(shared), alpha=alpha, metrics=results,
                      not_compared=_unpaired_metrics(run_a, run_b))


def _unpaired_metrics(run_a: Run, run_b: Run) -> dict[str, str]:
    """The metrics of one run only, and which run has them."""
    return {**{m: "only in A" for m in run_a.metrics if m not in run_b.metrics},
            **{m: "only in B" for m in run_b.metrics if m not in run_a.metrics}}


def check_unique_ids(run: Run) -> None:
    """Rows are paired by id: a repeated one would pair with the wrong row, so name it."""
    first: dict[str, int] = {}
    for n, row_id in enumerate(run.ids, start=1):
        if row_id in first:
            raise DataError(f"row id '{plain(row_id)}' appears twice (rows {first[row_id]} and {n}): rows are "
                            "paired by id, so each must be unique", source=run.source)
        first[row_id] = n


#: what makes a test set: the question (or conversation) asked and the answer expected
TESTSET_FIELDS = ("user_input", "messages", "reference")


def testset_differs(run_a: Run, run_b: Run, shared: list[str]) -> list[str]:
    """Shared ids whose question or reference differ, each run read through its own columns
    (as text columns where the files allow, without parsing their rows)."""
    fields_a, fields_b = _testset_columns(run_a), _testset_columns(run_b)
    fast_a, fast_b = _text(run_a, fields_a), _text(run_b, fields_b)
    if fast_a is not None and fast_b is not None:
        at_a, at_b = {i: n for n, i in enumerate(run_a.ids)}, {i: n for n, i in enumerate(run_b.ids)}
        return [row_id for row_id in shared if fast_a[at_a[row_id]] != fast_b[at_b[row_id]]]
    return [row_id for row_id in shared
            if _asked(run_a.row(row_id), fields_a) != _asked(run_b.row(row_id), fields_b)]


def _text(run: Run, columns: list[str | None]) -> list[tuple[Any, ...]] | None:
    """Each row's question/conversation and reference as a tuple, from text columns; None when
    a column is absent or not text (a conversation): then rows are parsed."""
    question, conversation, reference = columns
    if conversation is not None:
        return None
    found = run.text_columns([c for c in (question, reference) if c])
    if found is None:
        return None
    empty = [None] * len(run.ids)
    return list(zip(found[question] if question else empty, found[reference] if reference else empty))


def _asked(row: dict[str, Any], columns: list[str | None]) -> list[Any]:
    return [row.get(c) if c else None for c in columns]


def _testset_columns(run: Run) -> list[str | None]:
    from ragmeter.errors import ConfigError
    from ragmeter.io.columns import resolve_columns

    try:
        found = resolve_columns(run.row(run.ids[0]), run.manifest.config.get("columns"))
    except ConfigError:
        found = {}
    return [found.get(f) for f in TESTSET_FIELDS]


def _metric_names(run_a: Run, run_b: Run, wanted: list[str] | None) -> list[str]:
    both = [m for m in run_a.metrics if m in run_b.metrics]
    if wanted is None:
        if not both:
            raise DataError(f"runs {run_a.source} and {run_b.source} share no metric "
                            f"(A: {', '.join(run_a.metrics)}; B: {', '.join(run_b.metrics)})")
        return both
    missing = [m for m in wanted if m not in both]
    if missing:
        raise DataError(f"metric(s) {', '.join(missing)} not in both runs (shared: {', '.join(both) or 'none'})")
    return wanted


def _compare_metric(run_a: Run, run_b: Run, shared: list[str], name: str, top: int) -> MetricComparison:
    from ragmeter.stats import paired_ci, sign_flip_p

    pairs = [(i, run_a.score(i, name), run_b.score(i, name)) for i in shared]
    scored = [(i, x, y) for i, x, y in pairs if x is not None and y is not None]
    result = MetricComparison(metric=name, higher_is_better=run_a.manifest.metrics[name].higher_is_better,
                              n=len(scored), excluded=len(pairs) - len(scored), mean_a=None, mean_b=None,
                              difference=None, ci95=None, p_value=None)
    if not scored:
        return result
    diffs = [y - x for _, x, y in scored]
    result.mean_a = sum(x for _, x, _ in scored) / len(scored)
    result.mean_b = sum(y for _, _, y in scored) / len(scored)
    result.difference = sum(diffs) / len(diffs)
    result.ci95, result.interval_method = paired_ci(diffs)
    result.p_value = sign_flip_p(diffs)
    result.changed = _most_changed(run_a, run_b, scored, name, top)
    return result


def _most_changed(run_a: Run, run_b: Run, scored: list[tuple[str, float, float]], name: str,
                  top: int) -> list[RowChange]:
    import heapq

    picked = heapq.nlargest(top, scored, key=lambda t: (abs(t[2] - t[1]), t[0]))
    changes = []
    for row_id, x, y in picked:
        if x == y:
            break
        ra, rb = run_a.row(row_id), run_b.row(row_id)
        question = rb.get("user_input", ra.get("user_input"))
        changes.append(RowChange(id=row_id, a=x, b=y, difference=y - x,
                                 question=question if isinstance(question, str) else None,
                                 reason_a=ra.get(f"{name}_reason"), reason_b=rb.get(f"{name}_reason"),
                                 evidence_a=ra.get(f"{name}_evidence"), evidence_b=rb.get(f"{name}_evidence")))
    return changes


def _holm(p_values: dict[str, float]) -> dict[str, float]:
    from ragmeter.stats import holm

    return holm(p_values) if p_values else {}


def verdict(difference: float | None, p_holm: float | None, higher_is_better: bool, alpha: float) -> Verdict:
    """A paired difference read in the metric's own direction, significant after Holm's
    adjustment at `alpha` (two runs here, many in results/matrix.py)."""
    if difference is None or p_holm is None:
        return "no paired rows"
    if p_holm >= alpha or difference == 0:
        return "no significant difference"
    improved = difference > 0 if higher_is_better else difference < 0
    return "better" if improved else "worse"


def _interval_note(c: MetricComparison, alpha: float, compared: int) -> str | None:
    """The interval is per metric and unadjusted; the verdict is the sign-flip test after
    Holm's adjustment. Where the two read differently, say why, so no table contradicts itself."""
    if c.ci95 is None or c.p_value is None:
        return None
    excludes_zero = c.ci95[0] > 0 or c.ci95[1] < 0
    significant = c.verdict in ("better", "worse")
    if excludes_zero and not significant:
        if c.p_value < alpha:
            return (f"the interval excludes 0, but after Holm's adjustment across {compared} metrics the "
                    "difference is not significant")
        return f"the interval excludes 0, but the sign-flip test finds no difference (p = {c.p_value:.3g})"
    if significant and not excludes_zero:
        return "significant by the sign-flip test though the interval touches 0: a borderline difference"
    return None


def write_comparison(comparison: Comparison, out_dir: str | Path) -> Path:
    from ragmeter.io.writers import make_folder, write_json

    folder = make_folder(Path(out_dir))
    path = folder / "compare.json"
    write_json(path, comparison.model_dump(mode="json"))
    return path


def print_comparison(comparison: Comparison, console: Any) -> None:
    """The rich table: one line per metric, then the rows that moved most."""
    from rich.table import Table

    table = Table("metric", "A", "B", "B - A", "95% CI", "p (Holm)", "n", "excl.", "verdict",
                  title=printable(f"{comparison.run_a} -> {comparison.run_b}"))
    for name, c in comparison.metrics.items():
        ci = interval_text(c.ci95, c.n, "{0:+.3f} {1:+.3f}")
        diff = "-" if c.difference is None else f"{c.difference:+.4f}"
        p = "-" if c.p_holm is None else f"{c.p_holm:.3g}"
        color = {"better": "green", "worse": "red"}.get(c.verdict, "white")
        table.add_row(printable(name), _number(c.mean_a), _number(c.mean_b), diff, ci, p, str(c.n), str(c.excluded),
                      f"[{color}]{c.verdict}[/{color}]")
    print_table(console, table)
    for name, c in comparison.metrics.items():
        if c.note:
            console.print(printable(f"{name}: {c.note}"), style="yellow")
        elif c.n and c.ci95 is None:
            console.print(printable(f"{name}: no interval with {c.n} paired rows (fewer than {MIN_ROWS_FOR_INTERVAL})"),
                          style="yellow")
    if comparison.not_compared:
        console.print(printable(not_compared_note(comparison.not_compared)), style="yellow")
    if not comparison.same_dataset:
        console.print(printable(testset_note(comparison)), style="yellow")
    for name, c in comparison.metrics.items():
        for change in c.changed[:3]:
            console.print(printable(f"{name} {change.id}: {change.a:.3f} -> {change.b:.3f}"
                                    + (f"  ({change.reason_b[:60]})" if change.reason_b else "")),
                          highlight=False)


def not_compared_note(unpaired: dict[str, str]) -> str:
    """The metrics left out because one run lacks them, in one line."""
    return "not compared (a metric of one run only): " + ", ".join(f"{m} ({w})" for m, w in unpaired.items())


def testset_note(c: Comparison | dict[str, Any]) -> str:
    """Why the runs are not over the same test set, in one sentence (terminal and report)."""
    c = c if isinstance(c, dict) else c.model_dump()
    asked = (f"{c['questions_differ']} shared ids ask another question or expect another reference (first: "
             f"{c['first_differing']}); " if c.get("questions_differ") else "")
    return (f"The test sets differ: {asked}compared the {c['shared_rows']} shared ids; {c['only_in_a']} only in A, "
            f"{c['only_in_b']} only in B")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"
