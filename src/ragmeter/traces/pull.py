"""`ragmeter traces SOURCE --out day.jsonl`: a sample of production traces as a dataset file,
one row per trace (io/traces.py's mapping) or per session (`--sessions`), for `evaluate`.

SOURCE is a running Phoenix (`phoenix:http://HOST:PORT`) or a file of traces (OTLP JSON,
Phoenix's spans exported as Parquet/JSONL). The rows are written to a file first, not
scored straight from the server: traffic keeps arriving, so a run over a file is the one a
re-run resumes, a comparison pairs and a labeller sees. Each row keeps its trace id, root
span id and start time, which `ragmeter publish` uses to put the scores back on the trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError
from ragmeter.io.trace_mapping import parse_attributes
from ragmeter.io.traces import rows_from_phoenix, session_rows
from ragmeter.io.writers import atomic_write_bytes, check_not_source, check_writable, jsonl_lines
from ragmeter.traces.phoenix import PREFIX, Phoenix, phoenix_url
from ragmeter.traces.sample import check_share, start_moment, time_stratified

#: root spans read at most (a day of a busy service; --max-traces raises it)
MAX_TRACES = 100_000


@dataclass
class Pulled:
    """What `traces` read and wrote."""

    source: str
    traces: int  # traces in the time range (root spans)
    chosen: int  # traces (or sessions) sampled
    rows: int  # rows written (sampled traces with OpenInference spans and a question; or sessions)
    out: str
    unit: str = "traces"  # what was sampled: traces or sessions


@dataclass
class Window:
    """Which traces: the time range, the share, the seed, the cap."""

    since: datetime | None = None
    until: datetime | None = None
    sample: float | None = None
    seed: int = 0
    limit: int | None = None

    def describe(self) -> str:
        parts = [f"since {self.since.isoformat()}" if self.since else "",
                 f"until {self.until.isoformat()}" if self.until else ""]
        return "".join(f" {p}" for p in parts if p)

    def holds(self, start: Any) -> bool:
        moment = start_moment(start)
        return (not self.since or moment >= self.since) and (not self.until or moment < self.until)


def pull_traces(source: str, out: str | Path, *, project: str = "default", window: Window | None = None,
                sessions: bool = False, mapping: Mapping[str, str] | None = None,
                max_traces: int = MAX_TRACES) -> Pulled:
    """Traces from `source` in the window, sampled, written to `out` as JSONL rows; `mapping`
    takes row fields from span attributes you name (io/trace_mapping.py)."""
    window = window or Window()
    check_share(window.sample)
    mapping = parse_attributes(mapping)
    if not source.startswith(PREFIX):
        check_not_source(Path(out), Path(source), "--out")
    check_writable(Path(out), "--out")
    if source.startswith(PREFIX):
        traces, rows, chosen = _from_phoenix(phoenix_url(source), project, window, sessions, max_traces, mapping)
    else:
        traces, rows, chosen = _from_file(Path(source), window, sessions, mapping)
    atomic_write_bytes(Path(out), jsonl_lines(rows))
    return Pulled(source, traces, chosen, len(rows), str(out), "sessions" if sessions else "traces")


def _from_phoenix(url: str, project: str, window: Window, sessions: bool, max_traces: int,
                  mapping: Mapping[str, str]) -> tuple[int, list[dict[str, Any]], int]:
    """Root spans in the window; a sample of them (of their sessions); those traces' spans."""
    phoenix = Phoenix(url)
    roots = phoenix.root_spans(project, window.since, window.until, max_traces)
    if not roots:
        raise DataError(f"no traces in project '{project}'{window.describe()}", source=url)
    units = _groups(roots, sessions)
    chosen = time_stratified(units, window.sample, window.seed, window.limit, start=lambda u: u[0].get("start_time"),
                             key=lambda u: u[0]["context"]["trace_id"])
    wanted = [root["context"]["trace_id"] for unit in chosen for root in unit]
    rows = rows_from_phoenix(phoenix.trace_spans(project, wanted), f"{url} (project {project})", mapping)
    by_trace = {r["trace_id"]: r for r in rows}
    rows = [by_trace[t] for t in wanted if t in by_trace]
    return len(roots), session_rows(rows) if sessions else rows, len(chosen)


def _from_file(path: Path, window: Window, sessions: bool,
               mapping: Mapping[str, str]) -> tuple[int, list[dict[str, Any]], int]:
    """A traces file's rows in the window, sampled (by trace or by session)."""
    from ragmeter.io.data_file import open_data_file

    records = open_data_file(path).records(mapping=mapping)
    if not records or "trace_id" not in records[0] or "span_id" not in records[0]:
        raise DataError("not a file of traces (OTLP JSON, or spans exported from Phoenix)", source=str(path))
    rows = [r for r in records if window.holds(r.get("start_time"))]
    if not rows:
        raise DataError(f"no traces{window.describe()} among {len(records)}", source=str(path))
    units = session_rows(rows) if sessions else rows
    chosen = time_stratified(units, window.sample, window.seed, window.limit, start=lambda r: r.get("start_time"),
                             key=lambda r: str(r["id"]))
    return len(rows), chosen, len(chosen)


def _groups(roots: list[dict[str, Any]], sessions: bool) -> list[list[dict[str, Any]]]:
    """Root spans grouped by what is sampled: one per trace, or one per session (a root
    without a session id is a session of its own), each in start order."""
    if not sessions:
        return [[root] for root in roots]
    grouped: dict[str, list[dict[str, Any]]] = {}
    for root in roots:
        session = (root.get("attributes") or {}).get("session.id") or root["context"]["trace_id"]
        grouped.setdefault(str(session), []).append(root)
    return [sorted(group, key=lambda r: start_moment(r.get("start_time"))) for group in grouped.values()]
