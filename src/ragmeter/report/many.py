"""The report for three runs or more (or two broken down by slice): the matrix of runs x
metrics with intervals and the best marked, each run against the baseline, the slices with
`--by`, and the rows with a "rows where the runs disagree" filter; a row opens to the runs'
answers and reasons side by side. One offline file, as the one-run report (page.py): every
data string escaped or set as text, the data embedded as escaped JSON, a Content-Security-
Policy that allows only the page's own script and style.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from ragmeter.report.page import content_hash, embed_json, static_text
from ragmeter.results.matrix import Cell, ManyComparison, RunRow, compare_many, with_baseline
from ragmeter.results.runs import Run

#: a row disagrees on a metric when its runs' scores straddle THRESHOLD or span more than SPREAD
THRESHOLD = 0.5
SPREAD = 0.3
#: characters of an answer and of a reason kept per run in the page
TEXT_MAX = 2000


def write_many_report(runs: list[str | Path | Run], out: str | Path = "report.html",
                      baseline: str | Path | Run | None = None, by: str | None = None,
                      title: str | None = None) -> Path:
    from ragmeter.io.writers import write_redacted

    loaded, base = with_baseline(runs, baseline)
    result = compare_many(list(loaded), base, by=by)  # its tables follow `loaded`'s order
    page = render_many(result, rows_data(loaded, result), title or f"ragmeter: {len(loaded)} runs compared")
    target = Path(out)
    write_redacted(target, page)
    return target


def rows_data(runs: list[Run], result: ManyComparison) -> list[dict[str, Any]]:
    """Per shared row: its id, question, and each run's answer, scores and reasons."""
    base = runs[0]
    shared = [i for i in base.ids if all(r.position(i) is not None for r in runs)]
    out = []
    for row_id in shared:
        read = [r.row(row_id) for r in runs]
        out.append({"id": row_id, "q": _text(read[0].get("user_input")),
                    "runs": [{"a": _text(row.get("response")),
                              "s": [row.get(m) if isinstance(row.get(m), (int, float)) else None
                                    for m in result.metrics],
                              "r": [_text(row.get(f"{m}_reason")) for m in result.metrics]} for row in read]})
    return out


def disagreeing(rows: list[dict[str, Any]], metric: int | None = None, spread: float = SPREAD) -> list[str]:
    """The ids of rows whose runs disagree (on `metric`, an index, or any): scores on both sides
    of THRESHOLD, or further apart than `spread` (the page's filter computes the same)."""
    found = []
    for row in rows:
        columns = range(len(row["runs"][0]["s"])) if metric is None else [metric]
        for k in columns:
            scores = [run["s"][k] for run in row["runs"] if run["s"][k] is not None]
            if len(scores) > 1 and ((min(scores) < THRESHOLD <= max(scores)) or max(scores) - min(scores) > spread):
                found.append(row["id"])
                break
    return found


def render_many(result: ManyComparison, rows: list[dict[str, Any]], title: str) -> bytes:
    script, style = static_text("pager.js") + static_text("many.js"), static_text("report.css")
    csp = (f"default-src 'none'; script-src '{content_hash(script)}'; style-src '{content_hash(style)}'; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    data = {"metrics": result.metrics, "runs": [r.label for r in result.runs], "baseline": result.baseline,
            "threshold": THRESHOLD, "spread": SPREAD, "rows": rows}
    body = "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{style}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>{_legend(result)}</header>",
        _matrix(result), _slices(result), _rows_section(result),
        f'<script type="application/json" id="ragmeter-many">{embed_json(data)}</script>',
        f"<script>{script}</script></body></html>\n"])
    return body.encode("utf-8")


def _legend(result: ManyComparison) -> str:
    items = "".join(f"<li><b>{escape(r.label)}</b> {escape(r.run)} ({result.rows[r.label]:,} rows)"
                    + (" <small>baseline</small>" if r.label == result.baseline else "") + "</li>"
                    for r in result.runs)
    return (f'<ul class="legend">{items}</ul><p>Compared on the {result.shared_rows:,} rows every run has; '
            f"differences are paired, with a sign-flip test Holm-adjusted over {result.tests} (run, metric) "
            "pairs.</p>" + "".join(f'<p class="warn">The test sets differ: {escape(label)}: {escape(why)}</p>'
                                   for label, why in result.testset_differs.items()))


