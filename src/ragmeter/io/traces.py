"""Production traces as rows: OTLP JSON files with OpenInference attributes, and spans as
Arize Phoenix gives them (its REST API's spans, its spans dataframe saved as Parquet/JSONL).

An OTLP JSON file is what the OpenTelemetry Collector's file exporter writes (one
`ExportTraceServiceRequest` as JSON per line) or one such request as a `.json` document.
A Phoenix span is one record with `context.trace_id`/`context.span_id` (flat or nested),
`parent_id`, `span_kind`, `start_time` and its attributes (flat `a.b.c` keys, or nested
objects and lists as its dataframe holds them).
LlamaIndex and LangChain, instrumented with OpenInference, put a RAG call's parts in span
attributes; one trace becomes one row:

- `id`, `trace_id`: the trace id (hex); `span_id`: the root span's id;
- `user_input`: the root span's `input.value` (a JSON object's `question`, `query`,
  `input`, ... key, or the text), else the first LLM span's last user message;
- `response`: the root span's `output.value` (`answer`, `output`, `result`, ... or the
  text), else the last LLM span's first output message;
- `retrieved_contexts`: every RETRIEVER span's documents in start order
  (`retrieval.documents.N.document.content`); `retrieved_context_ids` and
  `retrieval_scores`: their `document.id` (else the `id` of `document.metadata`, the JSON
  text OpenInference's LangChain instrumentor writes, or a flat `document.metadata.id`) and
  `document.score`, where every one has one;
- `session_id`: `session.id`, where set; `start_time`: the root span's start (UTC).

`session_rows` turns such rows into conversations (one row per session, `messages`).

A trace without a retriever span has no `retrieved_contexts`: context metrics leave it
unscored with that reason (never 0). Traces with no OpenInference span (another
instrumentation) and traces with no question are skipped and counted in one logged line.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from datetime import UTC
from typing import TYPE_CHECKING, Any

from ragmeter.errors import DataError
from ragmeter.io.json_files import TooDeep, json_value, line_of
from ragmeter.io.spans import KIND, LATEST_NS, Span, hex_id, otlp_spans

if TYPE_CHECKING:
    from pathlib import Path

QUESTION_KEYS = ("question", "query", "input", "user_input", "query_str", "text")
ANSWER_KEYS = ("answer", "output", "result", "response", "output_text", "text")
_DOC = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(content|id|score|metadata\.id|metadata)$")
_MESSAGE = re.compile(r"^llm\.(input|output)_messages\.(\d+)\.message\.(role|content)$")
#: the single attributes trace_row reads (beside the documents' and messages' above)
_READ = frozenset({KIND, "input.value", "output.value", "session.id"})


def rows_from_otlp_file(path: str | Path, source: str,
                        mapping: Mapping[str, str] | None = None) -> list[dict[str, object]]:
    """`rows_from_otlp` for a JSON Lines file read a line at a time (io/spans.py), holding
    only the attributes the rows are made from: a 71 MB file took 481 MB read whole."""
    from ragmeter.io.spans import check_memory, stream_otlp_spans
    from ragmeter.io.trace_mapping import attribute_pattern

    check_memory(path, source)
    patterns = [attribute_pattern(name) for name in (mapping or {}).values()]

    def used(key: str) -> bool:  # what trace_row reads, and what --attribute names
        return key in _READ or bool(_DOC.match(key) or _MESSAGE.match(key)) or any(p.match(key) for p in patterns)

    traces: dict[str, list[Span]] = {}
    for span in stream_otlp_spans(path, source, used):
        traces.setdefault(span.trace_id, []).append(span)
    return rows_from_traces(traces, source, mapping)


def rows_from_otlp(requests: list[dict[str, object]], source: str,
                   mapping: Mapping[str, str] | None = None) -> list[dict[str, object]]:
    """One row per trace that has OpenInference spans, in the order traces first appear."""
    traces: dict[str, list[Span]] = {}
    for number, request in enumerate(requests, start=1):
        line = line_of(request, number)
        for span in otlp_spans(request, source, line):
            traces.setdefault(span.trace_id, []).append(span)
    return rows_from_traces(traces, source, mapping)


def rows_from_phoenix(records: list[dict[str, object]], source: str,
                      mapping: Mapping[str, str] | None = None) -> list[dict[str, object]]:
    """One row per trace among Phoenix spans (a span per record, any order)."""
    traces: dict[str, list[Span]] = {}
    for number, record in enumerate(records, start=1):
        span = phoenix_span(record, source, line_of(record, number))
        traces.setdefault(span.trace_id, []).append(span)
    return rows_from_traces(traces, source, mapping)


def rows_from_traces(traces: dict[str, list[Span]], source: str,
                     mapping: Mapping[str, str] | None = None) -> list[dict[str, object]]:
    """Rows of the traces that have OpenInference spans (or an attribute `mapping` names) and
    a question; the rest counted."""
    from ragmeter.io.trace_mapping import holds_any

    rows, other, no_question = [], [], []
    for trace_id, spans in traces.items():
        if not any(KIND in s.attributes for s in spans) and not (
                mapping and holds_any([s.attributes for s in spans], mapping)):
            other.append(trace_id)
            continue
        try:
            row = trace_row(trace_id, spans, mapping)
        except ValueError as exc:
            raise DataError(f"trace {trace_id}: {exc}", source=source) from None
        if row.get("user_input") is None:
            no_question.append(trace_id)
            continue
        rows.append(row)
    _warn_skipped(source, len(traces), other, no_question)
    if not rows:
        raise DataError(f"no OpenInference RAG traces among {len(traces)} trace(s): {len(other)} from another "
                        f"instrumentation (no `{KIND}` attribute), {len(no_question)} without a question",
                        source=source)
    return rows


def phoenix_span(record: dict[str, object], source: str, line: int) -> Span:
    """A Phoenix span record as a Span; its attributes flattened to OpenInference's keys."""
    try:
        found = record.get("context")
        context = found if isinstance(found, dict) else {}
        trace_id = record.get("context.trace_id") or context["trace_id"]
        span_id = record.get("context.span_id") or context["span_id"]
        given = record.get("attributes")
        if not isinstance(given, dict):
            given = {k.removeprefix("attributes."): v for k, v in record.items() if k.startswith("attributes.")}
        attributes = flatten(given)
        kind = str(record.get("span_kind") or "").upper()
        if kind and kind != "UNKNOWN":  # Phoenix's kind for spans without OpenInference's attribute
            attributes.setdefault(KIND, kind)
        return Span(hex_id(str(trace_id)), hex_id(str(span_id)), hex_id(str(record.get("parent_id") or "")),
                    str(record.get("name", "")), _start(record.get("start_time")), attributes)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise DataError(f"not a Phoenix span ({type(exc).__name__}: {exc})", source=source, row=line,
                        unit="line" if "__line__" in record else "row") from None


