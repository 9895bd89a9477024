"""JSON and JSON Lines data files as records, each error naming the file and line. A .json
file that holds JSON Lines (the OpenTelemetry Collector's file exporter names them so) reads
as such; the OpenTelemetry SDK's console exporter output, which looks like JSON and is not
OTLP, is refused with what to use instead."""

from __future__ import annotations

import json
from typing import Any

from ragmeter.errors import DataError

#: arrays and objects inside one another that a row may hold (orjson writes 254; the checks recurse)
MAX_DEPTH = 100
TOO_DEEP = f"nested too deeply: arrays or objects more than {MAX_DEPTH} levels inside one another"


#: what a file of the SDK's ConsoleSpanExporter output is told (it looks like JSON, is not OTLP)
CONSOLE_EXPORTER = ("this is the OpenTelemetry SDK's ConsoleSpanExporter output (pretty-printed spans, one after "
                    "another), not OTLP: write traces with the OTLP JSON exporter in docs/data.md (\"Writing a "
                    "trace file\"), or the Collector's file exporter")


def is_console_export(text: str) -> bool:
    """The SDK's console exporter's spans: objects with `context.trace_id` as 0x-prefixed hex."""
    head = text[:4000]
    return head.lstrip().startswith("{") and '"context": {' in head and '"trace_id": "0x' in head


class TooDeep(ValueError):
    """A JSON text nested past MAX_DEPTH (or past what Python's reader can follow)."""


def json_value(text: str, strict: bool = False) -> Any:
    """json.loads for text inside a row (a CSV cell, a trace attribute), refusing values
    nested too deeply (TooDeep) before anything recurses into them; `strict`: NaN and
    Infinity, which JSON does not have, are a ValueError too."""
    try:
        value = json.loads(text, parse_constant=_no_constant) if strict else json.loads(text)
    except RecursionError:
        raise TooDeep(TOO_DEEP) from None
    if too_deep(value):
        raise TooDeep(TOO_DEEP)
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON has")


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether containers nest deeper than `limit`, walked without recursion (rows hold few)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def read_jsonl(text: str, source: str) -> list[dict[str, object]]:
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


def line_of(record: dict[str, object], default: int, *, remove: bool = False) -> int:
    """The record's `__line__` (the JSON Lines line it came from), else `default` (its row)."""
    value = record.pop("__line__", None) if remove else record.get("__line__")
    return value if isinstance(value, int) else default


def jsonl_object(line: str, source: str, number: int) -> dict[str, object]:
    """One JSON Lines line as an object, or a DataError naming the line (stream.py reads so too)."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"malformed JSON ({exc.msg} at column {exc.colno})",
                        source=source, row=number, unit="line") from None
    except RecursionError:
        raise DataError(TOO_DEEP, source=source, row=number, unit="line") from None
    if not isinstance(obj, dict):
        raise DataError(f"expected a JSON object, got {type(obj).__name__}",
                        source=source, row=number, unit="line")
    if too_deep(obj):
        raise DataError(TOO_DEEP, source=source, row=number, unit="line")
    return obj


def read_json(text: str, source: str) -> list[dict[str, object]]:
    """A .json file's objects: a list, `{"data": [...]}`, one OTLP request, or JSON Lines."""
    if is_console_export(text):
        raise DataError(CONSOLE_EXPORTER, source=source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and exc.colno == 1 and _one_object(text.split("\n", 1)[0]):
            return read_jsonl(text, source)  # JSON Lines named .json (the Collector's file exporter writes so)
        raise DataError(f"malformed JSON ({exc.msg})", source=source, row=exc.lineno, unit="line") from None
    except RecursionError:
        raise DataError(TOO_DEEP, source=source) from None
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    if isinstance(data, dict) and "resourceSpans" in data:  # one OTLP export request (io/traces.py)
        data = [data]
    if not isinstance(data, list):
        raise DataError("a .json dataset must be a list of objects", source=source)
    for number, obj in enumerate(data, start=1):
        if not isinstance(obj, dict):
            raise DataError(f"expected an object, got {type(obj).__name__}", source=source, row=number)
        if too_deep(obj):
            raise DataError(TOO_DEEP, source=source, row=number)
    return data


def _one_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (json.JSONDecodeError, RecursionError):
        return False
