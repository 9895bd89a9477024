"""The cache under many writers: two processes writing the same store at once, and
per-worker cache files merged after a distributed run."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

from ragmeter.cache import Cache, make_key


def _write(path: str, start: int, stop: int, barrier: mp.synchronize.Barrier) -> None:
    cache = Cache(path)
    barrier.wait()  # both processes write at the same moment
    for i in range(start, stop):
        cache.put(make_key({"row": i}), {"parsed": {"value": i}})
    cache.close()


def test_two_processes_writing_one_store_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    Cache(path).close()
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    # rows 200..399 are written by both: the same key finished by two workers
    workers = [ctx.Process(target=_write, args=(path, 0, 400, barrier)),
               ctx.Process(target=_write, args=(path, 200, 600, barrier))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    cache = Cache(path)
    assert cache.count() == 600
    assert [cache.get(make_key({"row": i}))["parsed"]["value"] for i in range(600)] == list(range(600))
    cache.close()


def test_per_worker_caches_merge_into_one(tmp_path: Path) -> None:
    a, b = Cache(tmp_path / "a.sqlite"), Cache(tmp_path / "b.sqlite")
    for i in range(5):
        a.put(make_key({"row": i}), {"v": i})
    for i in range(3, 8):
        b.put(make_key({"row": i}), {"v": i})
    b.put("e1:x", [0.5, 0.25], "embeddings")
    b.close()
    assert a.merge_from(tmp_path / "b.sqlite") == 4  # rows 5, 6, 7 and one embedding are new
    assert a.count() == 8 and a.count("embeddings") == 1
    assert a.get(make_key({"row": 7})) == {"v": 7} and a.get("e1:x", "embeddings") == [0.5, 0.25]
    assert a.merge_from(tmp_path / "b.sqlite") == 0  # merging twice adds nothing
    a.close()
