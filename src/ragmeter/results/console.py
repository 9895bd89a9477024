"""Terminal summary of a run, read from the manifest (one source of truth).

The table fits 80 columns (metric, mean, 95% CI, n, unscored); judge calls, tokens, cache
hits and seconds come with `verbose` and are always in the manifest. Everything printed
that came from data or config passes through `printable` (no rich markup, no control
characters: a label such as `[bold red]X[/]` or an id holding an escape sequence is shown
as text, never obeyed by the terminal).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragmeter.stats import MIN_ROWS_FOR_INTERVAL, interval_text
from ragmeter.text import duration, plain, print_table, printable, seconds

if TYPE_CHECKING:  # for the annotation only: report is imported by the CLI before any run
    from ragmeter.results.manifest import Manifest

__all__ = ["plain", "print_estimate", "print_many", "print_summary", "printable"]

#: a significant difference from the baseline, as the tables of many runs mark it
_MARKS = {"better": " ▲", "worse": " ▼"}
#: metrics per table when many runs are compared: 4 cells of 13 characters and a run name fit 80 columns
PAGE = 4


def print_summary(run: Manifest, console: Any, verbose: bool = False) -> None:
    from rich.table import Column, Table

    judge = run.judge["name"] if run.judge else "-"
    columns = [Column("metric", no_wrap=True, overflow="fold"), Column("mean", no_wrap=True),
               Column("95% CI", no_wrap=True), Column("n", no_wrap=True), Column("unscored", no_wrap=True)]
    if verbose:
        columns += [Column(c, no_wrap=True) for c in ("judge calls", "prompt tok", "compl. tok", "cache hits",
                                                       "seconds")]
    table = Table(*columns, title=printable(f"ragmeter {run.ragmeter_version} · {run.dataset.rows} rows · "
                                            f"judge {judge}"))
    for name, m in run.metrics.items():
        mean = "-" if m.mean is None else f"{m.mean:.4f}"
        ci = interval_text(m.ci95, m.n)
        cells = [printable(name), mean, ci, str(m.n), str(m.unscored)]
        if verbose:
            cells += [str(m.judge_calls), str(m.prompt_tokens), str(m.completion_tokens), str(m.cache_hits),
                      f"{m.seconds:.1f}"]
        table.add_row(*cells)
    print_table(console, table)
    _print_index(run.rag_index, console)
    for name, m in run.metrics.items():
        if m.calibrated:
            console.print(printable(calibrated_line(name, m.calibrated)), highlight=False)
    _print_timing(run, console)
    for name, m in run.metrics.items():
        for flag, count in (m.flags or {}).items():
            console.print(printable(f"{name}: {count} row(s) flagged {flag} (their evidence shows the spans)"),
                          highlight=False)
        for reason, count in m.unscored_reasons.items():
            console.print(f"[yellow]{printable(name)}: {count} unscored: {printable(reason)}[/yellow]")
    _print_reasons(run, console)


#: what a judge with each `reasons` setting wrote, for the summary
REASONS_WRITTEN = {"failing": "reasons written for failing verdicts and passes near the bar (P < 0.65)",
                   "none": "no reasons written (reasons: none)"}


def _print_reasons(run: Manifest, console: Any) -> None:
    """Which reasons the judge wrote and how to get the rest: a row that passed reads "no reason
    written" otherwise, with nothing to say how to get one."""
    written = REASONS_WRITTEN.get(str((run.judge or {}).get("reasons")))
    if written is not None:
        console.print(printable(f"{written}; any row's reason: ragmeter explain RUN_FOLDER --ids ID "
                                "(or --where 'faithfulness >= 0.5')"), highlight=False)


