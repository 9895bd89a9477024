"""Write the report page for one run, or two compared row by row, atomically."""

from __future__ import annotations

from pathlib import Path

from ragmeter.errors import DataError
from ragmeter.results.runs import Run, load_run


def write_report(run: str | Path | Run, run_b: str | Path | Run | None = None,
                 out: str | Path = "report.html", title: str | None = None,
                 judge_check: str | Path | None = None) -> Path:
    """Write the report for one run, or for two runs compared row by row (B against A);
    `judge_check`: a judge_check.json to show (by default the one beside the run, if any)."""
    from ragmeter.io.writers import write_redacted
    from ragmeter.report.data import rows_json, summary
    from ragmeter.report.page import render

    runs = [r if isinstance(r, Run) else load_run(r) for r in (run, run_b) if r is not None]
    for one in runs:
        if not one.ids:
            raise DataError("the run has no rows to report", source=one.source)
    comparison = None
    if len(runs) == 2:
        from ragmeter.results.compare import compare

        comparison = compare(runs[0], runs[1])
    target = Path(out)
    checked = None
    if judge_check is not None:
        import json

        try:
            checked = json.loads(Path(judge_check).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(f"cannot read the judge check: {exc}", source=str(judge_check)) from None
        if not isinstance(checked, dict) or "metrics" not in checked:
            raise DataError("not a judge_check.json (written by `ragmeter judge-check`)", source=str(judge_check))
    from ragmeter.report.sample import shown_ids

    shown = shown_ids(runs)
    page = render(summary(runs, comparison, checked, shown), [rows_json(r, shown[0]) for r in runs],
                  title or ("ragmeter report" if len(runs) == 1 else "ragmeter comparison"))
    write_redacted(target, page)
    return target
