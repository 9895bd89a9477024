"""Where a run's rows go as they finish: a file on disk (`ResultsFile`) or a list
(`RowList`, the API's run without `out`); a written run's rows read back when used (`OnDisk`).

A results file is written as JSON Lines to a hidden temporary file beside it, flushed as
rows finish, and renamed into place by `commit()` (CSV and Parquet are converted from it in
chunks then: their columns and Parquet's schema are known only once every row is). A run
that stops leaves no half-written results file: `abort()` removes the temporary one, and a
re-run resumes from the judge cache. A run killed outright (SIGKILL, power loss) cannot clean
up: its temporary file names its process id, and the next run into the folder removes the
files of processes no longer alive.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ragmeter.errors import ConfigError
from ragmeter.io.writers import FORMATS, csv_cell, csv_header, current_umask, parquet_value, unwritable_reason
from ragmeter.text import json_text, redact, secret_values

if TYPE_CHECKING:
    import pyarrow as pa


class Scored(Protocol):
    """A metric's score as the results file stores it (metrics.base.Score, frozen)."""

    @property
    def value(self) -> float | None: ...

    @property
    def reason(self) -> str: ...

    @property
    def evidence(self) -> dict[str, object]: ...


#: rows converted at a time from the temporary JSONL to CSV or Parquet
CHUNK_ROWS = 2048


class RowSink(Protocol):
    """Where an engine puts each finished row, in dataset order (RowList, ResultsFile, a Ray
    worker's ScoreList): a failed call's row is scored again at the end and patched in place."""

    @property
    def count(self) -> int: ...

    def add(self, row_id: str, record: dict[str, object], scores: Mapping[str, Scored]) -> None: ...

    def patch(self, index: int, record: dict[str, object], scores: Mapping[str, Scored]) -> None: ...


def result_row(record: dict[str, object], scores: Mapping[str, Scored], metric_names: list[str]) -> dict[str, object]:
    """The row as read plus, per metric, its score, reason and evidence."""
    row = dict(record)
    for name in metric_names:
        score = scores[name]
        row[name] = score.value
        row[f"{name}_reason"] = score.reason
        row[f"{name}_evidence"] = score.evidence
    return row


class RowList:
    """Rows kept in memory, in dataset order."""

    def __init__(self, metric_names: list[str]) -> None:
        self.names = metric_names
        self.rows: list[dict[str, Any]] = []
        self.ids: list[str] = []

    def add(self, row_id: str, record: dict[str, object], scores: Mapping[str, Scored]) -> None:
        self.rows.append(result_row(record, scores, self.names))
        self.ids.append(row_id)

    @property
    def count(self) -> int:
        return len(self.rows)

    def patch(self, index: int, record: dict[str, object], scores: Mapping[str, Scored]) -> None:
        """The row at `index` scored again (a failed judge call retried at the end of the run)."""
        self.rows[index] = result_row(record, scores, self.names)


class OnDisk(Sequence[Any]):
    """A written run's rows (or ids): their count known, their content read from the results
    file only when used, so a million-row run returns without holding its rows."""

    def __init__(self, length: int, load: Callable[[], list[Any]]) -> None:
        self._length, self._load = length, load
        self._items: list[Any] | None = None

    def _all(self) -> list[Any]:
        if self._items is None:
            self._items = self._load()
        return self._items

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (list, OnDisk)) else NotImplemented


