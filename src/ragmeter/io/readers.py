"""Read a dataset from a file or an in-memory object into validated Samples.

Every problem is reported with the file, the row (or line) and the field, before any
judge call. Rows are read whole first so a bad row 900 fails in seconds, not hours.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ragmeter.errors import DataError
from ragmeter.io.cited import CITED_FIELDS, cited_samples, is_cited_file
from ragmeter.io.columns import LIST_FIELDS, STRUCTURED_FIELDS, resolve_columns
from ragmeter.io.formats import FORMATS, JSON, JSONL, format_of, plain, unit_of
from ragmeter.io.json_files import TooDeep, json_value, line_of
from ragmeter.samples import SAMPLE_FIELDS, Sample


class Rows(Protocol):
    """What a run reads of its data, whether the rows are held (Dataset) or read from the
    file a chunk at a time (stream.StreamedDataset)."""

    @property
    def source(self) -> str: ...
    @property
    def sha256(self) -> str | None: ...
    @property
    def fields_present(self) -> set[str]: ...
    @property
    def kind(self) -> str: ...
    def __len__(self) -> int: ...
    def ids(self) -> list[str]: ...
    def iter_rows(self) -> Iterator[tuple[Sample, dict[str, object]]]: ...


@dataclass
class Dataset:
    """Samples plus the raw records they came from (written back unchanged in results)."""

    samples: list[Sample]
    records: list[dict[str, Any]]
    source: str
    fields_present: set[str] = field(default_factory=set)
    sha256: str | None = None
    #: "rag" (one interaction per row) or "cited" (Pleias-style text + generated_response)
    kind: str = "rag"

    def __len__(self) -> int:
        return len(self.samples)

    def ids(self) -> list[str]:
        return [s.id for s in self.samples]

    def iter_rows(self) -> Iterator[tuple[Sample, dict[str, object]]]:
        """(Sample, the row as read), as stream.StreamedDataset gives them from a file."""
        return zip(self.samples, self.records)


def load_dataset(data: Any, *, columns: Mapping[str, str] | None = None) -> Dataset:
    """Load a path (jsonl/json/csv/parquet), a list of dicts, a DataFrame or an HF Dataset."""
    if isinstance(data, (str, Path)):
        path = data_file(Path(data))
        records, digest = read_records(path)
        return build_dataset(records, str(path), columns, digest)
    records = _records_from_object(data)
    return build_dataset(records, "<in-memory>", columns, _records_digest(records))


#: the data file of a folder ragmeter wrote: `answer`'s, `testset`'s, a run's
FOLDER_DATA = ("answers", "testset", "results")


def data_file(path: Path) -> Path:
    """A file as given; an answers, test-set or run folder as its one data file, so the
    folder one command wrote is what the next command reads."""
    if not path.is_dir():
        return path
    found = [path / f"{name}{suffix}" for name in FOLDER_DATA for suffix in FORMATS
             if (path / f"{name}{suffix}").is_file()]
    if len(found) == 1:
        return found[0]
    if not found:
        raise DataError("a folder without a data file: expected answers, testset or results "
                        f"({', '.join(FORMATS)}), or name a file", source=str(path))
    raise DataError(f"a folder with {len(found)} data files ({', '.join(f.name for f in found)}): name the one "
                    "to read", source=str(path))


def _records_digest(records: list[dict[str, object]]) -> str | None:
    """sha256 of in-memory rows (as canonical JSON), so their manifest names the data too."""
    try:
        text = json.dumps(records, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    except (TypeError, ValueError):
        return None


def read_records(path: Path, *, mapping: Mapping[str, str] | None = None) -> tuple[list[dict[str, object]], str]:
    """Read raw records from a file (io/formats.py), with the file's sha256 for the run
    manifest; a JSON Lines record keeps its `__line__`. A file of traces is read as one row
    per trace (`mapping`: fields from span attributes you name)."""
    fmt = format_of(path)
    if not path.is_file():
        raise DataError("file not found", source=str(path))
    from ragmeter.io.spans import is_otlp_lines

    if fmt in (JSON, JSONL) and is_otlp_lines(path):  # traces: a line at a time, not the file whole
        from ragmeter.io.traces import rows_from_otlp_file

        return rows_from_otlp_file(path, str(path), mapping), file_sha256(path)
    if _blank(path):
        raise DataError("file is empty: no rows to evaluate", source=str(path))
    records = [{**record, "__line__": number} if fmt.unit == "line" else record
               for number, record in fmt.records(path, str(path))]
    if not records:
        raise DataError("file has no rows to evaluate", source=str(path))
    from ragmeter.io.traces import rows_from_otlp, rows_from_phoenix, span_format

    spans = span_format(records[0])
    if spans == "otlp":  # OpenTelemetry traces: one row per trace (io/traces.py)
        records = rows_from_otlp(records, str(path), mapping)
    elif spans == "phoenix":  # spans exported from Arize Phoenix: one row per trace
        records = rows_from_phoenix(records, str(path), mapping)
    return records, file_sha256(path)


def _blank(path: Path) -> bool:
    """Nothing but whitespace (read a MiB at a time: a blank file is refused by name)."""
    with path.open("rb") as handle:
        return all(not block.strip() for block in iter(lambda: handle.read(1 << 20), b""))


def file_sha256(path: Path) -> str:
    """A file's sha256, read a MiB at a time (the run manifest's dataset hash)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _records_from_object(data: Any) -> list[dict[str, object]]:
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # pandas.DataFrame
        records = data.to_dict(orient="records")
    elif hasattr(data, "to_list") and hasattr(data, "features"):  # datasets.Dataset
        records = data.to_list()
    elif isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        records = list(data)
    else:
        raise DataError(f"cannot read a dataset from {type(data).__name__}; pass a path, "
                        "a list of dicts, a pandas DataFrame or a datasets.Dataset")
    if not records:
        raise DataError("dataset is empty: no rows to evaluate", source="<in-memory>")
    for number, obj in enumerate(records, start=1):
        if not isinstance(obj, Mapping):
            raise DataError(f"expected a dict, got {type(obj).__name__}", source="<in-memory>", row=number)
    return [{k: plain(v) for k, v in obj.items()} for obj in records]


