"""The real bundled model end to end: scores, cache, resume after SIGKILL, and the server path."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

import ragmeter
from tests.bundled import DATASET, GEMMA, METRICS, env_with_cache, ragmeter_cmd

pytestmark = pytest.mark.model


def assert_every_row_scored_or_explained(rows: list[dict], count: int = 20) -> None:
    assert len(rows) == count
    for row in rows:
        for metric in METRICS:
            value, reason = row[metric], row[f"{metric}_reason"]
            if value is None:
                assert reason, f"{row['id']} {metric}: unscored without a reason"
            else:
                assert 0.0 <= value <= 1.0, f"{row['id']} {metric}: {value}"
                assert isinstance(row[f"{metric}_evidence"], dict)


def scores(rows: list[dict]) -> dict:
    return {(r["id"], m): (r[m], r[f"{m}_reason"]) for r in rows for m in METRICS}


def test_inprocess_every_row_gets_a_score_or_an_unscored_reason(inprocess_run):
    assert_every_row_scored_or_explained(inprocess_run.rows)
    manifest = inprocess_run.manifest
    for metric in METRICS:
        m = manifest["metrics"][metric]
        assert m["n"] + m["unscored"] == 20
        assert m["unparseable"] == 0  # the grammar makes every reply parse
    # q19 has no retrieved contexts: context metrics say so, response_relevancy still scores
    q19 = next(r for r in inprocess_run.rows if r["id"] == "q19")
    assert q19["faithfulness"] is None and q19["faithfulness_reason"] == "empty field(s): retrieved_contexts"
    assert q19["response_relevancy"] is not None
    on_disk = [json.loads(line) for line in inprocess_run.results_path.read_text().splitlines()]
    assert scores(on_disk) == scores(inprocess_run.rows)


def test_second_run_makes_zero_judge_calls_and_same_scores(inprocess_run, session_cache, tmp_path):
    again = ragmeter.evaluate(DATASET, METRICS, judge=GEMMA, cache=session_cache, out=tmp_path,
                              progress=False)
    for metric in METRICS:
        m = again.manifest["metrics"][metric]
        assert m["judge_calls"] == 0, metric
        assert m["embed_calls"] == 0, metric
    assert sum(m["cache_hits"] for m in again.manifest["metrics"].values()) > 100
    assert scores(again.rows) == scores(inprocess_run.rows)


def test_sigkill_half_way_resumes_to_identical_results(inprocess_run, tmp_path):
    """Kill a CLI run with SIGKILL once some replies are cached; the re-run re-calls only the rest
    and its results equal the uninterrupted in-process run (so decoding is deterministic too)."""
    cache, out = tmp_path / "kill.sqlite", tmp_path / "out"
    cmd = ragmeter_cmd() + ["evaluate", str(DATASET), "--judge", GEMMA, "--limit", "5", "--out", str(out)]
    proc = subprocess.Popen(cmd, env=env_with_cache(cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        done = _cached_replies(cache)
        if done >= 15:
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (out / "results.jsonl").exists()  # nothing half-written in the results' name
    left = [p.name for p in out.glob(".results.*")] if out.exists() else []
    assert all(name.startswith(f".results.{proc.pid}.") for name in left), left  # only the killed run's temp
    killed_at = _cached_replies(cache)
    assert killed_at >= 15

    resumed = subprocess.run(cmd, env=env_with_cache(cache), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    # no library noise: llama.cpp's loading and state-restore logs, transformers' progress bars
    for noise in ("state_read_meta", "llama_", "Loading weights", "ggml"):
        assert noise not in resumed.stderr, resumed.stderr[-2000:]
    assert not list(out.glob(".results.*"))  # the re-run removed the killed run's temporary file
    manifest = json.loads((out / "manifest.json").read_text())
    hits = sum(m["cache_hits"] for m in manifest["metrics"].values())
    calls = sum(m["judge_calls"] for m in manifest["metrics"].values())
    assert hits >= killed_at  # every finished reply was reused...
    assert calls == _cached_replies(cache) - killed_at  # ...and only the rest were called
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    expected = {k: v for k, v in scores(inprocess_run.rows).items() if k[0] in {r["id"] for r in rows}}
    assert scores_of(rows) == expected


def scores_of(rows: list[dict]) -> dict:
    return {(r["id"], m): (r[m], r[f"{m}_reason"]) for r in rows for m in METRICS}


def _cached_replies(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_llama_cpp_server_every_row_gets_a_score_or_an_unscored_reason(llama_server, tmp_path):
    """Three rows through the server, which cannot use the fast grammar path (three, not eight:
    the suite's slowest test, 148 s with eight, 177 s with five on a busy machine, and the rows
    past three test nothing these do: q02's date in no context is unscored without a call).
    Without logprobs: llama_cpp.server computes them in Python over the whole vocabulary (8x
    slower per call)."""
    judge = {"spec": f"openai-compat:{llama_server}#gemma", "api": "completions", "logprobs": False}
    result = ragmeter.evaluate(DATASET, METRICS, judge=judge, cache=tmp_path / "server.sqlite",
                               out=tmp_path / "out", progress=False, limit=3)
    assert_every_row_scored_or_explained(result.rows, 3)
    assert result.manifest["judge"]["base_url"] == llama_server
    for metric in METRICS:
        assert result.manifest["metrics"][metric]["unparseable"] == 0, metric
    assert sum(m["judge_calls"] for m in result.manifest["metrics"].values()) > 15


def test_llama_cpp_server_logprobs_weigh_the_verdicts(llama_server, tmp_path):
    """The HTTP path of probability-weighted verdicts: top_logprobs from a real server (one row:
    llama_cpp.server computes them in Python over the whole vocabulary, 30 s a row)."""
    judge = {"spec": f"openai-compat:{llama_server}#gemma", "api": "completions"}
    rows = [json.loads(line) for line in DATASET.read_text().splitlines()]
    rows = [r for r in rows if r["id"] == "q01"]  # q02's date is in no context: 0 without a call
    result = ragmeter.evaluate(rows, ["faithfulness"], judge=judge, cache=tmp_path / "lp.sqlite", progress=False)
    assert result.manifest["metrics"]["faithfulness"]["judgment"] == {"probability": 1}
    for row in result.rows:
        statement = row["faithfulness_evidence"]["statements"][0]
        assert 0.0 < statement["p_supported"] < 1.0
        # the score is the verdict's probability, or 0 where a literal detail is in no context
        expected = 0.0 if statement.get("not_in_contexts") else statement["p_supported"]
        assert row["faithfulness"] == pytest.approx(expected, abs=1e-4)


def test_rerun_without_cache_gives_identical_scores(inprocess_run, tmp_path):
    """q01-q04 repeat questions in pairs, so the cached run reused question embeddings that this
    run computes afresh: scores must not depend on what was in the cache, nor on call order."""
    rows = [json.loads(line) for line in DATASET.read_text().splitlines()][:4]
    fresh = ragmeter.evaluate(rows, METRICS, judge=GEMMA, cache=False, progress=False)
    expected = {k: v for k, v in scores(inprocess_run.rows).items() if k[0] in {"q01", "q02", "q03", "q04"}}
    assert scores(fresh.rows) == expected


def test_bundled_embeddings_do_not_depend_on_batch_neighbours():
    from ragmeter.embeddings.local import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    alone = embedder._embed_sync(["Where was Einstein born?"])[0]
    together = embedder._embed_sync(["a much longer neighbour sentence that forces padding in a batch",
                                     "Where was Einstein born?"])[1]
    assert alone == together


def test_ctrl_c_mid_run_exits_130_with_finished_replies_cached(tmp_path):
    """Issue 36: SIGINT while the in-process model is decoding used to free the model under the
    worker thread (exit 139, no message). Now the call stops between tokens: exit 130, the
    message, and the replies finished before it stay cached. The signal is sent once a
    progress line shows judge calls done, so the model is loaded and judging."""
    cache, out = tmp_path / "int.sqlite", tmp_path / "out"
    cmd = ragmeter_cmd() + ["evaluate", str(DATASET), "--judge", GEMMA, "--metrics", "faithfulness,context_recall",
                            "--out", str(out)]
    env = {**env_with_cache(cache), "RAGMETER_PROGRESS_SECONDS": "0.1"}
    # a shell's background job ignores SIGINT and its children inherit that: restore the default, as a terminal has it
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        calls = next((int(w) for w, n in zip(line.split(), line.split()[1:]) if n == "judge" and w.isdigit()), 0)
        if calls >= 2:
            break
    assert proc.poll() is None, "".join(seen)[-2000:]
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    code = proc.wait(timeout=120)
    assert code == 130, (code, rest[-2000:])
    assert "stopping on Ctrl-C; finished judge replies are cached" in rest
    assert _cached_replies(cache) >= 2
    assert not list(out.glob("results.*"))  # no half-written results file
