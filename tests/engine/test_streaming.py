"""A run over a file streams: rows are read a chunk at a time, handed over in dataset order
as they finish, written to a temporary file that becomes the results file only when the run
completes, and only their scores stay in memory."""

from __future__ import annotations

import asyncio
import errno
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragmeter
from ragmeter.engine.local import REORDER_ROWS, stream_rows
from ragmeter.errors import DataError, JudgeUnavailable, ServiceError
from ragmeter.io.datasets import load_dataset
from ragmeter.io.results_file import OnDisk
from ragmeter.io.stream import StreamedDataset
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.results.runs import load_run

ROWS = [{"id": f"r{i}", "user_input": f"question {i}?", "response": f"answer {i % 3}.",
         "retrieved_contexts": [f"context for question {i}", "other"], "reference": f"answer {i % 2}.",
         **({"note": "only on some rows"} if i % 4 == 0 else {})} for i in range(30)]
METRICS = ["context_relevance", "exact_match", "rouge"]


def judge() -> ScriptedJudge:
    return ScriptedJudge(lambda request: {"rating": int(request.messages[-1]["content"].count("1")) % 3})


def write(path: Path, rows: list[dict]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".csv":
        import pandas as pd

        frame = pd.DataFrame([{**r, "retrieved_contexts": json.dumps(r["retrieved_contexts"])} for r in rows])
        frame.to_csv(path, index=False)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


@pytest.mark.parametrize("source", ["data.jsonl", "data.csv", "data.parquet"])
@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_a_streamed_run_equals_the_same_rows_run_in_memory(tmp_path: Path, source: str, fmt: str):
    path = write(tmp_path / source, ROWS)
    kept = ragmeter.evaluate(path, METRICS, judge=judge(), cache=False, progress=False, concurrency=4)
    streamed = ragmeter.evaluate(path, METRICS, judge=judge(), cache=False, progress=False, concurrency=4,
                                 out=tmp_path / "out", format=fmt)
    assert isinstance(streamed.rows, OnDisk) and len(streamed.rows) == 30  # counted, not read
    back = load_run(tmp_path / "out")
    assert back.ids == [r["id"] for r in ROWS] == list(streamed.ids)
    for name in METRICS:
        assert back.scores[name] == [r[name] for r in kept.rows]
        assert streamed.manifest["metrics"][name]["mean"] == kept.manifest["metrics"][name]["mean"]
        assert streamed.manifest["metrics"][name]["ci95"] == kept.manifest["metrics"][name]["ci95"]
    assert [r["context_relevance_evidence"] for r in back.rows] == [r["context_relevance_evidence"] for r in kept.rows]
    assert streamed.manifest["dataset"]["rows"] == 30 and streamed.manifest["results_file"] == f"results.{fmt}"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["manifest.json", f"results.{fmt}"]


def test_limit_and_shard_are_taken_as_the_file_is_read(tmp_path: Path):
    path = write(tmp_path / "data.jsonl", ROWS)
    limited = load_dataset(path, stream=True, limit=7)
    assert len(limited) == 7 and [s.id for s, _ in limited.iter_rows()] == [f"r{i}" for i in range(7)]
    parts = [load_dataset(path, stream=True, shard=f"{i}/3") for i in range(3)]
    assert sorted(i for p in parts for i in p.ids()) == sorted(r["id"] for r in ROWS)
    assert sum(len(p) for p in parts) == 30


def test_a_repeated_id_far_apart_is_named_with_both_rows_before_any_judge_call(tmp_path: Path):
    path = write(tmp_path / "data.jsonl", [*ROWS, {**ROWS[3], "response": "another"}])
    scripted = judge()
    with pytest.raises(DataError, match=r"data.jsonl, row 31, field 'id': duplicate id 'r3' \(first at row 4\)"):
        ragmeter.evaluate(path, METRICS, judge=scripted, cache=False, progress=False, out=tmp_path / "out")
    assert scripted.requests == [] and not (tmp_path / "out" / "results.jsonl").exists()


def test_a_bad_row_late_in_the_file_fails_before_any_judge_call(tmp_path: Path):
    path = write(tmp_path / "data.jsonl", [*ROWS, {"id": "late", "response": 3}])
    scripted = judge()
    with pytest.raises(DataError, match=r"line 31, field 'response': expected a string, got int"):
        ragmeter.evaluate(path, METRICS, judge=scripted, cache=False, progress=False, out=tmp_path / "out")
    assert scripted.requests == []
    assert isinstance(load_dataset(write(tmp_path / "ok.jsonl", ROWS), stream=True), StreamedDataset)


def test_a_judge_that_dies_mid_run_leaves_no_results_file_and_the_rerun_resumes(tmp_path: Path):
    path = write(tmp_path / "data.jsonl", ROWS)
    cache = tmp_path / "cache.sqlite"
    answered = []

    def dies_at_the_twentieth(request):
        if len(answered) == 19:
            raise JudgeUnavailable("the judge server went away")
        answered.append(request)
        return {"rating": 2}

    with pytest.raises(JudgeUnavailable, match="run again to resume"):
        ragmeter.evaluate(path, METRICS, judge=ScriptedJudge(dies_at_the_twentieth), cache=cache, progress=False,
                          out=tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == []  # no partial file, no manifest
    again = ScriptedJudge(lambda request: {"rating": 2})
    result = ragmeter.evaluate(path, METRICS, judge=again, cache=cache, progress=False, out=tmp_path / "out")
    # context_relevance asks two prompts a row: 60 calls, 19 of them answered before the judge died
    assert again.calls() == 60 - 19 and result.manifest["metrics"]["context_relevance"]["cache_hits"] == 19
    assert len(load_run(tmp_path / "out").ids) == 30


def test_a_results_file_that_cannot_take_more_rows_is_one_line_and_the_old_results_stay(tmp_path: Path,
                                                                                         monkeypatch):
    path = write(tmp_path / "data.jsonl", ROWS)
    out = tmp_path / "out"
    ragmeter.evaluate(path, ["exact_match"], cache=False, progress=False, out=out)
    before = (out / "results.jsonl").read_bytes()
    from ragmeter.io import results_file

    real = results_file.ResultsFile.add

    def disk_full(self, row_id, record, scores):
        if self.rows == 12:
            self.handle.write = _raise_enospc
        real(self, row_id, record, scores)

    monkeypatch.setattr(results_file.ResultsFile, "add", disk_full)
    # a full disk is the machine's failure (ServiceError: exit 3), no longer a config error
    with pytest.raises(ServiceError, match=r"results.jsonl \(row 13\): No space left on device\. Finished judge "
                                           r"replies are in the cache: run again to resume"):
        ragmeter.evaluate(path, ["exact_match"], cache=False, progress=False, out=out)
    assert (out / "results.jsonl").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "results.jsonl"]


def _raise_enospc(data: bytes) -> int:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_rows_are_handed_over_in_order_however_they_finish_and_at_most_in_flight_at_once():
    """Row 0 is held until every later row has finished: all wait behind it, then all go, in order."""

    async def go() -> tuple[list[int], int]:
        release = asyncio.Event()
        running = peak = 0
        handed: list[int] = []

        async def score_row(sample):
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            if sample == 0:
                await release.wait()
            elif sample == 9:
                release.set()
            else:
                for _ in range(3):  # a few turns of the loop, so rows overlap
                    await asyncio.sleep(0)
            running -= 1
            return {}

        rows = ((i, {"n": i}) for i in range(10))
        await stream_rows(rows, score_row, lambda sample, record, scores: handed.append(record["n"]), 3)
        return handed, peak

    handed, peak = asyncio.run(go())
    assert handed == list(range(10)) and peak == 3


def test_finished_rows_held_behind_a_slow_one_are_bounded():
    """Row 0 never finishes until the run stalls: by then at most REORDER_ROWS finished rows
    wait behind it (plus the rows in flight), not the rest of the file."""

    async def go() -> tuple[int, int]:
        release = asyncio.Event()
        started = handed = 0

        async def score_row(sample):
            nonlocal started
            started += 1
            if sample == 0:
                await release.wait()
            return {}

        def finished(*_):
            nonlocal handed
            handed += 1

        async def release_when_stalled() -> int:
            seen = -1
            while seen != started:  # no row started for 50 turns of the event loop: stalled
                seen = started
                for _ in range(50):
                    await asyncio.sleep(0)
            release.set()
            return seen

        watcher = asyncio.create_task(release_when_stalled())
        await stream_rows(((i, {}) for i in range(REORDER_ROWS * 3)), score_row, finished, 8)
        return await watcher, handed

    stalled_at, handed = asyncio.run(go())
    assert REORDER_ROWS <= stalled_at <= REORDER_ROWS + 8 and handed == REORDER_ROWS * 3


def test_the_first_failure_stops_the_run_and_cancels_the_rows_in_flight():
    async def go() -> list[int]:
        never = asyncio.Event()
        cancelled: list[int] = []

        async def score_row(sample):
            if sample == 2:
                raise JudgeUnavailable("gone")
            try:
                await never.wait()
            except asyncio.CancelledError:
                cancelled.append(sample)
                raise
            return {}

        with pytest.raises(JudgeUnavailable, match="gone"):
            await stream_rows(((i, {}) for i in range(100)), score_row, lambda *a: None, 4)
        return cancelled

    assert sorted(asyncio.run(go())) == [0, 1, 3]


def test_a_killed_runs_temporary_file_is_removed_by_the_next_run_and_a_live_ones_is_kept(tmp_path: Path):
    """SIGKILL leaves a temporary results file no code could remove; it names its process, so the
    next run into the folder removes it, and leaves alone the file of a run still going."""
    import subprocess
    import sys

    path, out = write(tmp_path / "data.jsonl", ROWS), tmp_path / "out"
    out.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)  # a process that has exited
    for name in (f".results.{dead_pid}.abc.jsonl.partial", f".results.{dead_pid}.csv.abc.tmp",
                 ".results.1.xyz.jsonl.partial", "notes.txt"):  # pid 1 is alive
        (out / name).write_text("half")
    ragmeter.evaluate(path, ["exact_match"], cache=False, progress=False, out=out)
    assert sorted(p.name for p in out.iterdir()) == [".results.1.xyz.jsonl.partial", "manifest.json",
                                                      "notes.txt", "results.jsonl"]
