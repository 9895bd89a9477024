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


class _FullDisk:
    """A sqlite connection whose writes fail as on a full disk while `full` is set."""

    def __init__(self, db: object) -> None:
        self.db, self.full = db, True

    def execute(self, sql: str, *args: object) -> object:
        if self.full and sql == "BEGIN":
            import sqlite3

            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)

    def __enter__(self) -> object:
        return self.db.__enter__()  # type: ignore[attr-defined]

    def __exit__(self, *exc: object) -> object:
        return self.db.__exit__(*exc)  # type: ignore[attr-defined]


def test_a_failed_timed_flush_stops_the_next_put_and_loses_no_entry(tmp_path: Path) -> None:
    """The timed flush runs as an event-loop callback: its failure on a full disk used to be
    printed as asyncio's 'Exception in callback' traceback while the run went on and its
    entries were dropped. Now the next put raises that error (one line at the CLI, exit 3)
    and the held entries are written once there is room (closing the cache tries again)."""
    import asyncio
    import sqlite3

    import pytest

    path = tmp_path / "c.sqlite"
    cache = Cache(path)
    disk = _FullDisk(cache._db)
    cache._db = disk  # type: ignore[assignment]

    async def run() -> None:
        cache._flushed = float("inf")  # a commit just happened: the next puts are held for the timer
        cache.put(make_key({"row": 1}), {"v": 1})
        cache.put(make_key({"row": 2}), {"v": 2})
        assert cache._timer is not None
        cache._timer.cancel()
        cache._timed_flush()  # what the timer calls, on a full disk: no exception escapes into the loop
        with pytest.raises(sqlite3.OperationalError, match="disk is full"):
            cache.put(make_key({"row": 3}), {"v": 3})

    asyncio.run(run())
    disk.full = False
    cache._failed = None
    cache.close()
    reopened = Cache(path)
    assert [reopened.get(make_key({"row": i})) for i in (1, 2, 3)] == [{"v": 1}, {"v": 2}, {"v": 3}]