def build_dataset(records: list[dict[str, object]], source: str,
                  columns: Mapping[str, str] | None, digest: str | None) -> Dataset:
    """Map columns and validate every row into a Sample."""
    all_columns = list(dict.fromkeys(k for r in records for k in r if k != "__line__"))
    unit = unit_of(source)
    for index, record in enumerate(records, start=1):
        check_encodable(record, source, line_of(record, index), unit)
    if is_cited_file(all_columns, dict(columns or {})):
        samples = cited_samples(records, source, unit)
        _check_unique_ids(samples, source)
        return Dataset(samples, records, source, set(CITED_FIELDS), digest, "cited")
    mapping = resolve_columns(all_columns, columns)
    samples, clean = [], []
    for index, record in enumerate(records, start=1):
        number = line_of(record, index, remove=True)
        samples.append(to_sample(record, mapping, source, number, index, unit))
        clean.append(record)
    _check_unique_ids(samples, source)
    present = {f for f in (*SAMPLE_FIELDS, "id", "metadata") if any(getattr(x, f) is not None for x in samples)}
    return Dataset(samples, clean, source, present, digest)


def to_sample(record: dict[str, object], mapping: dict[str, str], source: str,
               number: int, index: int, unit: str) -> Sample:
    values: dict[str, Any] = {}
    for canonical, column in mapping.items():
        value = record.get(column)
        if value is None:
            continue
        if canonical == "user_input" and isinstance(value, list):  # Ragas MultiTurnSample
            canonical = "messages"
        values[canonical] = _coerce(canonical, value, column, source, number, unit)
    values["id"] = str(values.get("id", f"row-{index}"))
    return Sample(**values)


