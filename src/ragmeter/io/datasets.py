"""The one door a dataset comes in by: a path (a file in any format io/formats.py registers,
or a folder ragmeter wrote) or an in-memory object, opened once (io/data_file.py), its
record kind picked once (rows, cited, OTLP or Phoenix traces), then held (io/readers.py) or
read a chunk at a time (io/stream.py). Every package that needs a dataset calls
`load_dataset`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Literal, overload

from ragmeter.io.data_file import open_data_file
from ragmeter.io.readers import Dataset, build_dataset, dataset_from_object
from ragmeter.io.stream import StreamedDataset, stream_file


@overload
def load_dataset(data: object, *, columns: Mapping[str, str] | None = None, stream: Literal[False] = False,
                 limit: int | None = None, shard: str | None = None) -> Dataset: ...
@overload
def load_dataset(data: object, *, columns: Mapping[str, str] | None = None, stream: bool,
                 limit: int | None = None, shard: str | None = None) -> Dataset | StreamedDataset: ...


def load_dataset(data: object, *, columns: Mapping[str, str] | None = None, stream: bool = False,
                 limit: int | None = None, shard: str | None = None) -> Dataset | StreamedDataset:
    """Rows checked whole before any judge call. `data`: a path, a list of dicts, a pandas
    DataFrame or a datasets.Dataset; `columns`: FIELD -> COLUMN; `stream`: a file whose format
    reads in chunks (JSON Lines, CSV, Parquet) is not held but read again when run (a cited
    file and traces are held: they are small, or become rows only whole); `limit`: the first
    N rows; `shard`: "i/n", the rows whose id hashes to shard i."""
    if not isinstance(data, (str, Path)):
        return _cut(dataset_from_object(data, columns), limit, shard)
    file = open_data_file(data)
    if stream and file.format.streams and file.kind() == "rows":
        streamed = stream_file(file, columns=columns, limit=limit, shard=shard)
        if streamed is not None:
            return streamed
    return _cut(build_dataset(file.records(), file.source, columns, file.sha256(), file.unit), limit, shard)


def _cut(dataset: Dataset, limit: int | None, shard: str | None) -> Dataset:
    """The first `limit` rows, then the shard's (the whole file was checked first)."""
    if limit:
        dataset = replace(dataset, samples=dataset.samples[:limit], records=dataset.records[:limit])
    if shard:
        from ragmeter.shard import take_shard

        dataset = take_shard(dataset, shard)
    return dataset
