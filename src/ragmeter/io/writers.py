"""Results and manifest, written atomically: a temp file in the same folder, then rename.

Output contract: `results.<fmt>` holds the input rows unchanged plus, per metric, a column
named exactly as the metric (the score, null when unscored), `<metric>_reason` and
`<metric>_evidence` (JSON text in CSV and Parquet, an object in JSONL).
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

FORMATS = ("jsonl", "csv", "parquet")


def jsonl_bytes(rows: list[dict[str, object]]) -> bytes:
    """Rows as JSON Lines (UTF-8, one object per line), known secrets redacted."""
    return b"".join(jsonl_lines(rows))


def jsonl_lines(rows: Iterable[dict[str, object]]) -> Iterator[bytes]:
    """jsonl_bytes a line at a time, for atomic_write_bytes to write as they come."""
    from ragmeter.text import redact, secret_values

    known = secret_values()
    for row in rows:
        yield (redact(json.dumps(row, ensure_ascii=False), known) + "\n").encode("utf-8")


def write_results(rows: list[dict[str, object]], out_dir: Path, fmt: str) -> Path:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}")
    path = out_dir / f"results.{fmt}"
    if fmt == "jsonl":
        atomic_write_bytes(path, jsonl_bytes(rows))
    elif fmt == "csv":
        atomic_write_bytes(path, _csv_bytes(rows))
    else:
        atomic_write_bytes(path, parquet_bytes(rows))
    return path


def _flat(value: object) -> Any:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value


#: a text cell starting with one of these is a formula to a spreadsheet (OWASP's CSV injection)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> Any:
    """A value (or a column name) as a results CSV holds it: lists and objects as JSON, and
    text a spreadsheet would run as a formula prefixed with a single quote, as OWASP
    recommends (`read_cell` takes it off when ragmeter reads its own results back). Text that
    already starts with quotes before a formula gets one more, so reading it back is exact."""
    value = _flat(value)
    return "'" + value if isinstance(value, str) and value.lstrip("'").startswith(FORMULA_STARTS) else value


def read_cell(value: object) -> Any:
    """A results CSV cell (or column name) as written before `csv_cell` quoted it."""
    if isinstance(value, str) and value.startswith("'") and value.lstrip("'").startswith(FORMULA_STARTS):
        return value[1:]
    return value


def csv_header(writer: Any, columns: list[str]) -> None:
    """The header row, its names quoted as cells are (a dataset column named `=HYPERLINK(...)`)."""
    writer.writerow([csv_cell(c) for c in columns])


def _csv_bytes(rows: list[dict[str, object]]) -> bytes:
    columns = list(dict.fromkeys(k for r in rows for k in r))
    buffer = io.StringIO()
    # RFC 4180's CRLF: Python's csv quotes a field holding any character of the line
    # terminator, so a bare "\r" in a field is quoted too (with "\n" alone it was not, and the
    # file read back with more rows than it has)
    csv_header(csv.writer(buffer, lineterminator="\r\n"), columns)
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\r\n")
    for row in rows:
        writer.writerow({k: csv_cell(v) for k, v in row.items()})
    return buffer.getvalue().encode("utf-8")


def parquet_bytes(rows: list[dict[str, object]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = list(dict.fromkeys(k for r in rows for k in r))
    data = {c: [parquet_value(r.get(c), c) for r in rows] for c in columns}
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(data), sink)
    return sink.getvalue().to_pybytes()


def parquet_value(value: object, column: str) -> Any:
    """Evidence is heterogeneous: JSON text keeps one schema per column."""
    return _flat(value) if column.endswith(("_evidence", "metadata")) else value


def write_json(path: Path, obj: object) -> None:
    """`obj` as JSON, whole or not at all, with known secrets redacted (text.redact)."""
    write_redacted(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def write_redacted(path: Path, page: bytes | str) -> None:
    """A text file (a report page, a summary, JUnit XML) written whole, known secrets redacted."""
    from ragmeter.text import redact

    text = page.decode("utf-8") if isinstance(page, bytes) else page
    atomic_write_bytes(path, redact(text).encode("utf-8"))


def current_umask() -> int:
    """The process umask (it can only be read by setting it, so set it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Write `data` (bytes, or pieces of it written as they come: a large file never whole in
    memory) to `path` whole or not at all (a temporary file renamed over it). The rule
    for what is already there: a regular file is replaced; a symlink is written through (its
    target is replaced, the link kept); a folder, FIFO, device or socket is refused, never
    replaced. A path that cannot be written is one ConfigError line naming it."""
    from ragmeter.errors import ConfigError

    target = _target(path)
    make_folder(target.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {unwritable_reason(exc, target)}") from None
    try:
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; results follow the user's umask
        with os.fdopen(fd, "wb", buffering=1 << 20) as handle:
            for piece in [data] if isinstance(data, bytes) else data:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise ConfigError(f"cannot write {path}: {unwritable_reason(exc, target)}") from None
        raise


def check_writable(path: Path, what: str) -> None:
    """Before any judge call: `path` can take a file (as atomic_write_bytes will write it), or
    one ConfigError line naming `what` (the flag) and why not."""
    from ragmeter.errors import ConfigError

    if path.name in ("", ".", ".."):
        raise ConfigError(f"{what}: {path} names a folder; name a file")
    try:
        target = _target(path)
    except ConfigError as exc:
        raise ConfigError(f"{what}: {exc}") from None
    make_folder(target.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".check", dir=target.parent)
    except OSError as exc:
        raise ConfigError(f"{what}: cannot write {path}: {unwritable_reason(exc, target)}") from None
    os.close(fd)
    os.unlink(tmp)
    if len(target.name.encode()) > 255:
        raise ConfigError(f"{what}: cannot write {str(path)[:80]}…: the file name is over 255 bytes")


def check_not_source(out: Path, source: Path, what: str) -> None:
    """`out` is not the file being read (writing it would replace the input with the output)."""
    from ragmeter.errors import ConfigError

    try:
        same = out.exists() and source.exists() and os.path.samefile(out, source)
    except OSError:
        same = False
    if same:
        raise ConfigError(f"{what} {out} is the file being read: write the rows elsewhere")


def make_folder(folder: Path) -> Path:
    """`folder` and its parents, or one ConfigError line saying why not (a file in the way, a
    read-only place)."""
    from ragmeter.errors import ConfigError

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot make folder {folder}: {unwritable_reason(exc, folder / '_')}") from None
    return folder


def _target(path: Path) -> Path:
    """Where a write to `path` lands, or a ConfigError when it must not be replaced."""
    import stat

    from ragmeter.errors import ConfigError

    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {unwritable_reason(exc, target)}") from None
    if stat.S_ISDIR(mode):
        raise ConfigError(f"cannot write {path}: it is a folder; name a file")
    if not stat.S_ISREG(mode):
        raise ConfigError(f"cannot write {path}: it is not a regular file (a FIFO, device or socket), "
                          "and ragmeter never replaces one")
    return target


def unwritable_reason(exc: OSError, path: Path) -> str:
    """The reason a path cannot be written, naming the file in the way when there is one."""
    blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    return f"{blocker} is a file, not a folder" if blocker is not None else exc.strerror or str(exc)
