"""Commands for production traces: `traces` (a sample of a Phoenix project as a dataset file)
and `publish` (a run's scores back onto the traces as Phoenix annotations)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ragmeter.text import plain


def traces(source: Annotated[str, typer.Argument(help="where the traces are: phoenix:http://HOST:PORT (a key, "
                                                      "if any, in PHOENIX_API_KEY), or a file of traces (OTLP "
                                                      "JSON, spans exported from Phoenix)")],
           out: Annotated[Path, typer.Option(help="the JSONL dataset to write, one row per trace")],
           project: Annotated[str, typer.Option(help="the Phoenix project")] = "default",
           since: Annotated[Optional[str], typer.Option(help="traces started at or after: a date or time "
                                                             "(2026-11-23, 2026-11-23T08:00, UTC unless "
                                                             "zoned) or a span back from now (24h, 7d)")] = None,
           until: Annotated[Optional[str], typer.Option(help="traces started before (same forms)")] = None,
           sample: Annotated[Optional[float], typer.Option(help="the share of traces to keep (0.05 = 5%), "
                                                                "spread evenly over time; default all")] = None,
           seed: Annotated[int, typer.Option(help="the sample's seed: the same traces and seed give the "
                                                  "same sample")] = 0,
           limit: Annotated[Optional[int], typer.Option(help="keep at most N traces", min=1)] = None,
           sessions: Annotated[bool, typer.Option("--sessions", help="one row per session (session.id): its "
                                                                     "turns as messages, for conversation "
                                                                     "metrics; the share is of sessions")] = False,
           attribute: Annotated[Optional[list[str]], typer.Option(
               help="FIELD=ATTRIBUTE: take a row field from a span attribute (custom instrumentation), e.g. "
                    "user_input=app.question (a list: see below); repeatable")] = None,
           max_traces: Annotated[int, typer.Option(help="read at most N traces from Phoenix", min=1)] = 100_000,
           ) -> None:
    """Production traces as a dataset: one row per trace (question, answer, retrieved documents,
    trace and span ids) or per session, sampled by time, for `ragmeter evaluate`.

    A list attribute takes `*` where the index goes:
    --attribute retrieved_contexts=app.chunks.*.text"""
    from ragmeter.io.trace_mapping import parse_attributes
    from ragmeter.traces.pull import Window, pull_traces
    from ragmeter.traces.sample import parse_time

    window = Window(parse_time(since, "--since"), parse_time(until, "--until"), sample, seed, limit)
    pulled = pull_traces(source, out, project=project, window=window, sessions=sessions, mapping=parse_attributes(
        attribute or []), max_traces=max_traces)
    where = f"project {project}" if source.startswith("phoenix:") else "the file"
    skipped = pulled.chosen - pulled.rows
    print(plain(f"{pulled.traces} traces in {where}; {pulled.chosen} {pulled.unit} sampled; wrote {pulled.rows} "
                f"rows to {pulled.out}" + (f" ({skipped} without a RAG question skipped)" if skipped > 0 else "")))


def publish(run: Annotated[Path, typer.Argument(help="a run folder over traces (rows with span_id)")],
            to: Annotated[str, typer.Option("--to", help="phoenix:http://HOST:PORT (a key, if any, in "
                                                         "PHOENIX_API_KEY)")],
            metrics: Annotated[Optional[str], typer.Option(help="comma-separated; default: every metric of "
                                                                "the run")] = None,
            fail_under: Annotated[Optional[str], typer.Option(help="METRIC=BAR,...: label each row pass/fail "
                                                                   "(default: the run's own bars)")] = None,
            identifier: Annotated[str, typer.Option(help="publishing again with the same identifier replaces "
                                                         "the annotations; another keeps both")] = "ragmeter",
            ) -> None:
    """A run's scores back on its traces: one Phoenix annotation per row and metric on the
    trace's root span (score, pass/fail where there is a bar, the reason as explanation)."""
    from ragmeter.results.gates import parse_fail_under
    from ragmeter.traces.publish import publish_run

    names = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
    done = publish_run(run, to, metrics=names, bars=parse_fail_under(fail_under), identifier=identifier)
    notes = [f"{done.without_span} rows not from a trace" if done.without_span else "",
             f"{done.unscored} unscored left out" if done.unscored else ""]
    print(plain(f"published {done.annotations} annotations on {done.rows} traces to {done.url}"
                + "".join(f"; {n}" for n in notes if n)))
