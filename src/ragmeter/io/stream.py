"""A dataset file read in chunks, for runs that must not hold every row in memory.

Two passes check the whole file before any judge call, as readers.py does for rows held
whole: the first reads the columns (the column mapping needs them all), the second
validates every row into a Sample and finds repeated ids by 8-byte digests (8 bytes a row,
not a dict of ids). The run then reads the file a third time, a
chunk at a time. Memory: the digests, never the rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ragmeter.errors import DataError
from ragmeter.io.cited import is_cited_file
from ragmeter.io.columns import resolve_columns
from ragmeter.io.data_file import DataFile
from ragmeter.io.readers import check_encodable, to_sample
from ragmeter.samples import SAMPLE_FIELDS, Sample


@dataclass
class StreamedDataset:
    """A dataset file read again for each pass: the checks, then the run. Everything a run
    records about its data (source, sha256, rows, fields present) without the rows."""

    file: DataFile
    rows: int
    fields_present: set[str]
    mapping: dict[str, str]
    columns: list[str]
    limit: int | None = None
    shard: tuple[int, int] | None = None
    kind: str = "rag"
    _ids: list[str] | None = field(default=None, repr=False)

    @property
    def source(self) -> str:
        return self.file.source

    @property
    def sha256(self) -> str:
        return self.file.sha256()

    def __len__(self) -> int:
        return self.rows

    def iter_rows(self) -> Iterator[tuple[Sample, dict[str, object]]]:
        """(Sample, the row as read) in file order, after the limit and the shard."""
        for sample, record in self.iter_file():
            if self.shard is None or _in_shard(sample.id, self.shard):
                yield sample, record

    def iter_file(self) -> Iterator[tuple[Sample, dict[str, object]]]:
        """Every row up to the limit, whatever the shard."""
        for index, number, record in _selected(self.file, self.limit):
            yield to_sample(record, self.mapping, self.source, number, index, self.file.unit), record

    def ids(self) -> list[str]:
        """Every row's id, read from the file (for the few checks that need them all)."""
        if self._ids is None:
            self._ids = [sample.id for sample, _ in self.iter_rows()]
        return self._ids


def stream_file(file: DataFile, *, columns: Mapping[str, str] | None = None, limit: int | None = None,
                shard: str | None = None) -> StreamedDataset | None:
    """The file checked in two passes, ready to be read a chunk at a time; None for a
    Pleias-style cited file, which is held (io/datasets.py), as it is small by nature."""
    names = _columns(file, limit)
    if is_cited_file(names, dict(columns or {})):
        return None
    mapping = resolve_columns(names, columns)
    dataset = StreamedDataset(file, 0, set(), mapping, names, limit, _shard(shard) if shard else None)
    _validate(dataset)
    return dataset


def _shard(text: str) -> tuple[int, int]:
    from ragmeter.shard import parse_shard

    return parse_shard(text)


def _in_shard(row_id: str, shard: tuple[int, int]) -> bool:
    from ragmeter.shard import shard_of

    return shard_of(row_id, shard[1]) == shard[0]


def _columns(file: DataFile, limit: int | None) -> list[str]:
    """Pass 1: every column, in order of first appearance."""
    names: dict[str, None] = {}
    rows = 0
    for _, number, record in _selected(file, limit):
        rows += 1
        check_encodable(record, file.source, number, file.unit)
        names.update(dict.fromkeys(record))
    if not rows:
        raise DataError("file has no rows to evaluate", source=file.source)
    return list(names)


def _validate(dataset: StreamedDataset) -> None:
    """Pass 2: every row a valid Sample, no id twice, the fields present (over the whole file,
    so every shard of it runs the same metrics), the shard's row count."""
    from array import array

    digests = array("Q")
    present: set[str] = set()
    if dataset.shard is not None and "id" not in dataset.mapping:
        raise DataError("--shard needs an `id` column: row positions are not stable ids (add one, or map one "
                        "with --column id=YOUR_COLUMN)", source=dataset.source)
    rows = 0
    for sample, _ in dataset.iter_file():
        digests.append(int.from_bytes(hashlib.blake2b(sample.id.encode(), digest_size=8).digest(), "big"))
        present.update(f for f in (*SAMPLE_FIELDS, "id", "metadata") if getattr(sample, f) is not None)
        rows += dataset.shard is None or _in_shard(sample.id, dataset.shard)
    dataset.rows = rows
    dataset.fields_present = present
    if len(set(digests)) != len(digests):
        _name_duplicate(dataset)


def _name_duplicate(dataset: StreamedDataset) -> None:
    """The rare case: read again to name the repeated id and both of its rows."""
    seen: dict[str, int] = {}
    for position, (sample, _) in enumerate(dataset.iter_file(), start=1):
        if sample.id in seen:
            raise DataError(f"duplicate id '{sample.id}' (first at row {seen[sample.id]})",
                            source=dataset.source, row=position, field="id")
        seen[sample.id] = position


def _selected(file: DataFile, limit: int | None) -> Iterator[tuple[int, int, dict[str, object]]]:
    """(position from 1, line or row number, record) for the first `limit` rows."""
    for index, (number, record) in enumerate(file.iter_records(), start=1):
        if limit is not None and index > limit:
            return
        yield index, number, record
