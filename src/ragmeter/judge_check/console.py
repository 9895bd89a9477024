"""The judge check in the terminal: one table per metric that fits 80 columns."""

from __future__ import annotations

from typing import Any

from ragmeter.judge_check.results import CheckResult, JudgeCheckResult, MetricCheck

#: failing cases shown per metric in the terminal (judge_check.json keeps more)
SHOWN = 3


def print_judge_check(result: JudgeCheckResult, console: Any) -> None:
    from ragmeter.text import print_table, printable

    console.print(printable(f"judge check · judge {result.judge} · {result.data} · {result.sources} source rows · "
                            f"seed {result.seed}"), highlight=False)
    if result.sizes_note:
        console.print(printable(result.sizes_note), style="yellow", highlight=False)
    for check in result.metrics.values():
        if not check.checks:
            console.print(printable(f"{check.metric}: {check.note}"), highlight=False)
            continue
        console.print(printable(_heading(check)), highlight=False)
        print_table(console, _table([c for c in check.checks if not c.reader], result.sizes))
        if read := [c for c in check.checks if c.reader]:
            console.print(f"  checks of ragmeter's own readers (reading/, no judge; outside the ROC-AUC): "
                          f"{check.reader_cases} cases", highlight=False)
            print_table(console, _table(read, result.sizes, reader=True))
        for failure in check.failures[:SHOWN]:
            score = "-" if failure.score is None else f"{failure.score:.2f}"
            # where the case is an edit, what changed is what matters (a negation late in a sentence)
            shown = failure.edit if " -> " in failure.edit else failure.answer
            console.print(printable(f"  fail {failure.check} k={failure.k} score {score}: "
                                    f"{_short(shown, 60)} | {_short(failure.reason, 60)}"),
                          highlight=False, overflow="fold")
        if check.assumed_relevant:
            console.print(f"  {check.assumed_relevant} high cases assume the row's own contexts are relevant "
                          "(the rows name no reference_contexts)", highlight=False)


def _heading(check: MetricCheck) -> str:
    auc = "-" if check.roc_auc is None else f"{check.roc_auc:.3f}"
    ci = "" if check.roc_auc_ci95 is None else f" [{check.roc_auc_ci95[0]:.2f}, {check.roc_auc_ci95[1]:.2f}]"
    judged = check.cases - check.reader_cases
    return f"{check.metric}: {judged} cases the judge decides, ROC-AUC high vs low {auc}{ci}"


def _table(checks: list[CheckResult], sizes: list[int], reader: bool = False) -> Any:
    """One row per check; a reader's checks name the reader that decides them."""
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("check", no_wrap=True, min_width=18)
    if reader:
        table.add_column("reader", no_wrap=True)
    for name in ("want", "pass", "95% CI", "median", "n"):
        table.add_column(name, justify="left" if name == "want" else "right", no_wrap=True)
    shown_k = [str(k) for k in sizes if any(str(k) in c.by_k for c in checks)]
    for k in shown_k:
        table.add_column(f"k{k}", justify="right", no_wrap=True)
    for c in weakest_first(checks):
        rate = "-" if c.pass_rate is None else f"{c.pass_rate:.2f}"
        interval = "-" if c.ci95 is None else f"{c.ci95[0]:.2f}-{c.ci95[1]:.2f}"
        median = "-" if c.median is None else f"{c.median:.2f}"
        by_k = [f"{c.by_k[k]:.2f}" if k in c.by_k else "" for k in shown_k]
        table.add_row(c.check, *([c.reader or ""] if reader else []), c.expect, rate, interval, median, str(c.n),
                      *by_k)
    return table


def weakest_first(checks: list[CheckResult]) -> list[CheckResult]:
    """The checks by pass rate, lowest first (a check with no cases last): the family the judge
    gets wrong most is the one to read first (issue 61)."""
    return sorted(checks, key=lambda c: (c.pass_rate is None, c.pass_rate or 0.0))


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
