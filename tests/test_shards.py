"""`--shard I/N` and `ragmeter merge`: the merged run equals the unsharded one (rows in
dataset order, means and intervals from the rows), and bad shards are refused by name."""

from __future__ import annotations

import asyncio
import json

import pytest

import ragmeter
from ragmeter.errors import ConfigError, DataError
from ragmeter.results.merge import merge_runs
from ragmeter.run.config import build_config
from ragmeter.run.execute import run_config
from ragmeter.shard import parse_shard, shard_of
from tests.cli_runner import run_cli

ROWS = [{"id": f"q{i}", "user_input": f"question {i}", "response": f"the answer is {i % 4}",
         "reference": f"the answer is {i % 3}"} for i in range(30)]


def dataset(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def shards(tmp_path, path, count=3, metrics=("rouge", "exact_match")):
    folders = []
    for index in range(count):
        folder = tmp_path / f"shard{index}"
        asyncio.run(run_config(build_config({"dataset": str(path), "output": str(folder), "metrics": list(metrics),
                                             "shard": f"{index}/{count}", "progress": False})))
        folders.append(folder)
    return folders


def test_merged_shards_equal_the_whole_run(tmp_path):
    path = dataset(tmp_path)
    whole = ragmeter.evaluate(path, ["rouge", "exact_match"], out=tmp_path / "whole", progress=False)
    folders = shards(tmp_path, path)
    sizes = [json.loads((f / "manifest.json").read_text())["dataset"]["rows"] for f in folders]
    assert sum(sizes) == 30 and all(0 < s < 30 for s in sizes)
    merge_runs(folders, tmp_path / "merged")
    merged = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    rows = [json.loads(line) for line in (tmp_path / "merged" / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [r["id"] for r in ROWS]  # dataset order, not shard order
    assert [(r["rouge"], r["exact_match"]) for r in rows] == [(r["rouge"], r["exact_match"]) for r in whole.rows]
    for name in ("rouge", "exact_match"):
        mine, theirs = merged["metrics"][name], whole.manifest["metrics"][name]  # as manifest.json reads
        assert (mine["mean"], mine["ci95"], mine["n"], mine["unscored"]) == \
            (theirs["mean"], theirs["ci95"], theirs["n"], theirs["unscored"])
    assert merged["dataset"]["rows"] == 30 and len(merged["merged_from"]) == 3
    assert ragmeter.compare(tmp_path / "whole", tmp_path / "merged").metrics["rouge"].difference == 0.0


def test_shards_are_stable_hashes_of_ids():
    assert [shard_of(f"q{i}", 4) for i in range(6)] == [shard_of(f"q{i}", 4) for i in range(6)]
    assert shard_of("q1", 4) == int.from_bytes(__import__("hashlib").sha256(b"q1").digest()[:8], "big") % 4
    assert parse_shard("2/8") == (2, 8)
    for bad in ("3/2", "8/8", "1", "a/b", "0/0"):
        with pytest.raises(ConfigError, match="--shard"):
            parse_shard(bad)


def test_bad_shards_are_refused(tmp_path):
    path = dataset(tmp_path)
    folders = shards(tmp_path, path, count=2, metrics=("rouge",))
    with pytest.raises(DataError, match="shard\\(s\\) 1 of 2 missing"):
        merge_runs(folders[:1], tmp_path / "m1")
    with pytest.raises(DataError, match="shard 0 given twice"):
        merge_runs([folders[0], folders[0]], tmp_path / "m2")
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.jsonl").write_text(path.read_text().replace("question 1", "question one"))
    odd = shards(other, other / "data.jsonl", count=2, metrics=("rouge",))
    with pytest.raises(DataError, match="another dataset"):
        merge_runs([folders[0], odd[1]], tmp_path / "m3")
    (tmp_path / "cfg").mkdir()
    config = shards(tmp_path / "cfg", path, count=2, metrics=("exact_match",))
    with pytest.raises(DataError, match="another config"):
        merge_runs([folders[0], config[1]], tmp_path / "m4")
    whole = ragmeter.evaluate(path, ["rouge"], out=tmp_path / "whole", progress=False)
    assert whole.manifest["config"]["shard"] is None
    with pytest.raises(DataError, match="not a shard"):
        merge_runs([folders[0], tmp_path / "whole"], tmp_path / "m5")


def test_shard_needs_ids_and_a_valid_spec(tmp_path):
    path = tmp_path / "noids.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "id"}) + "\n" for r in ROWS))
    proc = run_cli("evaluate", str(path), "--metrics", "rouge", "--shard", "0/2", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "--shard needs an `id` column" in proc.stderr
    proc = run_cli("evaluate", str(dataset(tmp_path)), "--metrics", "rouge", "--shard", "3/2",
                   "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "the index must be between 0 and 1" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_an_empty_shard_is_a_valid_shard(tmp_path):
    """More shards than a small file fills: `--shard 3/4` of examples/dataset.jsonl is empty.
    Its run folder merges; report and compare of it say so in one line."""
    rows = ROWS[:3]
    path = tmp_path / "few.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    count = 8
    folders = shards(tmp_path, path, count=count, metrics=("exact_match",))
    sizes = [json.loads((f / "manifest.json").read_text())["dataset"]["rows"] for f in folders]
    assert sum(sizes) == 3 and 0 in sizes
    empty = folders[sizes.index(0)]
    assert ragmeter.load_run(empty).ids == []
    merge_runs(folders, tmp_path / "merged")
    assert ragmeter.load_run(tmp_path / "merged").ids == [r["id"] for r in rows]
    for args in (["report", str(empty), "--out", str(tmp_path / "r.html")],
                 ["compare", str(empty), str(tmp_path / "merged")]):
        proc = run_cli(*args)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no rows" in proc.stderr, proc.stderr


def test_merge_streams_one_row_per_shard_and_falls_back_to_shard_order_without_the_dataset(tmp_path, monkeypatch):
    """Rows pass through: at any write, at most one row per shard has been read ahead of it;
    with the dataset gone, rows come in shard order, every row once."""
    from ragmeter.io.results_file import ResultsFile
    from ragmeter.results import merge

    path = dataset(tmp_path)
    folders = shards(tmp_path, path, count=3, metrics=("exact_match",))
    read, ahead = [0], []
    real_rows, real_add = merge._shard_rows, ResultsFile.add_line

    def counted(shard):
        for item in real_rows(shard):
            read[0] += 1
            yield item

    def add_line(self, line):
        ahead.append(read[0] - self.rows)  # rows read but not yet written, this one included
        real_add(self, line)

    monkeypatch.setattr(merge, "_shard_rows", counted)
    monkeypatch.setattr(ResultsFile, "add_line", add_line)
    merge_runs(folders, tmp_path / "merged")
    assert len(ahead) == 30 and max(ahead) <= 3
    assert [r["id"] for r in map(json.loads, (tmp_path / "merged" / "results.jsonl").read_text().splitlines())] == \
        [r["id"] for r in ROWS]
    path.unlink()
    merge_runs(folders, tmp_path / "merged2")
    ids = [json.loads(line)["id"] for line in (tmp_path / "merged2" / "results.jsonl").read_text().splitlines()]
    by_shard = [[r["id"] for r in ROWS if shard_of(r["id"], 3) == index] for index in range(3)]
    assert ids == by_shard[0] + by_shard[1] + by_shard[2]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_csv_and_parquet_shards_merge_to_the_whole_runs_rows(tmp_path, fmt):
    path = dataset(tmp_path)
    whole = ragmeter.evaluate(path, ["rouge", "exact_match"], out=tmp_path / "whole", progress=False)
    folders = []
    for index in range(3):
        folder = tmp_path / f"shard{index}"
        asyncio.run(run_config(build_config({"dataset": str(path), "output": str(folder), "format": fmt,
                                             "metrics": ["rouge", "exact_match"], "shard": f"{index}/3",
                                             "progress": False})))
        folders.append(folder)
    merge_runs(folders, tmp_path / "merged")
    merged = ragmeter.load_run(tmp_path / "merged")
    assert (tmp_path / "merged" / f"results.{fmt}").is_file()
    assert merged.ids == [r["id"] for r in ROWS]
    assert [(r["rouge"], r["exact_match"], r["rouge_evidence"]) for r in merged.rows] == \
        [(r["rouge"], r["exact_match"], r["rouge_evidence"]) for r in whole.rows]


def test_merged_shards_count_the_rows_their_metrics_flagged(tmp_path):
    """A flag (faithfulness's contexts_disagree) is counted from the merged rows' evidence."""
    from ragmeter.judges.scripted import ScriptedJudge

    torn = ["The server listens on port 8080 by default.", "The server listens on port 9090 by default."]
    rows = [{"id": f"q{i}", "user_input": "Which port?", "response": "The server listens on port 8080 by default.",
             "retrieved_contexts": torn if i % 3 == 0 else torn[:1]} for i in range(12)]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    folders = []
    for index in range(2):
        folder = tmp_path / f"shard{index}"
        cfg = build_config({"dataset": str(path), "output": str(folder), "metrics": ["faithfulness"],
                            "judge": "scripted", "shard": f"{index}/2", "progress": False, "cache": False})
        judge = ScriptedJudge({"faithfulness.verdicts": {"verdicts": [{"reason": "ok", "verdict": 1}]}})
        asyncio.run(run_config(cfg, judge=judge))
        folders.append(folder)
    shard_flags = [json.loads((f / "manifest.json").read_text())["metrics"]["faithfulness"].get("flags") for f in folders]
    assert sum((f or {}).get("contexts_disagree", 0) for f in shard_flags) == 4
    merge_runs(folders, tmp_path / "merged")
    merged = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    assert merged["metrics"]["faithfulness"]["flags"] == {"contexts_disagree": 4}
