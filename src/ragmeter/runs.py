"""A finished run read back from its folder (manifest.json + results file), for `compare`,
`report` and the CI gates. Rows are keyed by the dataset's id, as the run saw it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError
from ragmeter.manifest import Manifest


@dataclass
class Run:
    """One run: its manifest, its rows in file order, and each row's id."""

    manifest: Manifest
    rows: list[dict[str, Any]]
    ids: list[str]
    source: str
    _by_id: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = dict(zip(self.ids, self.rows))

    @property
    def metrics(self) -> list[str]:
        return list(self.manifest.metrics)

    def row(self, row_id: str) -> dict[str, Any]:
        return self._by_id[row_id]

    def score(self, row_id: str, metric: str) -> float | None:
        value = self._by_id[row_id].get(metric)
        return None if value is None else float(value)


def load_run(path: str | Path) -> Run:
    """A run folder (or its manifest.json). Scores from CSV come back as numbers and evidence
    as objects, as from JSONL."""
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
    results = folder / manifest.results_file
    from ragmeter.io.readers import read_records

    records, _ = read_records(results)
    rows = [_typed(r, manifest, str(results), n) for n, r in enumerate(records, start=1)]
    id_column = manifest.config.get("columns", {}).get("id", "id")
    ids = [str(r.get(id_column, f"row-{n}")) for n, r in enumerate(rows, start=1)]
    return Run(manifest, rows, ids, str(folder))


def _read_manifest(path: Path) -> Manifest:
    from pydantic import ValidationError

    try:
        return Manifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"not valid JSON: {exc}", source=str(path)) from None
    except ValidationError as exc:
        from ragmeter.errors import explain_validation

        raise DataError(f"not a ragmeter manifest: {explain_validation(exc)}", source=str(path)) from None


def _typed(record: dict[str, Any], manifest: Manifest, source: str, number: int) -> dict[str, Any]:
    row = {k: v for k, v in record.items() if k != "__line__"}
    for metric in manifest.metrics:
        value = row.get(metric)
        if isinstance(value, str):  # CSV
            try:
                row[metric] = float(value) if value.strip() else None
            except ValueError:
                raise DataError(f"score is not a number: {value[:40]!r}", source=source, row=number,
                                field=metric) from None
        evidence = row.get(f"{metric}_evidence")
        if isinstance(evidence, str) and evidence.strip().startswith(("{", "[")):
            try:
                row[f"{metric}_evidence"] = json.loads(evidence)
            except json.JSONDecodeError:
                pass  # shown as the text it is
    return row
