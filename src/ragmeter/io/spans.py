"""A span as the trace readers hold it, and OTLP JSON's spans: ids in hex or base64, values
as Python. Also the one file that looks like OTLP and is not: the SDK's console exporter's."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from sys import intern
from typing import TYPE_CHECKING, Any

from ragmeter.errors import DataError
from ragmeter.io.memory import available_memory

if TYPE_CHECKING:
    from pathlib import Path

OTLP_KEY = "resourceSpans"
KIND = "openinference.span.kind"
_HEX = re.compile(r"^[0-9a-fA-F]+$")


@dataclass(slots=True)
class Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    attributes: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.attributes.get(KIND, "")).upper()


def otlp_spans(request: dict[str, Any], source: str, line: int) -> list[Span]:
    spans = []
    try:
        for resource in request.get(OTLP_KEY) or []:
            for scope in resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []:
                for span in scope.get("spans") or []:
                    spans.append(Span(hex_id(span["traceId"]), hex_id(span["spanId"]),
                                      hex_id(span.get("parentSpanId") or ""),
                                      str(span.get("name", "")), _nanoseconds(span.get("startTimeUnixNano")),
                                      {a["key"]: _value(a.get("value") or {}) for a in span.get("attributes") or []}))
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError) as exc:
        raise DataError(f"not an OTLP span ({type(exc).__name__}: {exc})", source=source, row=line,
                        unit="line") from None
    return spans


def hex_id(text: str) -> str:
    """OTLP JSON ids are hex; protobuf's own JSON printer writes them in base64."""
    if not text or _HEX.match(text) and len(text) in (16, 32):
        return text.lower()
    try:
        return base64.b64decode(text, validate=True).hex()
    except (binascii.Error, ValueError):
        raise ValueError(f"span id {text!r} is neither hex nor base64") from None


def _value(value: dict[str, Any]) -> Any:
    """An OTLP AnyValue as Python."""
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])  # int64 travels as a string in JSON
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"].get("values") or [])]
    if "kvlistValue" in value:
        return {kv["key"]: _value(kv.get("value") or {}) for kv in value["kvlistValue"].get("values") or []}
    return None


#: nanoseconds since 1970 at the start of the year 10000: no later time can be written as a date
LATEST_NS = 253_402_300_800 * 10**9


def _nanoseconds(value: Any) -> int:
    """An OTLP start time (nanoseconds since 1970, a string in JSON) that a date can hold."""
    number = int(value or 0)
    if not 0 <= number < LATEST_NS:
        raise ValueError(f"startTimeUnixNano {value!r} is not a time between 1970 and 9999")
    return number


def stream_otlp_spans(path: str | Path, source: str, keep: Callable[[str], bool]) -> Iterator[Span]:
    """The spans of an OTLP JSON Lines file, a line (one export request) at a time, each with
    only the attributes `keep` says yes to (the ones a row is made from): a day of traces is
    held as these few attributes, not as the file's JSON."""
    from ragmeter.io.json_files import jsonl_object

    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError:
                raise DataError("undecodable bytes: the file must be UTF-8", source=source, row=number,
                                unit="line") from None
            for span in otlp_spans(jsonl_object(line, source, number), source, number):
                # one copy of each key and trace id for the whole file, not one per span: a file of
                # a million spans is held in a third of the memory
                span.attributes = {intern(k): v for k, v in span.attributes.items() if keep(k)}
                span.trace_id = intern(span.trace_id)
                yield span


#: memory a JSON Lines trace file takes to read, per byte of file (measured: 500 MB of a
#: million small spans peaked at 1.15 GB, 2.3x; larger attribute values take less)
MEMORY_PER_BYTE = 2.5


def check_memory(path: str | Path, source: str) -> None:
    """Before reading a trace file: one line saying what it needs where the memory free to this
    process (a container's or job's limit, `ulimit -v`, the machine's) is less, instead of a
    MemoryError (or the kernel's kill) half way through."""
    import os

    size = os.path.getsize(path)
    need, free = size * MEMORY_PER_BYTE, available_memory()
    if free is not None and need > free:
        raise DataError(f"{size / 1e6:,.0f} MB of traces need about {need / 1e9:.1f} GB of memory to read and "
                        f"{free / 1e9:.1f} GB are free: split the file (one export request per line, e.g. "
                        "`split -l 10000 FILE part-`) and read the parts", source=source)
