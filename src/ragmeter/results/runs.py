"""A finished run read back from its folder (manifest.json + results file), for `compare`,
`report` and the CI gates. Rows are keyed by the dataset's id, as the run saw it.

Scores are read first and alone (a JSONL file's score columns through pyarrow's JSON
reader, which skips the evidence): comparing two 100,000-row runs needs the scores of
every row but the full rows (reasons, evidence) of only the few that changed most. Full
rows are parsed when first asked for; a JSONL run keeps only where each row's line starts
(8 bytes a row) and reads a line when its row is asked for.
"""

from __future__ import annotations

import json
import math
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError
from ragmeter.io.formats import unit_of
from ragmeter.results.manifest import Manifest


@dataclass
class Run:
    """One run: its manifest, each row's id and scores, and its rows (parsed on demand)."""

    manifest: Manifest
    ids: list[str]
    source: str
    scores: dict[str, list[float | None]]
    _rows: list[dict[str, Any]] | None = field(default=None, repr=False)
    _offsets: array | None = field(default=None, repr=False)  # JSONL: where each row's line starts
    _results: str = ""
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {row_id: n for n, row_id in enumerate(self.ids)}

    @classmethod
    def from_rows(cls, manifest: Manifest, rows: list[dict[str, Any]], ids: list[str], source: str) -> Run:
        """A run held in memory (the API's result, a test's rows)."""
        scores = {m: [_score(r.get(m), source, n, m) for n, r in enumerate(rows, start=1)] for m in manifest.metrics}
        return cls(manifest, ids, source, scores, _rows=rows)

    @property
    def metrics(self) -> list[str]:
        return list(self.manifest.metrics)

    @property
    def rows(self) -> list[dict[str, Any]]:
        if self._rows is None:
            lines = self._read_lines(list(range(len(self.ids))))
            self._rows = [parse_result_line(line, self.manifest, self._results, n)
                          for n, line in enumerate(lines, start=1)]
        return self._rows

    def json_lines(self, indexes: list[int] | None = None) -> list[bytes]:
        """These rows (all by default) as lines of JSON (a JSONL file's own lines, unparsed),
        for the report."""
        wanted = range(len(self.ids)) if indexes is None else indexes
        if self._offsets is not None:
            return self._read_lines(list(wanted))
        try:
            return [json.dumps(self.rows[n], ensure_ascii=False, allow_nan=False).encode("utf-8") for n in wanted]
        except ValueError as exc:
            raise DataError(f"a row holds a value JSON cannot (NaN or infinity): {exc}", source=self.source) from None

    def row(self, row_id: str) -> dict[str, Any]:
        index = self._index[row_id]
        return self._rows[index] if self._rows is not None else self._parse(index)

    def position(self, row_id: str) -> int | None:
        """The row's index in this run, None when the run has no such row."""
        return self._index.get(row_id)

    def score(self, row_id: str, metric: str) -> float | None:
        return self.scores[metric][self._index[row_id]]

    def text_columns(self, names: list[str]) -> dict[str, list[str | None]] | None:
        """Text columns of a JSONL run read by pyarrow without parsing its rows (evidence and
        all: 100,000 rows parsed one by one take seconds); None where they are not all text."""
        if self._rows is not None or not self._results.endswith(".jsonl"):
            return None
        import pyarrow as pa
        import pyarrow.json as pj

        schema = pa.schema([(n, pa.string()) for n in dict.fromkeys(names)])
        options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
        try:
            table = pj.read_json(self._results, parse_options=options)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
            return None
        return {n: table.column(n).to_pylist() for n in names} if table.num_rows == len(self.ids) else None

    def _parse(self, index: int) -> dict[str, Any]:
        return parse_result_line(self._read_lines([index])[0], self.manifest, self._results, index + 1)

    def _read_lines(self, indexes: list[int]) -> list[bytes]:
        assert self._offsets is not None
        lines: dict[int, bytes] = {}
        with open(self._results, "rb") as handle:
            for n in sorted(set(indexes)):
                handle.seek(self._offsets[n])
                lines[n] = handle.readline().rstrip(b"\r\n")
        return [lines[n] for n in indexes]


def load_run(path: str | Path) -> Run:
    """A run folder (or its manifest.json). Scores from CSV come back as numbers and evidence
    as objects, as from JSONL."""
    manifest, results, folder = read_run_manifest(path)
    return open_results(manifest, results, folder)


