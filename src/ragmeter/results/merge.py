"""`ragmeter merge SHARD_DIRS... --out DIR`: one run from the folders of `--shard I/N` runs
(shard.py). Means and intervals are recomputed from the joined rows (never averaged means);
shards of another dataset or config, a shard given twice and missing shards are refused.
Rows stream through: one row per shard is held at a time.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, DataError
from ragmeter.faults import KINDS
from ragmeter.results.manifest import Manifest
from ragmeter.results.tally import Tally
from ragmeter.shard import parse_shard, shard_of
from ragmeter.text import json_text

#: config keys that may differ between the shards of one run
PER_SHARD = ("output", "shard", "overwrite", "progress", "concurrency", "timeout", "retries", "summary_md", "junit",
             "report", "cache", "format", "max_failed")
#: additive per-metric counters: summed over shards
COUNTERS = ("judge_calls", "prompt_tokens", "completion_tokens", "cache_hits", "reasks", "unparseable", "truncated",
            "embed_calls", "embed_cache_hits", "judge_seconds", "embed_seconds", "seconds")
TIMINGS = ("wall_seconds", "judge_seconds", "embed_seconds", "judge_load_seconds", "model_busy_seconds",
           "overhead_seconds", "cpu_seconds")


@dataclass
class Shard:
    """A shard's manifest and where its results are; its rows are read one at a time."""

    manifest: Manifest
    source: str
    results: Path
    #: rows read from `results` so far (checked against the manifest's count once merged)
    rows_read: int = 0


def merge_runs(folders: list[str | Path], out: str | Path, overwrite: bool = False) -> Path:
    """One run folder from shard folders: rows in dataset order, aggregates from the rows.
    Rows pass through one at a time per shard: merging a million rows holds their scores
    (8 bytes a row and metric), never the rows."""
    from ragmeter.io.output import prepare_output
    from ragmeter.io.results_file import ResultsFile

    if not folders:
        raise ConfigError("merge: give the shard folders")
    shards = [_open_shard(f) for f in folders]
    indexes = _check_shards(shards)
    ordered = [shard for _, shard in sorted(zip(indexes, shards), key=lambda t: t[0])]
    first = ordered[0].manifest
    out = Path(out)
    prepare_output(out, {"merged": [s.source for s in shards]}, overwrite,
                   fingerprint_of=lambda path: {"merged": json.loads(path.read_text()).get("merged_from")})
    names = list(first.metrics)
    sink, tally = ResultsFile(out, first.config.get("format", "jsonl"), names), Tally(names)
    id_column = first.config.get("columns", {}).get("id", "id")
    seen: set[str] = set()
    try:
        for line, row in _in_dataset_order(ordered):
            row_id = str(row.get(id_column))
            if row_id in seen:
                raise DataError(f"merge: row id {row_id!r} is in more than one shard's results (or twice in one)")
            seen.add(row_id)
            for name in names:
                evidence = row.get(f"{name}_evidence")
                tally.add_value(name, row.get(name), row.get(f"{name}_reason"),
                                flags=(evidence.get("flags") or ()) if isinstance(evidence, dict) else ())
            sink.add_line(line)
        _check_counts(ordered)
        path = sink.commit()
    except BaseException:
        sink.abort()
        raise
    from ragmeter.io.writers import write_json

    manifest = merged_manifest(shards, tally)
    manifest.results_file = path.name
    manifest.config["output"] = str(out)
    write_json(out / "manifest.json", manifest.as_json())
    return path


def _check_counts(shards: list[Shard]) -> None:
    """The rows merged are the rows the shards' manifests say they scored: a results file cut
    short, or one with rows added, is refused rather than merged into a smaller or larger run
    (with each shard's count right and no id twice, the merged count is their sum)."""
    for shard in shards:
        if shard.rows_read != shard.manifest.dataset.rows:
            raise DataError(f"its results hold {shard.rows_read} rows; its manifest says the shard scored "
                            f"{shard.manifest.dataset.rows}", source=str(shard.results))


def _open_shard(folder: str | Path) -> Shard:
    from ragmeter.results.runs import read_run_manifest

    manifest, results, source = read_run_manifest(folder)
    return Shard(manifest, source, results)


def _check_shards(runs: list[Shard]) -> list[int]:
    first = runs[0].manifest
    count = parse_shard(first.config["shard"])[1] if (first.config or {}).get("shard") else 0
    indexes = []
    for run in runs:
        m = run.manifest
        shard = (m.config or {}).get("shard")
        if not shard:
            raise DataError("not a shard (its run had no --shard)", source=run.source)
        index, split = parse_shard(shard)
        if split != count:
            raise DataError(f"shard {shard} is from a split into {split}, not {count}", source=run.source)
        if m.dataset.sha256 != first.dataset.sha256:
            raise DataError(f"another dataset ({m.dataset.source}, sha256 {str(m.dataset.sha256)[:12]}) than "
                            f"{runs[0].source} ({str(first.dataset.sha256)[:12]})", source=run.source)
        if _same_run(m) != _same_run(first):
            raise DataError(f"another config than {runs[0].source} (metrics, judge, prompts or settings differ)",
                            source=run.source)
        indexes.append(index)
    repeated = [i for i, n in Counter(indexes).items() if n > 1]
    if repeated:
        raise DataError(f"merge: shard {repeated[0]} given twice")
    missing = sorted(set(range(count)) - set(indexes))
    if missing:
        raise DataError(f"merge: shard(s) {', '.join(map(str, missing))} of {count} missing")
    return indexes


