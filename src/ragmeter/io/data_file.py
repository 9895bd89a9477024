"""A data file opened once: the path resolved (a folder ragmeter wrote becomes its one data
file), its format asked once (io/formats.py, the one place that knows suffixes and units),
what its records are found once (rows, or a span export read as one row per trace), its
sha256 read once. The dataset door (io/datasets.py) and every package that reads raw
records (answers, labels, documents, traces, results) open files here."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ragmeter.errors import DataError
from ragmeter.io.formats import FORMATS, JSON, JSONL, Format, Records, format_of
from ragmeter.io.spans import OTLP_KEY

#: the data file of a folder ragmeter wrote: `answer`'s, `testset`'s, a run's
FOLDER_DATA = ("answers", "testset", "results")


@dataclass
class DataFile:
    """One data file and what was learned of it, so nothing is asked twice."""

    path: Path
    format: Format
    #: "rows", or a span export read as one row per trace: "otlp" or "phoenix"
    _kind: str | None = field(default=None, repr=False)
    #: an OTLP file whose lines are export requests (read a line at a time)
    _otlp_lines: bool | None = field(default=None, repr=False)
    _sha256: str | None = field(default=None, repr=False)

    @property
    def source(self) -> str:
        return str(self.path)

    @property
    def unit(self) -> str:
        """What an error in this file counts: "line" (JSON Lines) or "row"."""
        return self.format.unit

    def sha256(self) -> str:
        """The file's sha256 (the run manifest's dataset hash), read once."""
        if self._sha256 is None:
            self._sha256 = file_sha256(self.path)
        return self._sha256

    def kind(self) -> str:
        """"rows", "otlp" or "phoenix", from the first record (cheap for a format that
        streams; a JSON array is parsed whole, so `records()` tells it for one)."""
        if self._kind is None:
            if self._is_otlp_lines():
                self._kind = "otlp"
            else:
                self._kind = _span_format(next(iter(self.iter_records()), (0, {}))[1])
        return self._kind

    def iter_records(self) -> Records:
        """(line or row number, record), a chunk at a time where the format can."""
        return self.format.records(self.path, self.source)

    def records(self, mapping: Mapping[str, str] | None = None) -> list[dict[str, object]]:
        """Every record, held: a JSON Lines record keeps its `__line__`; a span export
        becomes one row per trace (`mapping`: fields from span attributes you name)."""
        if self._is_otlp_lines():  # a line at a time, not the file whole
            from ragmeter.io.traces import rows_from_otlp_file

            self._kind = "otlp"
            return rows_from_otlp_file(self.path, self.source, mapping)
        records = [{**record, "__line__": number} if self.unit == "line" else record
                   for number, record in self.iter_records()]
        if not records:
            raise DataError("file has no rows to evaluate", source=self.source)
        self._kind = self._kind or _span_format(records[0])
        if self._kind == "rows":
            return records
        from ragmeter.io.traces import rows_from_otlp, rows_from_phoenix

        return (rows_from_otlp if self._kind == "otlp" else rows_from_phoenix)(records, self.source, mapping)

    def _is_otlp_lines(self) -> bool:
        if self._otlp_lines is None:
            self._otlp_lines = self.format in (JSON, JSONL) and is_otlp_lines(self.path)
        return self._otlp_lines


def open_data_file(path: str | Path) -> DataFile:
    """The file (or the data file of a folder ragmeter wrote) with its format; a DataError
    naming it when the format is unknown, the file missing or blank."""
    path = resolve_folder(Path(path))
    fmt = format_of(path)
    if not path.is_file():
        raise DataError(_not_a_file(path), source=str(path))
    if _blank(path):
        raise DataError("file is empty: no rows to evaluate", source=str(path))
    return DataFile(path, fmt)


def _not_a_file(path: Path) -> str:
    """Why `path` is not a data file, as a user would fix it (a FIFO, a device or a symlink
    loop read as "file not found", which sent users looking for a typo)."""
    import stat

    if path.is_symlink() and not path.exists():
        return "a symbolic link that loops or leads to no file"
    try:
        mode = path.stat().st_mode
    except OSError:
        return "file not found"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a file: write the rows to a file and give that"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file: write the rows to a file and give that"
    if stat.S_ISSOCK(mode):
        return "a socket, not a file"
    return "not a regular file"


def resolve_folder(path: Path) -> Path:
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


def file_sha256(path: Path) -> str:
    """A file's sha256, read a MiB at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _span_format(first: Mapping[str, object]) -> str:
    """"otlp" or "phoenix" when a file's first record is a span export rather than a row (an
    OTLP export request; Phoenix's spans from its REST API, `context: {trace_id, span_id}`, or
    its spans dataframe, `context.trace_id` columns), else "rows"."""
    if OTLP_KEY in first:
        return "otlp"
    context = first.get("context")
    nested = isinstance(context, dict) and "trace_id" in context
    return "phoenix" if "span_kind" in first and ("context.trace_id" in first or nested) else "rows"


def is_otlp_lines(path: Path) -> bool:
    """A file whose first line is one OTLP request (the Collector's file exporter, or the
    exporter in docs/data.md): it can be read a line at a time."""
    with open(path, "rb") as handle:
        first = handle.readline(1 << 20)
    return first.lstrip().startswith(b"{") and first.rstrip().endswith(b"}") and OTLP_KEY.encode() in first[:200]


def _blank(path: Path) -> bool:
    """Nothing but whitespace (read a MiB at a time: a blank file is refused by name)."""
    with path.open("rb") as handle:
        return all(not block.strip() for block in iter(lambda: handle.read(1 << 20), b""))
