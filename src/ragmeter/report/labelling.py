"""The labelling page: a seeded sample of a run's rows, one at a time, for a person to label
(keyboard or buttons), saved as labels.jsonl by the page itself (a download: it works from
disk, offline, with no server). Labels given earlier are embedded, so labelling resumes; labels
given on the page are also kept in the browser's storage for that data and metrics, so a
closed tab loses nothing (the page says so, and can forget them).

The judge's score and reason are hidden until asked for: seen first, they anchor the label.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, DataError
from ragmeter.report.data import FIELDS
from ragmeter.report.page import content_hash, embed_json, static_text
from ragmeter.results.runs import Run, load_run

#: the two answers of a 0/1 label, per metric (others: yes / no)
QUESTIONS = {
    "faithfulness": ("Is every claim of the answer supported by the contexts?", "supported", "not supported"),
    "llamaindex_faithfulness": ("Is the answer supported by the contexts?", "supported", "not supported"),
    "context_relevance": ("Do the contexts help answer the question?", "relevant", "not relevant"),
    "context_recall": ("Do the contexts hold everything the reference says?", "all there", "something missing"),
    "response_relevancy": ("Does the answer address the question?", "relevant", "not relevant"),
    "answer_correctness": ("Is the answer correct against the reference?", "correct", "not correct"),
}


def write_labelling_page(run: str | Path | Run, metrics: list[str], out: str | Path = "label.html", *,
                         sample: int = 100, seed: int = 0, strategy: str = "random",
                         labels: str | Path | None = None, scale: tuple[int, int] | None = None) -> Path:
    """Write the page for labelling `metrics` on a sample of `run`'s rows; `labels`: a
    labels.jsonl given earlier (its labels are shown, and saved again with the new ones);
    `scale`: (1, 5) for ratings instead of 0/1."""
    from ragmeter.io.writers import write_redacted
    from ragmeter.labels.sample import sample_ids

    loaded = run if isinstance(run, Run) else load_run(run)
    if not metrics:
        raise ConfigError(f"--label names no metric: give one or more of {', '.join(loaded.metrics)}")
    missing = [m for m in metrics if m not in loaded.metrics]
    if missing:
        raise ConfigError(f"metric(s) {', '.join(missing)} not in the run ({', '.join(loaded.metrics)})")
    if strategy not in ("random", "stratified"):
        raise ConfigError(f"--strategy {strategy}: expected random or stratified")
    if sample < 1:
        raise ConfigError(f"--sample must be at least 1, got {sample}")
    ids = sample_ids(loaded, metrics[0], sample, seed, strategy)  # type: ignore[arg-type]
    if not ids:
        raise DataError(f"no row scored by {metrics[0]} to label", source=loaded.source)
    data = {"run": loaded.source, "dataset_sha256": loaded.manifest.dataset.sha256,
            "metrics": [_metric(m, scale) for m in metrics], "rows": [_row(loaded, i, metrics) for i in ids],
            "given": _given(labels, loaded, metrics, scale) if labels else {}}
    target = Path(out)
    write_redacted(target, _page(data, f"label {', '.join(metrics)} · {len(ids)} rows"))
    return target


def _metric(name: str, scale: tuple[int, int] | None) -> dict[str, Any]:
    question, yes, no = QUESTIONS.get(name, (f"{name}: yes or no?", "yes", "no"))
    if scale is not None:
        return {"name": name, "question": question, "scale": list(scale),
                "choices": [{"value": v, "text": str(v), "key": str(v)} for v in range(scale[0], scale[1] + 1)]}
    return {"name": name, "question": question, "scale": None,
            "choices": [{"value": 1, "text": yes, "key": "1"}, {"value": 0, "text": no, "key": "0"}]}


def _row(run: Run, row_id: str, metrics: list[str]) -> dict[str, Any]:
    row = run.row(row_id)
    mapped = run.manifest.config.get("columns", {})

    def field(name: str) -> Any:
        names = ([mapped[name]] if name in mapped else []) + FIELDS[name]
        return next((row[n] for n in names if row.get(n) is not None), None)

    contexts = field("retrieved_contexts")
    return {"id": row_id, "question": _text(field("user_input")), "answer": _text(field("response")),
            "reference": _text(field("reference")),
            "contexts": [_text(c) for c in contexts] if isinstance(contexts, list) else [],
            "judge": {m: {"score": run.score(row_id, m), "reason": row.get(f"{m}_reason")} for m in metrics}}


def _text(value: Any) -> str | None:
    import json

    return value if isinstance(value, str) or value is None else json.dumps(value, ensure_ascii=False)


def _given(path: str | Path, run: Run, metrics: list[str],
           scale: tuple[int, int] | None) -> dict[str, dict[str, float]]:
    """Labels given earlier, on their own scale (the page saves them back as they were): each
    must be on the page's scale (0/1, or --scale's), or a 0/1 label would come back a rating."""
    import json

    from ragmeter.labels.files import read_labels

    found = read_labels(path, run.ids, run.metrics, run.manifest.dataset.sha256)  # every check, with its line
    unknown = sorted({i for m in metrics for i in found.unknown_ids.get(m, [])})
    if unknown:
        raise DataError(f"labels for {len(unknown)} row(s) the run does not have (first: {unknown[0]}): labels made "
                        "on another run?", source=str(path))
    if not any(found.count(m) for m in metrics):
        raise DataError(f"no label for {', '.join(metrics)} (it labels {', '.join(found.by_metric) or 'nothing'}): "
                        "resume a page for the metric it labels", source=str(path))
    given: dict[str, dict[str, float]] = {}
    page = "0/1" if scale is None else f"{scale[0]}-{scale[1]}"
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            entry = json.loads(line)
            theirs = entry.get("scale")
            if entry["metric"] in metrics and (list(scale) if scale else None) != theirs:
                label, fix = ("0/1", "drop --scale") if theirs is None else \
                    (f"{theirs[0]}-{theirs[1]}", f"give --scale {theirs[0]},{theirs[1]}")
                raise DataError(f"a {label} label cannot resume a page labelling {entry['metric']} on {page} "
                                f"({fix} to match it)", source=str(path), row=number, unit="line", field="scale")
            if entry["metric"] in metrics and str(entry["id"]) in set(run.ids):
                given.setdefault(entry["metric"], {})[str(entry["id"])] = entry["label"]
    return given


def _page(data: dict[str, Any], title: str) -> bytes:
    script, style = static_text("label.js"), static_text("report.css")
    csp = (f"default-src 'none'; script-src '{content_hash(script)}'; style-src '{content_hash(style)}'; "
           "base-uri 'none'; form-action 'none'")
    return "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{style}</style></head><body>",
        f"<header><h1>{escape(title)}</h1><p>{escape(data['run'])} · keys: the choice's number, ← → to move, "
        "s to save (Enter in the name box gives the keys back)</p></header>",
        '<div class="controls"><label>your name <input id="labeller" type="text"></label>'
        '<label>labels given earlier <input id="load" type="file" accept=".jsonl"></label>'
        '<label><input id="show-judge" type="checkbox"> show the judge</label>'
        '<button id="save">save labels.jsonl</button><button id="forget">forget labels kept here</button>'
        '<span id="progress"></span></div><p id="stored"></p>',
        '<main id="item"></main>',
        f'<script type="application/json" id="ragmeter-label-data">{embed_json(data)}</script>',
        f"<script>{script}</script></body></html>\n"]).encode("utf-8")
