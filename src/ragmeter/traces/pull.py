"""`ragmeter traces phoenix:URL --out day.jsonl`: a sample of production traces as a dataset
file, one row per trace (io/traces.py's mapping), ready for `ragmeter evaluate`.

The rows are written to a file first, not scored straight from the server: traffic keeps
arriving, so a run over a file is the one a re-run resumes, a comparison pairs and a
labeller sees. Each row keeps its trace id, root span id and start time, which
`ragmeter publish` uses to put the scores back on the trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError
from ragmeter.io.traces import rows_from_phoenix
from ragmeter.io.writers import atomic_write_bytes, jsonl_bytes
from ragmeter.traces.phoenix import Phoenix, phoenix_url
from ragmeter.traces.sample import check_share, time_stratified

#: root spans read at most (a day of a busy service; --max-traces raises it)
MAX_TRACES = 100_000


@dataclass
class Pulled:
    """What `traces` read and wrote."""

    url: str
    project: str
    traces: int  # root spans in the time range
    chosen: int  # traces sampled
    rows: int  # rows written (chosen traces with OpenInference spans and a question)
    out: str
    window: dict[str, str | None] = field(default_factory=dict)


def pull_traces(source: str, out: str | Path, *, project: str = "default", since: datetime | None = None,
                until: datetime | None = None, sample: float | None = None, seed: int = 0,
                limit: int | None = None, max_traces: int = MAX_TRACES) -> Pulled:
    """Traces of `project` that started in [since, until), a seeded time-stratified `sample`
    share of them (at most `limit`), written to `out` as JSONL rows."""
    check_share(sample)
    url = phoenix_url(source)
    window = {"since": since.isoformat() if since else None, "until": until.isoformat() if until else None}
    phoenix = Phoenix(url)
    roots = phoenix.root_spans(project, since, until, max_traces)
    if not roots:
        raise DataError(f"no traces in project '{project}'{_describe(window)}", source=url)
    chosen = time_stratified(roots, sample, seed, limit)
    starts = {r["context"]["trace_id"]: r.get("start_time") for r in chosen}
    spans = phoenix.trace_spans(project, list(starts))
    rows = rows_from_phoenix(spans, f"{url} (project {project})")
    by_trace = {r["trace_id"]: r for r in rows}
    ordered = [_with_start(by_trace[t], starts[t]) for t in starts if t in by_trace]
    atomic_write_bytes(Path(out), jsonl_bytes(ordered))
    return Pulled(url, project, len(roots), len(chosen), len(ordered), str(out), window)


def _with_start(row: dict[str, Any], start: Any) -> dict[str, Any]:
    return {**row, "start_time": start} if start else row


def _describe(window: dict[str, str | None]) -> str:
    parts = [f"{edge} {window[edge]}" for edge in ("since", "until") if window[edge]]
    return "".join(f" {p}" for p in parts)
