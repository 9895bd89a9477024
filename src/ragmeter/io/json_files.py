"""JSON and JSON Lines data files as records, each error naming the file and line. A .json
file that holds JSON Lines (the OpenTelemetry Collector's file exporter names them so) reads
as such; the OpenTelemetry SDK's console exporter output, which looks like JSON and is not
OTLP, is refused with what to use instead."""

from __future__ import annotations

import json
from typing import Any

from ragmeter.errors import DataError
from ragmeter.io.spans import CONSOLE_EXPORTER, is_console_export


def read_jsonl(text: str, source: str) -> list[dict[str, Any]]:
    """A JSON Lines file's objects, each with its `__line__`."""
    records = []
    # "\n" only: str.splitlines() also breaks at U+2028, U+0085, ... which JSON strings may hold raw
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        obj = jsonl_object(line, source, number)
        obj["__line__"] = number
        records.append(obj)
    return records


def jsonl_object(line: str, source: str, number: int) -> dict[str, Any]:
    """One JSON Lines line as an object, or a DataError naming the line (stream.py reads so too)."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"malformed JSON ({exc.msg} at column {exc.colno})",
                        source=source, row=number, unit="line") from None
    if not isinstance(obj, dict):
        raise DataError(f"expected a JSON object, got {type(obj).__name__}",
                        source=source, row=number, unit="line")
    return obj


def read_json(text: str, source: str) -> list[dict[str, Any]]:
    """A .json file's objects: a list, `{"data": [...]}`, one OTLP request, or JSON Lines."""
    if is_console_export(text):
        raise DataError(CONSOLE_EXPORTER, source=source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and exc.colno == 1 and _one_object(text.split("\n", 1)[0]):
            return read_jsonl(text, source)  # JSON Lines named .json (the Collector's file exporter writes so)
        raise DataError(f"malformed JSON ({exc.msg})", source=source, row=exc.lineno, unit="line") from None
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    if isinstance(data, dict) and "resourceSpans" in data:  # one OTLP export request (io/traces.py)
        data = [data]
    if not isinstance(data, list):
        raise DataError("a .json dataset must be a list of objects", source=source)
    for number, obj in enumerate(data, start=1):
        if not isinstance(obj, dict):
            raise DataError(f"expected an object, got {type(obj).__name__}", source=source, row=number)
    return data


def _one_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except json.JSONDecodeError:
        return False