def _matrix(result: ManyComparison) -> str:
    return ('<section id="matrix"><h2>Runs x metrics</h2>'
            + _grid(result, result.runs, "mean [95% CI], best marked", _mean, best=True)
            + _grid(result, [r for r in result.runs if r.label != result.baseline],
                    f"difference from {result.baseline} [95% CI] (better / worse: significant after Holm)",
                    _difference) + "</section>")


def _slices(result: ManyComparison) -> str:
    if result.by is None:
        return ""
    parts = [f'<section id="slices"><h2>By {escape(result.by)}</h2>']
    if result.slices_total > len(result.slices):
        parts.append(f"<p>The {len(result.slices)} largest of {result.slices_total:,} slices "
                     "(`ragmeter compare --by ... --all-slices` compares every one).</p>")
    for s in result.slices:
        worse = f' <span class="verdict worse">worse: {escape(", ".join(s.worse))}</span>' if s.worse else ""
        parts.append(_grid(result, s.runs, f"{result.by} = {s.value} ({s.rows:,} rows)", _mean_marked, best=False,
                           extra=worse, slice_value=s.value))
    return "".join(parts) + "</section>"


def _grid(result: ManyComparison, rows: list[RunRow], caption: str, text: Any, best: bool = False,
          extra: str = "", slice_value: str | None = None) -> str:
    head = "".join(f"<th>{escape(m).replace('_', '_<wbr>')}</th>" for m in result.metrics)
    body = []
    for row in rows:
        cells = []
        for m in result.metrics:
            mark = best and result.best.get(m) == row.label
            cells.append(f'<td class="nb{" best" if mark else ""}">{text(row.cells[m])}{" ★" if mark else ""}</td>')
        body.append(f"<tr><td>{escape(row.label)}</td>{''.join(cells)}</tr>")
    attr = f' data-slice="{escape(slice_value)}"' if slice_value is not None else ""
    return (f'<div class="scroll"><table class="matrix"{attr}><caption>{escape(caption)}{extra}</caption>'
            f"<thead><tr><th>run</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _mean(cell: Cell) -> str:
    if cell.mean is None:
        return "-"
    ci = f" [{cell.ci95[0]:.3f}, {cell.ci95[1]:.3f}]" if cell.ci95 else f" (n={cell.n}, no interval)"
    return f"{cell.mean:.3f}{ci}"


def _mean_marked(cell: Cell) -> str:
    verdict = cell.verdict if cell.verdict in ("better", "worse") else None
    return _mean(cell) + (f' <span class="verdict {verdict}">{verdict}</span>' if verdict else "")


def _difference(cell: Cell) -> str:
    if cell.difference is None:
        return "-"
    ci = f" [{cell.difference_ci95[0]:+.3f}, {cell.difference_ci95[1]:+.3f}]" if cell.difference_ci95 else ""
    verdict = cell.verdict if cell.verdict in ("better", "worse") else None
    return (f"{cell.difference:+.3f}{ci}"
            + (f' <span class="verdict {verdict}">{verdict}</span>' if verdict else ""))


def _rows_section(result: ManyComparison) -> str:
    options = "".join(f'<option value="{k}">{escape(m)}</option>' for k, m in enumerate(result.metrics))
    return ('<section id="rows"><h2>Rows</h2><div class="controls">'
            '<label><input type="checkbox" id="disagree"> only rows where the runs disagree</label>'
            f'<label>on <select id="metric"><option value="">any metric</option>{options}</select></label>'
            f'<label>(scores on both sides of {THRESHOLD}, or more than '
            f'<input type="number" id="spread" min="0" max="1" step="0.05" value="{SPREAD}"> apart)</label>'
            '<span id="count"></span></div><div class="scroll"><table id="row-table"><thead></thead><tbody></tbody>'
            '</table></div><div id="pager"></div><div id="detail" hidden></div></section>')


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return (value if isinstance(value, str) else str(value))[:TEXT_MAX]
