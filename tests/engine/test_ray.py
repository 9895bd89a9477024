"""Ray in local mode with 2 workers: the same results as a local run and as shards merged,
a worker killed mid-run changes nothing, and bad addresses or a missing extra fail first."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import sys
import threading

import pytest
import ray  # noqa: E402 - the ray extra, which make test installs: missing, the suite fails

from ragmeter.engine.settings import EngineConfig
from ragmeter.errors import ConfigError
from ragmeter.results.merge import merge_runs
from ragmeter.results.runs import load_run
from ragmeter.run.config import RunConfig
from ragmeter.run.execute import run_config
from tests.http_fakes import JSONHandler, serving

pytestmark = pytest.mark.ray

ROWS = [{"id": f"item-{i}", "user_input": f"Which colour is item {i}?", "response": f"Item {i} is red.",
         "reference": f"Item {i} is {'red' if i % 3 else 'blue'}.",
         "retrieved_contexts": [f"Item {i} is a red thing.", f"Note {i % 4}."]} for i in range(24)]
METRICS = ["context_relevance", "rouge"]


class Judge(JSONHandler):
    """A deterministic judge: the rating is a hash of the prompt. With `hold_at` set, the
    request that makes `served` reach it sets `reached` and is answered only once `released`
    is set: the run is mid-way by construction, not by timing."""

    served = 0
    hold_at: int | None = None
    reached = threading.Event()
    released = threading.Event()

    def do_GET(self):
        self._send({"data": [{"id": "m"}]})

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).served += 1
        if type(self).served == type(self).hold_at:
            type(self).reached.set()
            type(self).released.wait(timeout=120)
        rating = hashlib.sha256(body).digest()[0] % 3
        self._send({"choices": [{"message": {"content": json.dumps({"rating": rating})}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3}})




@pytest.fixture(scope="module")
def judge_url():
    with serving(Judge) as url:
        yield f"openai-compat:{url}/v1#m"


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, namespace="ragmeter", log_to_driver=False)
    yield
    ray.shutdown()


def run(tmp_path, judge_url, name, **kw):
    cfg = RunConfig(dataset=str(tmp_path / "data.jsonl"), output=str(tmp_path / name), metrics=METRICS,
                    judge=judge_url, cache=str(tmp_path / f"{name}.sqlite"), progress=False, **kw)
    return asyncio.run(run_config(cfg))


def scores(result):
    return [(r["id"], r["context_relevance"], r["rouge"], r["context_relevance_reason"]) for r in result.rows]


@pytest.fixture
def data(tmp_path):
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))


# the failures first: the tests after them share one local Ray (the module's fixture)
def test_an_unreachable_ray_address_fails_before_scoring(tmp_path, data, judge_url):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = Judge.served
    with pytest.raises(ConfigError, match=f"cannot reach the Ray cluster at 127.0.0.1:{port}"):
        run(tmp_path, judge_url, "nowhere", engine=EngineConfig(kind="ray", address=f"127.0.0.1:{port}"))
    assert Judge.served == before


def test_ray_without_the_extra_names_the_install_command(tmp_path, data, judge_url, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ConfigError, match=r"pip install 'ragmeter\[ray\]'"):
        run(tmp_path, judge_url, "noray", engine=EngineConfig(kind="ray"))


def test_ray_gives_the_local_results_and_a_rerun_reads_the_cache(tmp_path, data, judge_url, local_ray):
    local = run(tmp_path, judge_url, "local")
    ray_engine = EngineConfig(kind="ray", workers=2, chunk_rows=5)
    distributed = run(tmp_path, judge_url, "ray", engine=ray_engine)
    assert scores(distributed) == scores(local) and len(set(r[1] for r in scores(local))) > 1
    assert distributed.manifest["metrics"]["context_relevance"]["mean"] == local.manifest["metrics"][
        "context_relevance"]["mean"]
    assert distributed.manifest["metrics"]["context_relevance"]["ci95"] == local.manifest["metrics"][
        "context_relevance"]["ci95"]
    assert distributed.manifest["metrics"]["context_relevance"]["judge_calls"] == 48
    # the workers' replies were committed by the driver: a second Ray run calls nothing
    before = Judge.served
    again = run(tmp_path, judge_url, "ray", engine=ray_engine)
    assert Judge.served == before and scores(again) == scores(local)
    assert again.manifest["metrics"]["context_relevance"]["cache_hits"] == 48
    # and shards merged give the same rows
    for i in range(2):
        run(tmp_path, judge_url, f"shard{i}", shard=f"{i}/2")
    merge_runs([tmp_path / "shard0", tmp_path / "shard1"], tmp_path / "merged")
    merged = load_run(tmp_path / "merged")
    assert list(zip(merged.ids, merged.scores["context_relevance"], merged.scores["rouge"])) == \
        [s[:3] for s in scores(local)]


def test_a_worker_killed_mid_run_changes_nothing(tmp_path, data, judge_url, local_ray):
    local = run(tmp_path, judge_url, "local")
    Judge.reached.clear()
    Judge.released.clear()
    Judge.hold_at = Judge.served + 10  # the 10th judge call of the Ray run waits for the kill

    def kill_one():
        try:
            if Judge.reached.wait(timeout=120):
                name = next(a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                            if a["name"].startswith("ragmeter-worker-0-"))
                ray.kill(ray.get_actor(name, namespace="ragmeter"))
        finally:
            Judge.released.set()

    killer = threading.Thread(target=kill_one, daemon=True)
    killer.start()
    try:
        distributed = run(tmp_path, judge_url, "ray", engine=EngineConfig(kind="ray", workers=2, chunk_rows=4))
    finally:
        Judge.hold_at = None
        Judge.released.set()
        killer.join(timeout=120)
    assert Judge.reached.is_set() and not killer.is_alive()
    assert scores(distributed) == scores(local)
    assert distributed.manifest["faults"]["worker_restarts"] == 1


def test_the_driver_reads_rows_as_workers_take_them_and_holds_a_few_chunks(tmp_path, data, judge_url, local_ray,
                                                                           monkeypatch):
    """A Ray run over a file streams: the driver reads chunks as workers free up and hands
    finished ones to the results file in order, holding at most HELD_CHUNKS per worker."""
    from ragmeter.engine import ray as ray_engine
    from ragmeter.io.results_file import ResultsFile

    read, held = [0], []
    real_chunks, real_add = ray_engine._chunks, ResultsFile.add

    def counted(dataset, size):
        for part in real_chunks(dataset, size):
            read[0] += 1
            yield part

    def add(self, row_id, record, scores):
        held.append(read[0] - self.rows // 2)  # chunks read but not yet written (2 rows a chunk)
        real_add(self, row_id, record, scores)

    monkeypatch.setattr(ray_engine, "_chunks", counted)
    monkeypatch.setattr(ResultsFile, "add", add)
    local = run(tmp_path, judge_url, "local")
    read[0], held[:] = 0, []
    distributed = run(tmp_path, judge_url, "ray", engine=EngineConfig(kind="ray", workers=2, chunk_rows=2))
    assert scores(distributed) == scores(local)
    assert read[0] == 12 and len(held) == 24 and max(held) <= ray_engine.HELD_CHUNKS * 2 < 12