def read_run_manifest(path: str | Path) -> tuple[Manifest, Path, str]:
    """A run folder's manifest, its results file and the folder, nothing read of its rows."""
    path = Path(path)
    folder = path.parent if path.name == "manifest.json" else path
    manifest_path = folder / "manifest.json"
    if not folder.is_dir():
        raise DataError("run folder not found", source=str(folder))
    if not manifest_path.is_file():
        raise DataError("no manifest.json: not a ragmeter run folder (run `ragmeter evaluate ... --out "
                        "DIR` to make one)", source=str(folder))
    manifest = _read_manifest(manifest_path)
    if not manifest.results_file:
        raise DataError("the manifest names no results file (a run from the Python API without `out`?)",
                        source=str(manifest_path))
    return manifest, folder / manifest.results_file, str(folder)


def open_results(manifest: Manifest, results: Path, folder: str) -> Run:
    """A run from its manifest and results file (the API's written run reads itself back so)."""
    id_column = manifest.config.get("columns", {}).get("id", "id")
    if results.suffix == ".jsonl" and results.is_file():
        return _load_jsonl(manifest, results, id_column, folder)
    from ragmeter.io.data_file import open_data_file

    if results.suffix == ".parquet" and results.is_file():
        _check_parquet_scores(results, manifest)
    records = open_data_file(results).records()
    if results.suffix == ".csv":  # cells a spreadsheet would run were quoted when written
        from ragmeter.io.writers import read_cell

        records = [{read_cell(k): read_cell(v) for k, v in r.items()} for r in records]
    if records:
        check_columns(records[0], manifest, str(results))
    rows = [typed_row(r, manifest, str(results), n) for n, r in enumerate(records, start=1)]
    return Run.from_rows(manifest, rows, _ids(rows, id_column), folder)


def _check_parquet_scores(results: Path, manifest: Manifest) -> None:
    """A NaN score in Parquet refused as in JSONL: the data reader turns NaN into None (a
    missing cell in a user's table), which here would read as an unscored row."""
    import pyarrow.parquet as pq

    try:
        names = set(pq.read_schema(results).names)
        table = pq.read_table(results, columns=[m for m in manifest.metrics if m in names])
    except Exception:  # noqa: BLE001 - a damaged file is said by the reader below, with its name
        return
    check_scores({m: table.column(m).to_pylist() for m in table.column_names}, manifest, str(results))


def check_columns(first: dict[str, Any], manifest: Manifest, source: str) -> None:
    """Every metric the manifest lists has its column (an unscored row holds it empty): a
    deleted column would read as every row unscored."""
    missing = [m for m in manifest.metrics if m not in first]
    if missing:
        raise DataError(f"no column {', '.join(repr(m) for m in missing)}, which the run's manifest lists (a "
                        "results file edited by hand?)", source=source)


def _load_jsonl(manifest: Manifest, results: Path, id_column: str, folder: str) -> Run:
    offsets = _line_starts(results)
    if not offsets and manifest.dataset.rows == 0:  # a valid run of no rows: an empty shard, say
        return Run.from_rows(manifest, [], [], folder)
    if not offsets:
        raise DataError(f"file is empty, but the manifest says {manifest.dataset.rows} rows", source=str(results))
    with results.open("rb") as handle:
        first = next((line for line in handle if line.strip()), b"{}")
    try:
        check_columns(json.loads(first), manifest, str(results))
    except ValueError:
        pass  # not JSON: said with its line number below
    columns = _score_columns(results, manifest, id_column)
    if columns is None:  # a file pyarrow cannot read by schema: parse every row
        with results.open("rb") as handle:
            rows = [parse_result_line(line, manifest, str(results), n)
                    for n, line in enumerate((line for line in handle if line.strip()), start=1)]
        return Run.from_rows(manifest, rows, _ids(rows, id_column), folder)
    ids, scores = columns
    if len(ids) != len(offsets):
        raise DataError(f"{len(offsets)} lines but {len(ids)} rows read", source=str(results))
    check_scores(scores, manifest, str(results))
    return Run(manifest, ids, folder, scores, _offsets=offsets, _results=str(results))


def _line_starts(path: Path) -> array:
    """Where each non-blank line of a JSONL file starts, read once through."""
    starts, position = array("Q"), 0
    with path.open("rb") as handle:
        for line in handle:
            if line.strip():
                starts.append(position)
            position += len(line)
    return starts


