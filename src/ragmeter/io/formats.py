"""Input formats: one reader per format, and the one place that knows suffixes and units;
every file is opened through io/data_file.py, which asks here once.

A format is its file suffixes and one function `records(path, source)` that yields
(line or row number, record) pairs, raising DataError with the file, row and field. To add
a format, write that function and register it with one line at the bottom of this module
(docs/architecture.md, "Where to add things").
"""

from __future__ import annotations

import csv
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError
from ragmeter.io.json_files import jsonl_object, read_json

#: rows per Parquet batch read
BATCH_ROWS = 4096
Records = Iterator[tuple[int, dict[str, Any]]]


@dataclass(frozen=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    records: Callable[[Path, str], Records]
    #: read a chunk at a time (False: the file must be parsed whole, as a JSON array is)
    streams: bool = True
    #: what a record's number counts, in error messages
    unit: str = "row"


#: suffix -> format, in registration order
FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    for suffix in fmt.suffixes:
        FORMATS[suffix] = fmt
    return fmt


def is_data_file(path: Path) -> bool:
    """Whether a registered format reads this file (its suffix): a dataset or a table of
    documents, not a document itself. The one place other packages ask."""
    return path.suffix.lower() in FORMATS


def unit_of(source: str | Path) -> str:
    """What an error in this file names: "line" (JSON Lines) or "row" (its format's `unit`)."""
    found = FORMATS.get(Path(str(source)).suffix.lower())
    return found.unit if found else "row"


def suffixes_text() -> str:
    """The suffixes read, for help texts: ".jsonl, .ndjson, .json, .csv or .parquet"."""
    names = list(FORMATS)
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)


def format_of(path: Path) -> Format:
    """The format of a file by its suffix, or a DataError naming the ones there are."""
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise DataError(f"unsupported format '{path.suffix}'; use one of {sorted(FORMATS)}", source=str(path))
    return found


def jsonl_records(path: Path, source: str) -> Records:
    with path.open("rb") as handle:
        # "\n" only: a JSON string may hold U+2028 raw, which str.splitlines would cut at
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"undecodable bytes {raw[exc.start:exc.start + 4]!r} at byte {exc.start}: "
                                "the file must be UTF-8", source=source, row=number, unit="line") from None
            if line.strip():
                yield number, jsonl_object(line, source, number)


def json_records(path: Path, source: str) -> Records:
    """A JSON array of objects (or JSON Lines in a .json file), parsed whole."""
    yield from enumerate(read_json(decoded(path.read_bytes(), source), source), start=1)


def csv_records(path: Path, source: str) -> Records:
    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)  # a context may be longer than csv's 131,072 default
    number = 0
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle, strict=True)
            for number, row in enumerate(reader, start=1):
                if None in row:
                    raise DataError("more values than header columns", source=source, row=number)
                yield number, {k: (v if v != "" else None) for k, v in row.items()}
    except csv.Error as exc:
        raise DataError(f"malformed CSV ({exc})", source=source, row=number + 1) from None
    except UnicodeDecodeError:
        raise DataError("undecodable bytes: the file must be UTF-8", source=source, row=number + 1) from None
    finally:
        csv.field_size_limit(limit)


def parquet_records(path: Path, source: str) -> Records:
    import pyarrow.parquet as pq

    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS)
        number = 0
        for batch in batches:
            for record in batch.to_pylist():
                number += 1
                yield number, {k: plain(v) for k, v in record.items()}
    except DataError:
        raise
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise DataError(f"cannot read Parquet: {exc}", source=source) from None


def decoded(raw: bytes, source: str) -> str:
    """UTF-8 text (a BOM dropped), or a DataError naming the line of the first bad byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise DataError(f"undecodable bytes {raw[exc.start:exc.start + 4]!r} at byte {exc.start}: "
                        "the file must be UTF-8", source=source, row=line, unit="line") from None


def plain(value: object) -> Any:
    """numpy arrays and NaN (from pandas, Arrow) become plain lists and None."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


JSONL = register(Format("jsonl", (".jsonl", ".ndjson"), jsonl_records, unit="line"))
JSON = register(Format("json", (".json",), json_records, streams=False))
CSV = register(Format("csv", (".csv",), csv_records))
PARQUET = register(Format("parquet", (".parquet",), parquet_records))