def flatten(value: object, prefix: str = "") -> dict[str, object]:
    """Nested attributes as OpenInference's flat keys: `{"retrieval": {"documents": [{"document.
    content": "x"}]}}` -> `retrieval.documents.0.document.content`. Lists of scalars stay lists;
    missing values (None, NaN) are left out."""
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        flat = {}
        for index, item in enumerate(value):
            flat.update(flatten(item, f"{prefix}.{index}"))
        return flat
    if value is None or isinstance(value, float) and value != value:
        return {}
    return {prefix: value}


def _start(value: Any) -> int:
    """A start time as a number that orders a trace's spans (ISO text, a datetime, a number)."""
    from datetime import datetime

    if value is None:
        return 0
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if isinstance(value, datetime):
        return int(value.timestamp() * 1_000_000) * 1000
    number = int(value)  # OverflowError for infinity, ValueError for NaN: the caller names the line
    while 0 < number < 10**17:  # epoch seconds, milliseconds or microseconds (a dataframe's JSON) to ns
        number *= 1000
    if not 0 <= number < LATEST_NS:
        raise ValueError(f"start time {value!r} is not a time between 1970 and 9999")
    return number


def trace_row(trace_id: str, spans: list[Span], mapping: Mapping[str, str] | None = None) -> dict[str, object]:
    """A trace's spans as one row (the table in this module's docstring; `mapping`'s fields
    from the attributes it names, io/trace_mapping.py)."""
    spans = sorted(spans, key=lambda s: s.start)
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_id or s.parent_id not in ids]
    root = roots[0] if roots else spans[0]
    llms = [s for s in spans if s.kind == "LLM"]
    row: dict[str, Any] = {"id": trace_id, "trace_id": trace_id, "span_id": root.span_id,
                           "user_input": _text(root.attributes.get("input.value"), QUESTION_KEYS)
                           or _message(llms[:1], "input", "user"),
                           "response": _text(root.attributes.get("output.value"), ANSWER_KEYS)
                           or _message(llms[-1:], "output", None)}
    retrievers = [s for s in spans if s.kind == "RETRIEVER"]
    if retrievers:
        documents = [doc for s in retrievers for doc in _documents(s.attributes)]
        row["retrieved_contexts"] = [d.get("content") or "" for d in documents]
        if documents and all(d.get("id") is not None for d in documents):
            row["retrieved_context_ids"] = [str(d["id"]) for d in documents]
        elif documents and all(d.get("metadata.id") is not None for d in documents):
            row["retrieved_context_ids"] = [str(d["metadata.id"]) for d in documents]
        if documents and all(d.get("score") is not None for d in documents):
            row["retrieval_scores"] = [_score(d["score"]) for d in documents]
    session = next((s.attributes["session.id"] for s in spans if "session.id" in s.attributes), None)
    if session is not None:
        row["session_id"] = str(session)
    if root.start:
        row["start_time"] = _iso(root.start)
    if mapping:
        from ragmeter.io.trace_mapping import mapped

        row = mapped(row, [root.attributes] + [s.attributes for s in spans if s is not root], mapping)
    return row


