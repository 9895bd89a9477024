"""The self-contained report page: summary tables and pictures rendered here (escaped), rows
rendered by the page's script from embedded JSON, one page of rows at a time.

Nothing from the data can run: every data string is HTML-escaped here or set as text by the
script, the embedded JSON escapes `<`, `>`, `&` and the line separators, and the page's
Content-Security-Policy allows only its own script and style (by hash) and no network.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from importlib import resources
from typing import Any

from ragmeter.report.charts import differences_svg, histogram_svg, reliability_svg
from ragmeter.results.compare import not_compared_note, testset_note
from ragmeter.text import seconds


def render(data: dict[str, Any], rows: list[bytes], title: str) -> bytes:
    """The page as bytes; `rows`: each run's rows as a JSON array (data.rows_json)."""
    script, style = static_text("pager.js") + static_text("report.js"), static_text("report.css")
    csp = (f"default-src 'none'; script-src '{content_hash(script)}'; style-src '{content_hash(style)}'; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    head = "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{style}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>{_legend(data)}</header>",
        _summary(data), _differences(data), _calibrated(data), _agreement(data), _judge_check(data),
        _run_info(data), _rows_section(data.get("rows_shown"), tuple(r["source"] for r in data["runs"])),
        f'<script type="application/json" id="ragmeter-data">{embed_json(data)}</script>'])
    islands = [b'<script type="application/json" id="ragmeter-rows-%d">' % n + embed_bytes(blob) + b"</script>"
               for n, blob in enumerate(rows)]
    return b"".join([head.encode("utf-8"), *islands, f"<script>{script}</script></body></html>\n".encode()])


#: characters that could end a <script> element or a JavaScript string, as JSON escapes (valid
#: inside JSON strings, and never outside them in JSON)
_UNSAFE = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))
#: bidirectional overrides, isolates and marks, which reorder what a page shows around them (an
#: answer holding U+202E showed reversed): written as visible escapes, as the terminal shows
#: them (text.plain), by a JSON escape of the backslash itself
_BIDI = tuple((chr(c), f"\\\\u{c:04x}") for c in (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))