class ResultsFile:
    """Rows appended to a temporary JSONL beside `results.<fmt>` as they finish."""

    def __init__(self, out_dir: Path, fmt: str, metric_names: list[str]) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}")
        self.path, self.fmt, self.names, self.rows = out_dir / f"results.{fmt}", fmt, metric_names, 0
        sweep_stale(out_dir)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".results.{os.getpid()}.", suffix=".jsonl.partial", dir=out_dir)
        except OSError as exc:
            raise ConfigError(f"cannot write {self.path}: {unwritable_reason(exc, self.path)}") from None
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; results follow the user's umask
        self.tmp = Path(tmp)
        self.handle = os.fdopen(fd, "wb", buffering=1 << 20)
        #: lines to replace at commit, by row index (rows whose failed judge call was retried)
        self.patches: dict[int, bytes] = {}
        self._secrets = secret_values()  # read once, not per row

    @property
    def count(self) -> int:
        return self.rows

    def patch(self, index: int, record: dict[str, object], scores: Mapping[str, Scored]) -> None:
        """The row at `index` scored again: its line is replaced when the file is committed."""
        self.patches[index] = redact(json_text(result_row(record, scores, self.names)), self._secrets).encode("utf-8")

    def add(self, row_id: str, record: dict[str, object], scores: Mapping[str, Scored]) -> None:
        self.add_line(redact(json_text(result_row(record, scores, self.names)), self._secrets).encode("utf-8"))

    def add_line(self, line: bytes) -> None:
        """A row already written as one line of JSON (`merge` passes shards' lines through)."""
        try:
            self.handle.write(line + b"\n")
        except OSError as exc:
            raise _cannot_write(f"cannot write {self.path} (row {self.rows + 1}): {exc.strerror or exc}. "
                                "Finished judge replies are in the cache: run again to resume", exc) from None
        self.rows += 1

    def commit(self) -> Path:
        """The results file in place, whole; the temporary one gone."""
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()
            if self.patches:
                self._apply_patches()
            if self.fmt == "jsonl":
                os.replace(self.tmp, self.path)
            else:
                self._convert()
        except OSError as exc:
            self.abort()
            raise _cannot_write(f"cannot write {self.path}: {exc.strerror or exc}. Finished judge replies are in "
                                "the cache: run again to resume", exc) from None
        return self.path

    def _apply_patches(self) -> None:
        """The temporary file again, with the patched rows' lines replaced (one pass)."""
        fd, patched = tempfile.mkstemp(prefix=f".results.{os.getpid()}.", suffix=".jsonl.partial",
                                       dir=self.path.parent)
        with os.fdopen(fd, "wb", buffering=1 << 20) as out, self.tmp.open("rb") as source:
            for index, line in enumerate(source):
                out.write(self.patches[index] + b"\n" if index in self.patches else line)
        os.chmod(patched, 0o666 & ~current_umask())
        os.replace(patched, self.tmp)

    def abort(self) -> None:
        """The temporary file gone, whatever state the disk is in: on a full disk closing the
        handle fails too (its buffer cannot be flushed), and that must not hide the first error."""
        if not self.handle.closed:
            try:
                self.handle.close()
            except OSError:
                try:
                    os.close(self.handle.fileno())
                except (OSError, ValueError):
                    pass
        self.tmp.unlink(missing_ok=True)

    def _convert(self) -> None:
        fd, out = tempfile.mkstemp(prefix=f".results.{os.getpid()}.{self.fmt}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        try:
            (_write_csv if self.fmt == "csv" else _write_parquet)(self.tmp, Path(out))
            os.chmod(out, 0o666 & ~current_umask())
            os.replace(out, self.path)
        finally:
            Path(out).unlink(missing_ok=True)
            self.tmp.unlink(missing_ok=True)


def _cannot_write(message: str, exc: OSError) -> Exception:
    """A full disk or an I/O error is the machine's failure (exit 3); anything else the path's (exit 2)."""
    import errno

    from ragmeter.errors import ServiceError

    machine = exc.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT)
    return ServiceError(message) if machine else ConfigError(message)


def sweep_stale(out_dir: Path) -> list[Path]:
    """Remove temporary results files left by runs killed before they could clean up."""
    removed = []
    for path in out_dir.glob(".results.*"):
        parts = path.name.split(".")
        if len(parts) > 3 and parts[2].isdigit() and not _alive(int(parts[2])):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _chunks(path: Path) -> Iterator[list[dict[str, object]]]:
    with path.open("rb") as handle:
        chunk: list[dict[str, Any]] = []
        for line in handle:
            chunk.append(json.loads(line))
            if len(chunk) == CHUNK_ROWS:
                yield chunk
                chunk = []
        if chunk:
            yield chunk


def _write_csv(source: Path, out: Path) -> None:
    """Columns in order of first appearance over every row, as writers.py writes them."""
    import csv

    columns: dict[str, None] = {}
    for chunk in _chunks(source):
        for row in chunk:
            columns.update(dict.fromkeys(row))
    with out.open("w", encoding="utf-8", newline="") as handle:
        csv_header(csv.writer(handle, lineterminator="\r\n"), list(columns))
        writer = csv.DictWriter(handle, fieldnames=list(columns), lineterminator="\r\n")  # RFC 4180, as writers.py
        for chunk in _chunks(source):
            writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in chunk)


def _write_parquet(source: Path, out: Path) -> None:
    """One row group per chunk, under the schema every chunk's inferred schema unifies to."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schemas = [_table(chunk).schema for chunk in _chunks(source)]
    schema = pa.unify_schemas(schemas, promote_options="permissive")
    with pq.ParquetWriter(out, schema) as writer:
        for chunk in _chunks(source):
            writer.write_table(_conform(_table(chunk), schema))


def _table(rows: list[dict[str, object]]) -> pa.Table:
    import pyarrow as pa

    columns = list(dict.fromkeys(k for r in rows for k in r))
    return pa.table({c: [parquet_value(r.get(c), c) for r in rows] for c in columns})


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A chunk's table with every column of `schema`, in its order and types (absent: nulls)."""
    import pyarrow as pa

    arrays = [table.column(f.name).cast(f.type) if f.name in table.column_names else pa.nulls(len(table), f.type)
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)