def _score(value: Any) -> float:
    """A document's retrieval score as a finite number, or a ValueError saying what it was."""
    import math

    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number):
        raise ValueError(f"document.score {str(value)[:40]!r} is not a finite number")
    return number


def session_rows(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Trace rows as conversations: one row per `session_id` (a trace without one is a
    conversation of one turn), its turns in start order as `messages` (the question as a
    human turn, the answer as an ai turn), `trace_ids` in order, and the last turn's
    `trace_id`, `span_id` and `start_time` (where `publish` puts the conversation's scores)."""
    sessions: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        sessions.setdefault(str(row.get("session_id") or row["trace_id"]), []).append(row)
    out = []
    for session, turns in sessions.items():
        turns = sorted(turns, key=lambda r: str(r.get("start_time") or ""))
        messages = [m for t in turns for m in ({"type": "human", "content": t["user_input"]},
                                               {"type": "ai", "content": t.get("response") or ""})]
        last = turns[-1]
        out.append({"id": session, "session_id": session, "messages": messages,
                    "trace_ids": [t["trace_id"] for t in turns], "trace_id": last["trace_id"],
                    "span_id": last["span_id"], **({"start_time": turns[0]["start_time"]}
                                                   if turns[0].get("start_time") else {})})
    return out


def _iso(nanoseconds: int) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(nanoseconds / 1e9, tz=UTC).isoformat()


def _text(value: Any, keys: tuple[str, ...]) -> str | None:
    """A span's input or output value as text: a JSON object's first known key, or the text."""
    if value is None:
        return None
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = json_value(value)
        except (json.JSONDecodeError, TooDeep):
            return value
    if isinstance(value, dict) and isinstance(value.get("data"), dict) and "content" in value["data"]:
        value = value["data"]  # a LangChain message as the chain returned it: {"type": "ai", "data": {...}}
    if isinstance(value, dict):
        found = next((value[k] for k in (*keys, "content") if isinstance(value.get(k), str)), None)
        strings = [v for k, v in value.items() if isinstance(v, str) and k != "type"]
        return found if found is not None else (strings[0] if len(strings) == 1 else None)
    return str(value) if str(value).strip() else None


def _documents(attributes: dict[str, object]) -> list[dict[str, object]]:
    documents: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        match = _DOC.match(key)
        if match and match.group(2) == "metadata":  # OpenInference's LangChain instrumentor: a JSON string
            found = _metadata_id(value)
            if found is not None:
                documents.setdefault(int(match.group(1)), {}).setdefault("metadata.id", found)
        elif match:
            documents.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return [documents[i] for i in sorted(documents)]


def _metadata_id(value: object) -> Any:
    """`id` of a document's metadata, given as a JSON object's text (or an object)."""
    if isinstance(value, str):
        try:
            value = json_value(value)
        except (json.JSONDecodeError, TooDeep):
            return None
    return value.get("id") if isinstance(value, dict) else None


def _message(spans: list[Span], direction: str, role: str | None) -> str | None:
    """The last `role` message (any role: the first) of these spans' input or output messages."""
    for span in spans:
        messages: dict[int, dict[str, Any]] = {}
        for key, value in span.attributes.items():
            match = _MESSAGE.match(key)
            if match and match.group(1) == direction:
                messages.setdefault(int(match.group(2)), {})[match.group(3)] = value
        ordered = [messages[i] for i in sorted(messages)]
        chosen = [m for m in ordered if role is None or m.get("role") == role]
        if chosen:
            content = (chosen[-1] if role else chosen[0]).get("content")
            return str(content) if content is not None else None
    return None


def _warn_skipped(source: str, total: int, other: list[str], no_question: list[str]) -> None:
    parts = []
    if other:
        parts.append(f"{len(other)} from another instrumentation (no `{KIND}`; first {other[0]})")
    if no_question:
        parts.append(f"{len(no_question)} without a question (first {no_question[0]})")
    if parts:
        logging.getLogger("ragmeter").warning(f"{source}: {total - len(other) - len(no_question)} of {total} "
                                              "traces read; skipped " + ", ".join(parts))