def _same_run(manifest: Any) -> Any:
    config = {k: v for k, v in manifest.config.items() if k not in PER_SHARD}
    judge = {k: v for k, v in (manifest.judge or {}).items() if k != "name"}
    metrics = {n: (m.metric, m.version, m.settings) for n, m in manifest.metrics.items()}
    return json.dumps([config, judge, manifest.embeddings, metrics, manifest.prompts], sort_keys=True, default=str)


def _in_dataset_order(shards: list[Shard]) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """Each row (its line as written, and parsed) in the dataset's order when the dataset is
    still there, unchanged: its ids are read through, each pointing at the shard it hashed to,
    whose next row it is (a shard run writes its rows in dataset order). Without the dataset,
    or for rows it does not name, shard order: still a valid order."""
    count = len(shards)  # _check_shards refused a missing or repeated shard: one folder per shard
    readers = [_Reader(shard) for shard in shards]
    for row_id in _dataset_ids(shards[0].manifest):
        reader = readers[shard_of(row_id, count)]
        if reader.head is not None and reader.head_id == row_id:
            yield reader.head
            reader.advance()
    for reader in readers:
        while reader.head is not None:
            yield reader.head
            reader.advance()


class _Reader:
    """A shard's rows one at a time, the next one held."""

    def __init__(self, shard: Shard) -> None:
        self.id_column = shard.manifest.config.get("columns", {}).get("id", "id")
        self.rows = _shard_rows(shard)
        self.head: tuple[bytes, dict[str, Any]] | None = None
        self.head_id = ""
        self.number = 0
        self.advance()

    def advance(self) -> None:
        self.head = next(self.rows, None)
        self.number += 1
        if self.head is not None:
            self.head_id = str(self.head[1].get(self.id_column, f"row-{self.number}"))


def _shard_rows(shard: Shard) -> Iterator[tuple[bytes, dict[str, Any]]]:
    for item in _result_rows(shard):
        shard.rows_read += 1
        yield item


def _result_rows(shard: Shard) -> Iterator[tuple[bytes, dict[str, Any]]]:
    from ragmeter.results.runs import parse_result_line, typed_row

    source = str(shard.results)
    if shard.results.suffix == ".jsonl":
        with shard.results.open("rb") as handle:
            for number, line in enumerate((line for line in handle if line.strip()), start=1):
                line = line.rstrip(b"\r\n")
                yield line, parse_result_line(line, shard.manifest, source, number)
        return
    from ragmeter.io.data_file import open_data_file
    from ragmeter.io.writers import read_cell

    csv = shard.results.suffix == ".csv"
    for number, record in open_data_file(shard.results).iter_records():  # CSV, Parquet: a chunk at a time
        cells = {read_cell(k): read_cell(v) for k, v in record.items()} if csv else record
        row = typed_row(cells, shard.manifest, source, number)
        yield json_text(row).encode("utf-8"), row  # as the results file writes a row


def _dataset_ids(manifest: Manifest) -> Iterator[str]:
    """The dataset's ids in order when the file is still there, unchanged; else none."""
    from ragmeter.io.datasets import load_dataset
    from ragmeter.io.stream import StreamedDataset

    path = Path(manifest.dataset.source)
    if not path.is_file():
        return iter(())
    try:
        dataset = load_dataset(path, columns=manifest.config.get("columns") or None, stream=True)
    except Exception:  # unreadable now: shard order is still a valid order
        return iter(())
    if dataset.sha256 != manifest.dataset.sha256:
        return iter(())
    # a traces or cited file is read whole, unsharded (it had no iter_file: merging one crashed)
    rows = dataset.iter_file() if isinstance(dataset, StreamedDataset) else dataset.iter_rows()
    return (sample.id for sample, _ in rows)


def merged_manifest(runs: list[Shard], tally: Tally) -> Manifest:
    """The first shard's manifest with the counts, timings and faults of all, and the
    aggregates recomputed over every row; no gates, no dry-run estimate (they were per shard)."""
    base = runs[0].manifest.as_json()
    base["config"] = {**base["config"], "shard": None, "output": None}
    base["dataset"]["rows"] = len(tally)
    for name, record in base["metrics"].items():
        record.update(tally.aggregate(name))
        for counter in COUNTERS:
            if counter in record:
                record[counter] = round(sum(getattr(r.manifest.metrics[name], counter, 0) or 0 for r in runs), 4)
        modes: Counter[str] = Counter()
        for run in runs:
            modes.update(run.manifest.metrics[name].judgment or {})
        record["judgment"] = dict(modes) or record.get("judgment")
    for timing in TIMINGS:
        base[timing] = round(sum(getattr(r.manifest, timing) for r in runs), 4)
    faults = [r.manifest.faults for r in runs]
    base["faults"] = {k: sum(getattr(f, k) for f in faults) for k in (*KINDS, "processes")}
    base["faults"]["http_errors"] = dict(sum((Counter(f.http_errors) for f in faults), Counter()))
    base["rag_index"] = _rag_index(base, tally)
    base["merged_from"] = [r.source for r in runs]
    base.pop("gates", None)
    base.pop("estimate", None)  # a dry run estimates one run, not a shard of it
    return Manifest.model_validate(base)


def _rag_index(manifest: dict[str, Any], tally: Tally) -> dict[str, Any] | None:
    from ragmeter.metrics import CITATION_METRICS
    from ragmeter.results.manifest import index_of

    names = [n for n, m in manifest["metrics"].items() if m["metric"] in CITATION_METRICS]
    return index_of({n: tally.column(n) for n in names})