def _coerce(canonical: str, value: Any, column: str, source: str, number: int, unit: str) -> Any:
    def fail(message: str) -> DataError:
        return DataError(message, source=source, row=number, field=column, unit=unit)

    if canonical in LIST_FIELDS:
        if isinstance(value, str):
            try:
                value = json_value(value)  # CSV stores lists as JSON strings
            except TooDeep as exc:
                raise fail(str(exc)) from None
            except json.JSONDecodeError:
                raise fail("expected a list of strings (in CSV: a JSON array string), got a plain string") from None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(f"expected a list of strings, got {_describe(value)}")
        return value
    if canonical in STRUCTURED_FIELDS:
        return _structured(canonical, value, fail)
    if canonical == "metadata":
        if isinstance(value, str):
            try:
                value = json_value(value)
            except TooDeep as exc:
                raise fail(str(exc)) from None
            except json.JSONDecodeError:
                raise fail("expected an object (in CSV: a JSON object string)") from None
        if not isinstance(value, dict):
            raise fail(f"expected an object, got {_describe(value)}")
        return value
    if canonical == "id":
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise fail(f"expected a string or integer id, got {_describe(value)}")
        return value
    if not isinstance(value, str):
        raise fail(f"expected a string, got {_describe(value)}")
    return value


def _structured(canonical: str, value: Any, fail: Any) -> Any:
    """Conversation turns, tool calls and relevance grades, checked by their pydantic types."""
    from pydantic import TypeAdapter, ValidationError

    if isinstance(value, str):
        try:
            value = json_value(value)  # CSV stores them as JSON text
        except TooDeep as exc:
            raise fail(str(exc)) from None
        except json.JSONDecodeError:
            raise fail("expected JSON (a list or an object), got plain text") from None
    try:
        return TypeAdapter(Sample.model_fields[canonical].annotation or Any).validate_python(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise fail(f"{where + ': ' if where else ''}{error['msg']}") from None


def check_encodable(record: dict[str, object], source: str, number: int, unit: str) -> None:
    """Refuse text UTF-8 cannot encode (a lone surrogate such as "\\ud800" in JSON) at load,
    not in the cache key or the results writer after the judge calls were paid for; say once
    per file that NaN or Infinity (which JSON has not) will be written back as null."""
    def bad(value: Any) -> bool:
        if isinstance(value, float) and not math.isfinite(value):
            _say_nonfinite(source, number, unit)
            return False
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
            return False
        if isinstance(value, dict):
            return any(bad(k) or bad(v) for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return any(bad(v) for v in value)
        return False

    for column, value in record.items():
        if bad(column) or bad(value):
            raise DataError("text that UTF-8 cannot encode (a lone surrogate such as \\ud800)",
                            source=source, row=number, field=str(column).encode("utf-8", "replace").decode(),
                            unit=unit)


_NONFINITE_SAID: set[str] = set()


def _say_nonfinite(source: str, number: int, unit: str) -> None:
    if source in _NONFINITE_SAID:
        return
    _NONFINITE_SAID.add(source)
    logging.getLogger("ragmeter").warning(
        "%s, %s %d (and maybe others): NaN or Infinity, which JSON has not: written back to the results as null",
        source, unit, number)


def _describe(value: Any) -> str:
    if isinstance(value, list):
        kinds = sorted({type(v).__name__ for v in value})
        return f"a list of {', '.join(kinds) or 'nothing'}"
    return type(value).__name__


def _check_unique_ids(samples: list[Sample], source: str) -> None:
    seen: dict[str, int] = {}
    for number, sample in enumerate(samples, start=1):
        if sample.id in seen:
            raise DataError(f"duplicate id '{sample.id}' (first at row {seen[sample.id]})",
                            source=source, row=number, field="id")
        seen[sample.id] = number