def embed_json(data: Any) -> str:
    """JSON safe inside a <script> element: no `</script>`, no `<!--`, no line separators."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, code in _UNSAFE + _BIDI:
        text = text.replace(char, code)
    return text


def embed_bytes(blob: bytes) -> bytes:
    """embed_json for JSON that is already text (UTF-8 bytes)."""
    for char, code in _UNSAFE + _BIDI:
        blob = blob.replace(char.encode("utf-8"), code.encode("ascii"))
    return blob


def static_text(name: str) -> str:
    return resources.files("ragmeter.report").joinpath("static", name).read_text(encoding="utf-8")


def content_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def _legend(data: dict[str, Any]) -> str:
    names = ("A", "B")
    items = [f'<li><span class="swatch s{i}"></span><b>{names[i]}</b> {escape(run["source"])} '
             f'({run["dataset"]["rows"]} rows, {escape(run["created_at"])})</li>' for i, run in enumerate(data["runs"])]
    return f'<ul class="legend">{"".join(items)}</ul>'


def _name(name: str) -> str:
    """A metric name that may wrap after an underscore, never inside a word ("exa ct_ mat ch")."""
    return escape(name).replace("_", "_<wbr>")


def _number(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(ci: Any, n: int = 0, signed: bool = False) -> str:
    from ragmeter.stats import interval_text

    return escape(interval_text(ci, n, "{0:+.3f} to {1:+.3f}" if signed else "{0:.3f}-{1:.3f}"))


def _summary(data: dict[str, Any]) -> str:
    runs, comparison = data["runs"], data["comparison"]
    two = len(runs) > 1
    head = ["metric", "mean A", "95% CI", "n", "unscored"]
    if two:
        head += ["mean B", "95% CI", "B - A (paired)", "95% CI", "p (Holm)", "verdict"]
    head.append("distribution")
    rows = []
    for name in data["metrics"]:
        a = runs[0]["metrics"][name]
        lower = ' <small class="nb">(lower is better)</small>'
        cells = [_name(name) + ("" if data["higher_is_better"][name] else lower),
                 _number(a["mean"]), _ci(a["ci95"], a["n"]), str(a["n"]), str(a["unscored"])]
        if two:
            b = runs[1]["metrics"][name]
            c = comparison["metrics"][name]
            cells += [_number(b["mean"]), _ci(b["ci95"], b["n"]),
                      "-" if c["difference"] is None else f"{c['difference']:+.4f} (n={c['n']})",
                      _ci(c["ci95"], c["n"], signed=True), "-" if c["p_holm"] is None else f"{c['p_holm']:.3g}",
                      f'<span class="verdict {c["verdict"].split()[0]}">{escape(c["verdict"])}</span>'
                      + (f'<br><small>{escape(c["note"])}</small>' if c.get("note") else "")]
        cells.append(histogram_svg([r["metrics"][name]["histogram"] for r in runs]))
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    index = "".join(_index(run, i) for i, run in enumerate(runs)) + _flags(data)
    return (f'<section id="summary"><h2>Summary</h2><div class="scroll"><table class="summary"><thead><tr>'
            f'{"".join(f"<th>{h}</th>" for h in head)}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f"{index}{_gates(runs)}</section>")


def _flags(data: dict[str, Any]) -> str:
    """Rows a metric flagged (faithfulness: the retrieved contexts disagree), per run."""
    lines = [f"{'AB'[i] + ': ' if len(data['runs']) > 1 else ''}{_name(name)}: {count} row(s) flagged "
             f"<b>{escape(flag)}</b>" for i, run in enumerate(data["runs"]) for name in data["metrics"]
             for flag, count in (run["metrics"][name].get("flags") or {}).items()]
    return f'<p class="flags">{"<br>".join(lines)} (the rows\' evidence shows the two spans)</p>' if lines else ""


def _index(run: dict[str, Any], position: int) -> str:
    index = run.get("rag_index")
    if not index or index.get("value") is None:
        return ""
    return (f'<p class="index">RAG Index ({"AB"[position]}) <b>{index["value"]:.4f}</b> (95% CI '
            f'{_ci(index["ci95"], index.get("rows", 0))}) over {escape(", ".join(index["components"]))}</p>')


def _gates(runs: list[dict[str, Any]]) -> str:
    gates = runs[-1].get("gates")
    if not gates:
        return ""
    items = "".join(f'<li class="{"pass" if g["passed"] else "fail"}">{"pass" if g["passed"] else "FAIL"}: '
                    f'{escape(g["message"])}</li>' for g in gates["results"])
    return f'<h3>Gates: {"passed" if gates["passed"] else "failed"}</h3><ul class="gates">{items}</ul>'


def _differences(data: dict[str, Any]) -> str:
    if not data["comparison"]:
        return ""
    c = data["comparison"]
    note = "" if c["same_dataset"] else f'<p class="warn">{escape(testset_note(c))}.</p>'
    if c.get("not_compared"):
        note += f'<p class="warn">{escape(not_compared_note(c["not_compared"]))}.</p>'
    return (f'<section id="differences"><h2>Paired differences (B - A, 95% intervals)</h2>{note}'
            f'{differences_svg(c["metrics"])}</section>')


def _calibrated(data: dict[str, Any]) -> str:
    """What people would say, per metric with human labels (`--labels`, labels/calibrate.py)."""
    rows = []
    for position, run in enumerate(data["runs"]):
        for name, m in run["metrics"].items():
            c = m.get("calibrated")
            if not c:
                continue
            ci = "-" if not c.get("ci95") else f'{_number(c["estimate"], 3)} ({_ci(c["ci95"])})'
            rows.append(f"<tr><td>{'AB'[position]}</td><td>{_name(name)}</td><td>{c['labels']}</td>"
                        f"<td>{_number(c['judge_mean'], 3)}</td><td>{ci}</td><td>{_ci(c.get('labels_ci95'))}</td>"
                        f"<td>{_number(c.get('ece'), 3)}</td><td>{_number(c.get('threshold'), 2)}</td>"
                        f"<td>{reliability_svg(c.get('reliability') or [])}"
                        + (f"<br><small>{escape(c['note'])}</small>" if c.get("note") else "") + "</td></tr>")
    if not rows:
        return ""
    head = "".join(f"<th>{h}</th>" for h in ("run", "metric", "labels", "judge's mean", "people would say (95% CI)",
                                              "labels alone", "ECE", "threshold", "reliability"))
    return ('<section id="calibrated"><h2>What people would say</h2><p>From the human labels given with the run: '
            "a prediction-powered estimate of the human mean whose interval holds whatever the judge's bias, "
            "beside the labels' own interval.</p>"
            f'<div class="scroll"><table class="summary"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></section>')


def _agreement(data: dict[str, Any]) -> str:
    """The judge's agreement with human labels, when the run came from `ragmeter meta-eval`."""
    blocks = []
    for run in data["runs"]:
        meta = run.get("meta_eval")
        if not meta:
            continue
        rows = []
        for agreement in (meta.get("metric_agreement"), meta.get("floor")):
            for name, m in ((agreement or {}).get("measures") or {}).items():
                rows.append(f"<tr><td>{escape(str(agreement['scorer']))}</td><td>{escape(name)}</td>"
                            f"<td>{m['value']:.3f}</td><td>{_ci(m.get('ci95'))}</td><td>{m['n']}</td></tr>")
        blocks.append(f"<p>{escape(str(meta['metric']))} on judge {escape(str(meta['judge']))} against "
                      f"{escape(str(meta['kind']))} human labels ({meta['scored']} of {meta['rows']} rows scored)</p>"
                      '<table class="summary"><thead><tr><th>scorer</th><th>measure</th><th>value</th>'
                      f'<th>95% CI</th><th>n</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    return f'<section id="agreement"><h2>Agreement with human labels</h2>{"".join(blocks)}</section>' if blocks else ""


def _judge_check(data: dict[str, Any]) -> str:
    """`ragmeter judge-check`: per metric and check the pass rate, and the failing cases."""
    check = data.get("judge_check")
    if not check:
        return ""
    blocks = [f"<p>judge {escape(str(check.get('judge')))} on {escape(str(check.get('data')))}: cases whose right "
              "score is known (copied answers should score &ge; 0.5, unrelated, negated and fact-swapped ones "
              "&lt; 0.5), each at prompt sizes k = "
              + escape(", ".join(map(str, check.get("sizes_run") or check.get("sizes", [])))) + "</p>"
              + (f'<p class="warn">{escape(check["sizes_note"])}.</p>' if check.get("sizes_note") else "")]
    for metric in (check.get("metrics") or {}).values():
        auc = metric.get("roc_auc")
        head = (f"<h3>{escape(str(metric['metric']))}: {metric['cases']} cases, ROC-AUC high vs low "
                f"{_number(auc, 3)} ({_ci(metric.get('roc_auc_ci95'))})</h3>")
        if not metric.get("checks"):
            blocks.append(head + f"<p>{escape(str(metric.get('note', '')))}</p>")
            continue
        rows = "".join(
            f"<tr><td>{escape(str(c['check']))}</td><td>{escape(str(c['expect']))}</td>"
            f"<td>{_number(c['pass_rate'], 3)}</td><td>{_ci(c['ci95'])}</td><td>{_number(c['median'], 3)}</td>"
            f"<td>{c['n']}</td><td>{escape(' · '.join(f'k={k}: {v:.2f}' for k, v in c['by_k'].items()))}</td>"
            f"<td>{escape(str(c['description']))}</td></tr>" for c in metric["checks"])
        failures = "".join(_failure_item(f) for f in metric.get("failures", []))
        blocks.append(head + '<table class="summary check"><thead><tr><th>check</th><th>should be</th>'
                      "<th>pass rate</th><th>95% CI</th><th>median</th><th>n</th><th>pass rate by prompt size</th>"
                      "<th>case</th></tr>"
                      f"</thead><tbody>{rows}</tbody></table>"
                      + (f"<p>Failing cases (the worst first)</p><ul>{failures}</ul>" if failures else ""))
    return f'<section id="judge-check"><h2>Judge check</h2>{"".join(blocks)}</section>'


def _failure_item(failure: dict[str, Any]) -> str:
    edit = failure.get("edit")
    return (f"<li><b>{escape(str(failure['check']))}</b> k={failure['k']} score {_number(failure['score'], 3)} "
            f"(should be {escape(str(failure['expect']))}): <q>{escape(str(failure['answer'])[:300])}</q>"
            + (f" <i>{escape(str(edit))}</i>" if edit else "") + f" — {escape(str(failure['reason']))}</li>")


def _run_info(data: dict[str, Any]) -> str:
    blocks = []
    for position, run in enumerate(data["runs"]):
        judge = run["judge"] or {}
        cost = run["cost"]
        prompts = "".join(f"<tr><td>{_name(metric)}</td><td>{escape(name)}</td><td><code>"
                          f"{escape(str(p.get('version')))}</code></td><td>{escape(str(p.get('language')))}</td>"
                          f"<td>{escape(str(p.get('source')))}</td><td>{escape(str(p.get('note') or ''))}</td></tr>"
                          for metric, named in run["prompts"].items() for name, p in named.items())
        notes = "".join(f"<li>{escape(n)}</li>" for n in run["prompt_notes"])
        blocks.append(
            f'<div class="run"><h3><span class="swatch s{position}"></span>Run {"AB"[position]}</h3><dl>'
            f"<dt>judge</dt><dd>{escape(str(judge.get('name', '-')))}</dd>"
            f"<dt>embeddings</dt><dd>{escape(str((run['embeddings'] or {}).get('name', '-')))}</dd>"
            f"<dt>dataset</dt><dd>{escape(run['dataset']['source'])} · sha256 <code>"
            f"{escape(str(run['dataset']['sha256']))}</code></dd>"
            f"<dt>cost</dt><dd>{cost['judge_calls']} judge calls · {cost['prompt_tokens']} prompt tokens · "
            f"{cost['completion_tokens']} completion tokens · {cost['cache_hits']} cache hits · judge "
            f"{seconds(cost['judge_seconds'])} · wall {seconds(cost['wall_seconds'])}</dd>"
            f"<dt>ragmeter</dt><dd>{escape(run['ragmeter_version'])} · language {escape(run['language'])}</dd>"
            f"</dl><table class=\"prompts\"><thead><tr><th>metric</th><th>prompt</th><th>version</th>"
            f"<th>language</th><th>source</th><th>note</th></tr></thead><tbody>{prompts}</tbody></table>"
            f'{f"<ul>{notes}</ul>" if notes else ""}</div>')
    return f'<section id="run-info"><h2>Runs</h2>{"".join(blocks)}</section>'


def _rows_note(note: dict[str, Any] | None, sources: list[str]) -> str:
    """What a sampled page holds and where the rest is (report/sample.py)."""
    if not note:
        return ""
    why = note["why"]
    parts = [f"the {note['worst']} worst and {note['best']} best rows of each metric"]
    if note["changed"]:
        parts.append(f"the {note['changed']} rows per metric whose score changed most")
    if note["below_gates"]:
        parts.append(f"{why.get('below a gate', 0):,} of the {note['below_gates']:,} rows below a gate")
    parts.append(f"a random {why.get('random', 0):,} (seed {note['seed']})")
    run = escape(sources[0])
    return (f'<p class="note" id="rows-shown">This page holds {note["shown"]:,} of {note["rows"]:,} rows: '
            f'{escape("; ".join(parts))}. Every figure above is computed from all {note["rows"]:,} rows. '
            f"All rows with their evidence are in the run folder ({run}); to have them as Parquet, run the "
            "same command again with <code>--format parquet</code> and another <code>--out</code> "
            "(every judge reply comes from the cache).</p>")


def _rows_section(note: dict[str, Any] | None = None, sources: tuple[str, ...] = ()) -> str:
    return ('<section id="rows"><h2>Rows</h2>' + _rows_note(note, list(sources)) + '<div class="controls">'
            '<input id="search" type="search" placeholder="search id, question, answer" aria-label="search">'
            '<input id="filter" type="text" placeholder="filter, e.g. faithfulness &lt; 0.5 and context_recall '
            '&gt;= 0.8" aria-label="filter"><span id="count"></span><span id="filter-error"></span></div>'
            '<div class="scroll"><table id="row-table"><thead></thead><tbody></tbody></table></div>'
            '<div id="pager"></div>'
            '<div id="detail" hidden></div></section>'
            '<noscript><p>Rows need JavaScript; the summary above does not.</p></noscript>')
