"""Records held whole as validated Samples: the Dataset (and the Rows protocol a streamed
file shares), from a file's records (io/datasets.py) or an in-memory object.

Every problem is reported with the file, the row (or line) and the field, before any
judge call. Rows are checked whole first so a bad row 900 fails in seconds, not hours.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ragmeter.errors import DataError
from ragmeter.io.cited import CITED_FIELDS, CUT_OFF, FINISH, cited_samples, is_cited_file
from ragmeter.io.columns import LIST_FIELDS, STRUCTURED_FIELDS, resolve_columns
from ragmeter.io.formats import plain
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


def dataset_from_object(data: object, columns: Mapping[str, str] | None = None) -> Dataset:
    """A list of dicts, a DataFrame or an HF Dataset as a Dataset (a path comes in by
    io/datasets.py's `load_dataset`)."""
    records = _records_from_object(data)
    return build_dataset(records, "<in-memory>", columns, _records_digest(records), "row")


def _records_digest(records: list[dict[str, object]]) -> str | None:
    """sha256 of in-memory rows (as canonical JSON), so their manifest names the data too."""
    try:
        text = json.dumps(records, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    except (TypeError, ValueError):
        return None


def _records_from_object(data: object) -> list[dict[str, object]]:
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
                  columns: Mapping[str, str] | None, digest: str | None, unit: str) -> Dataset:
    """Map columns and validate every row into a Sample (`unit`: what an error's number counts)."""
    all_columns = list(dict.fromkeys(k for r in records for k in r if k != "__line__"))
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
    if record.get(FINISH) == "length":  # `answer` or `generate` marked it cut at max tokens
        values["response_problem"] = CUT_OFF
    return Sample(**values)


def _coerce(canonical: str, value: object, column: str, source: str, number: int, unit: str) -> Any:
    def fail(message: str) -> DataError:
        return DataError(message, source=source, row=number, field=column, unit=unit)

    if canonical in LIST_FIELDS:
        value = _decoded(value, fail, "expected a list of strings (in CSV: a JSON array string), got a plain string")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(f"expected a list of strings, got {_describe(value)}")
        return value
    if canonical in STRUCTURED_FIELDS:
        return _structured(canonical, value, fail)
    if canonical == "metadata":
        value = _decoded(value, fail, "expected an object (in CSV: a JSON object string)")
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

    value = _decoded(value, fail, "expected JSON (a list or an object), got plain text")
    try:
        return TypeAdapter(Sample.model_fields[canonical].annotation or Any).validate_python(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise fail(f"{where + ': ' if where else ''}{error['msg']}") from None


def _decoded(value: Any, fail: Any, plain_text: str) -> Any:
    """A CSV cell's JSON text decoded (CSV stores lists, objects and turns as JSON text);
    any other value as it is. `plain_text`: the error when the text is not JSON."""
    if not isinstance(value, str):
        return value
    try:
        return json_value(value)
    except TooDeep as exc:
        raise fail(str(exc)) from None
    except json.JSONDecodeError:
        raise fail(plain_text) from None


def check_encodable(record: dict[str, object], source: str, number: int, unit: str) -> None:
    """Refuse text UTF-8 cannot encode (a lone surrogate such as "\\ud800" in JSON) at load,
    not in the cache key or the results writer after the judge calls were paid for; say once
    per file that NaN or Infinity (which JSON has not) will be written back as null."""
    def bad(value: object) -> bool:
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


def _describe(value: object) -> str:
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