def calibrated_line(name: str, c: dict[str, Any]) -> str:
    """One metric's human-mean estimate (labels/calibrate.py Calibrated) in a sentence, with
    the labels left out because their ids are not in the run."""
    unknown = c.get("unknown_ids") or []
    left_out = f"; labels for ids not in the run left out: {', '.join(unknown)}" if unknown else ""
    if c.get("ci95") is None:
        return f"{name}: people's view: none ({c.get('note') or 'no labels'}){left_out}"
    low, high = c["ci95"]
    alone = c["labels_ci95"]
    return (f"{name}: people would say {c['estimate']:.3f} (95% CI {low:.3f}-{high:.3f}; from {c['labels']} labelled "
            f"rows and {c['judged']} unlabelled rows the judge scored; the judge's mean {c['judge_mean']:.3f}, "
            f"labels alone {alone[0]:.3f}-{alone[1]:.3f}; ECE {c['ece']:.3f}"
            + (f"; best threshold {c['threshold']:.2f}" if c.get("threshold") is not None else "")
            + (f"; {c['note']}" if c.get("note") else "") + ")" + left_out)


def _print_index(index: dict[str, Any] | None, console: Any) -> None:
    if not index or index["value"] is None:
        return
    ci = interval_text(index["ci95"], index.get("rows", 0))
    console.print(printable(f"RAG Index {index['value']:.4f} (95% CI {ci}) "
                            f"over {len(index['components'])} metric(s): {', '.join(index['components'])}"
                            + (f"; no scores for {', '.join(index['missing'])}" if index["missing"] else "")),
                  highlight=False)


def _print_timing(run: Manifest, console: Any) -> None:
    if run.model_busy_seconds == 0:
        console.print(f"wall {seconds(run.wall_seconds)} · no judge or embedder calls: all of it was "
                      "ragmeter (reading data, computing metrics, loading their libraries)", highlight=False)
        return
    console.print(f"wall {seconds(run.wall_seconds)} · in judge {seconds(run.judge_seconds)} · "
                  f"embeddings {seconds(run.embed_seconds)} · model load {seconds(run.judge_load_seconds)} · "
                  f"ragmeter overhead {seconds(run.overhead_seconds)} "
                  f"({100 * run.overhead_seconds / max(run.wall_seconds, 1e-9):.1f}% of wall) · "
                  f"process CPU {seconds(run.cpu_seconds)}", highlight=False)


def print_estimate(estimate: Any, console: Any) -> None:
    """A dry run's table (dry_run.Estimate): per metric the calls, tokens, seconds and price."""
    from rich.table import Column, Table

    priced = estimate.total.price is not None
    timed = estimate.total.seconds is not None
    columns = [Column("metric", no_wrap=True, overflow="fold")] + [
        Column(c, no_wrap=c != "price", justify="right") for c in
        ("calls", "cached", "prompt tok", "max compl.", *(["exp. compl.", "seconds"] if timed else []),
         *(["price"] if priced else []))]
    table = Table(*columns, title=printable(f"dry run · {estimate.rows} rows · judge {estimate.judge or '-'}"))
    for name, m in [*estimate.metrics.items(), ("total", estimate.total)]:
        cells = [printable(name), f"{m.calls:,}", f"{m.cache_hits:,}", f"{m.prompt_tokens:,}",
                 f"{m.max_completion_tokens:,}"]
        if timed:
            cells += [f"{m.expected_completion_tokens or 0:,}", duration(m.seconds or 0.0)]
        if priced:
            cells.append(f"{m.price:.4f} (max {m.max_price:.4f})")
        table.add_row(*cells, end_section=name == list(estimate.metrics)[-1])
    print_table(console, table)
    share = estimate.total.estimated_prompt_tokens / max(1, estimate.total.prompt_tokens)
    console.print(printable(f"prompt tokens: {estimate.tokenizer}; {share:.0%} of them are in prompts that hold an "
                            "earlier reply, stood in by the prompt's own example (an estimate)"), highlight=False)
    console.print(printable(f"seconds: {estimate.speed}" + (
        f"; at {estimate.concurrency} requests in flight" if estimate.concurrency > 1 else "")), highlight=False)
    if getattr(estimate, "language", None):
        console.print(printable(estimate.language), highlight=False)
    console.print("nothing was sent to the judge; the estimate is kept in the cache and the run's manifest "
                  "will show it beside the actuals", highlight=False)