def _score_columns(results: Path, manifest: Manifest,
                   id_column: str) -> tuple[list[str], dict[str, list[float | None]]] | None:
    """The id and score columns through pyarrow's JSON reader; None when the file does not
    fit that schema (e.g. numeric ids), so the caller parses it row by row."""
    import pyarrow as pa
    import pyarrow.json as pj

    fields = [(id_column, pa.string())] + [(m, pa.float64()) for m in manifest.metrics if m != id_column]
    options = pj.ParseOptions(explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore")
    try:
        table = pj.read_json(results, parse_options=options)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    ids = table.column(id_column).to_pylist()
    if any(i is None for i in ids):
        return None  # no id column: row-N ids, as the run gave them
    return ids, {m: table.column(m).to_pylist() for m in manifest.metrics}


def parse_result_line(line: bytes, manifest: Manifest, source: str, number: int) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise DataError(f"not valid JSON: {exc}", source=source, row=number, unit="line") from None
    return typed_row(record, manifest, source, number)


def _ids(rows: list[dict[str, Any]], id_column: str) -> list[str]:
    return [str(r.get(id_column, f"row-{n}")) for n, r in enumerate(rows, start=1)]


def _read_manifest(path: Path) -> Manifest:
    """manifest.json as a Manifest; a hand edit that would crash a reader or turn a comparison
    around (nesting past what a reader follows, NaN, a negative count, a built-in metric's
    direction flipped) is one line naming the file, and an unknown key names who wrote it."""
    from pydantic import ValidationError

    from ragmeter.io.json_files import TooDeep, json_value

    try:
        raw = json_value(path.read_text(encoding="utf-8"), strict=True)
        manifest = Manifest.model_validate(raw)
    except TooDeep as exc:
        raise DataError(f"not a ragmeter manifest: {exc}", source=str(path)) from None
    except (ValueError, UnicodeDecodeError) as exc:
        if not isinstance(exc, ValidationError):
            raise DataError(f"not valid JSON: {exc}", source=str(path)) from None
        from ragmeter.errors import explain_validation

        written = raw.get("ragmeter_version") if isinstance(raw, dict) else None
        who = f" (written by ragmeter {written}; this is ragmeter {_version()})" \
            if any(e["type"] == "extra_forbidden" for e in exc.errors()) else ""
        raise DataError(f"not a ragmeter manifest: {explain_validation(exc)}{who}", source=str(path)) from None
    _check_directions(manifest, path)
    return manifest


def _version() -> str:
    from ragmeter import __version__

    return __version__


def _check_directions(manifest: Manifest, path: Path) -> None:
    """A built-in metric's direction is its class's, never the file's: `higher_is_better:
    false` on faithfulness would make compare call every drop an improvement."""
    from ragmeter.metrics.registry import builtin_direction

    for label, record in manifest.metrics.items():
        direction = builtin_direction(record.metric)
        if direction is not None and direction != record.higher_is_better:
            raise DataError(f"metrics.{label}.higher_is_better is {str(record.higher_is_better).lower()}, but "
                            f"{record.metric} is {'higher' if direction else 'lower'}-is-better: the file was "
                            "edited by hand", source=str(path))


def _score(value: Any, source: str, number: int, metric: str) -> float | None:
    """A score cell as a number; a hand-edited NaN, infinity, `true`, or a score outside
    [0, 1] (every metric's range: the engine refuses to write another) is refused, naming the
    file, line and column (it would be averaged, called significant, or written as invalid JSON)."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, bool):
            raise TypeError
        number_ = float(value)
    except (TypeError, ValueError):
        raise DataError(f"score is not a number: {str(value)[:40]!r}", source=source, row=number,
                        field=metric, unit=unit_of(source)) from None
    if not (math.isfinite(number_) and -SLACK <= number_ <= 1.0 + SLACK):
        raise DataError(f"score {str(value)[:40]} is not a number in [0, 1]", source=source, row=number, field=metric,
                        unit=unit_of(source))
    return number_


#: a score's rounding room at the ends of [0, 1] (an average of ones can be 1.0000000000000002)
SLACK = 1e-9


def check_scores(scores: dict[str, list[float | None]], manifest: Manifest, source: str) -> None:
    """Columns read whole (pyarrow): the first score _score would refuse, refused the same way."""
    for metric, column in scores.items():
        for number, value in enumerate(column, start=1):
            if value is not None and not (math.isfinite(value) and -SLACK <= value <= 1 + SLACK):
                _score(value, source, number, metric)


def typed_row(record: dict[str, Any], manifest: Manifest, source: str, number: int) -> dict[str, Any]:
    row = {k: v for k, v in record.items() if k != "__line__"}
    for metric in manifest.metrics:
        row[metric] = _score(row.get(metric), source, number, metric)
        evidence = row.get(f"{metric}_evidence")
        if isinstance(evidence, str) and evidence.strip().startswith(("{", "[")):
            try:
                row[f"{metric}_evidence"] = json.loads(evidence)
            except json.JSONDecodeError:
                pass  # shown as the text it is
    return row