def print_many(result: Any, console: Any) -> None:
    """A ManyComparison (results/matrix.py): runs x metrics with intervals (best marked *),
    then each run against the baseline (significant differences marked), then by slice,
    the slices where a run is worse first. Metrics are paged so every table fits 80 columns."""
    base = result.baseline
    console.print(printable(f"{len(result.runs)} runs over the {result.shared_rows:,} rows all have "
                            f"(rows per run: {', '.join(f'{k} {v:,}' for k, v in result.rows.items())})"),
                  highlight=False)
    _grid(console, "mean [95% CI]  (* best)", result.runs, result.metrics,
          lambda label, m, c: _mean_text(c, result.best.get(m) == label), base)
    _grid(console, f"difference from {base}  (▲ better, ▼ worse: sign-flip test, Holm over {result.tests} pairs)",
          [r for r in result.runs if r.label != base], result.metrics, lambda label, m, c: _difference_text(c))
    if result.not_compared:
        console.print(printable("not compared: " + "; ".join(f"{m} ({w})" for m, w in result.not_compared.items())),
                      style="yellow", highlight=False)
    for label, why in result.testset_differs.items():
        console.print(printable(f"The test sets differ: {label}: {why}"), style="yellow", highlight=False)
    if result.by is None:
        return
    worse = [f"{s.value}: {w}" for s in result.slices for w in s.worse]
    left = result.slices_total - len(result.slices)
    shown = f"{len(result.slices)} slices" if left <= 0 else (
        f"the {len(result.slices)} largest of {result.slices_total:,} slices ({left:,} more: --all-slices compares "
        "every one)")
    console.print(printable(f"by {result.by}: {shown}; worse than {base}: "
                            + ("; ".join(worse) if worse else "none (Holm over every slice's tests)")),
                  style="red" if worse else None, highlight=False)
    for s in result.slices:
        _grid(console, f"{result.by} = {s.value} ({s.rows:,} rows)", s.runs, result.metrics,
              lambda label, m, c: _mean_text(c) + ("" if label == base else _MARKS.get(c.verdict or "", "")))


def _grid(console: Any, title: str, rows: list[Any], metrics: list[str], text: Any, base: str = "") -> None:
    from rich.table import Column, Table

    for start in range(0, len(metrics), PAGE):
        page = metrics[start:start + PAGE]
        table = Table(Column("run", overflow="fold"), *(Column(printable(m), overflow="fold") for m in page),
                      title=printable(title) if start == 0 else None)
        for row in rows:
            name = row.label + (" (baseline)" if row.label == base else "")
            table.add_row(printable(name), *(text(row.label, m, row.cells[m]) for m in page))
        print_table(console, table)


def _mean_text(cell: Any, best: bool = False) -> str:
    """The mean (`*` right after it for the best run: a cell wraps between words, never there)."""
    if cell.mean is None:
        return "-"
    mean = f"{cell.mean:.3f}{'*' if best else ''}"
    if cell.ci95 is None:
        return f"{mean} (n={cell.n})"
    return f"{mean} {cell.ci95[0]:.2f}-{cell.ci95[1]:.2f}"


def _difference_text(cell: Any) -> str:
    if cell.difference is None:
        return "-"
    mark = _MARKS.get(cell.verdict or "", "")
    if cell.difference_ci95 is None:
        return f"{cell.difference:+.3f} (n<{MIN_ROWS_FOR_INTERVAL}){mark}"
    return f"{cell.difference:+.3f} {cell.difference_ci95[0]:+.2f}..{cell.difference_ci95[1]:+.2f}{mark}"
