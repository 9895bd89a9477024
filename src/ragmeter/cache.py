"""Content-addressed judge and embedding cache in sqlite3, stored as JSON (never pickle).

A key is a tagged hash ("j2:" / "e1:") of canonical JSON: backend identity, decoding
parameters, messages, output schema and prompt version. Only replies that validated are
stored, and each is committed at once, so a run killed at any point loses nothing that
finished and a re-run calls the judge only for what is missing. (With a judge that answers
faster than FLUSH_SECONDS, replies are committed together, every 50 ms: a kill loses at
most the last 50 ms of them. A commit per reply was ragmeter's largest own cost there.)
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from ragmeter.text import canonical_json, json_text

KEY_VERSION = "j2"  # j2: replies carry label probabilities
EMBED_KEY_VERSION = "e1"
#: put() commits at once unless the last commit was less than this long ago; then it holds
#: the entry (readable meanwhile) for at most this long, committing together what arrives
FLUSH_SECONDS = 0.05
FLUSH_ENTRIES = 256
TABLES = ("replies", "embeddings", "faults", "estimates", "batches")


def make_key(payload: dict[str, Any], tag: str = KEY_VERSION) -> str:
    return f"{tag}:{hashlib.sha256(canonical_json(payload).encode()).hexdigest()}"


def default_cache_path() -> Path:
    """Per-user cache, shared across projects (keys are content hashes, so sharing is safe)."""
    if os.environ.get("RAGMETER_CACHE"):
        return Path(os.environ["RAGMETER_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "ragmeter" / "cache.sqlite"


class Cache:
    """Five tables: judge replies, embeddings, the faults each run survived (faults.py), each
    run's dry-run estimate (run/dry_run.py) and the batch each submitted request is in
    (judges/batch.py); all JSON text keyed by hash."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA wal_autocheckpoint=10000")  # pages (40 MB): a checkpoint's fsync per 40 MB, not per 4
        for table in TABLES:
            self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._pending: dict[tuple[str, str], str] = {}
        self._flushed = 0.0
        self._timer: asyncio.TimerHandle | None = None
        #: a timed flush's failure (a full disk): raised by the next put, so the run stops there
        self._failed: BaseException | None = None

    def get(self, key: str, table: str = "replies") -> Any | None:
        pending = self._pending.get((table, key))
        if pending is not None:
            return json.loads(pending)
        row = self._db.execute(f"SELECT value FROM {table} WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any, table: str = "replies") -> None:
        """Committed now, or, when the last commit was under FLUSH_SECONDS ago (a judge
        answering faster than that), with the others that arrive by then, in one transaction."""
        self._pending[(table, key)] = json_text(value)
        self._flush_soon()

    def _flush_soon(self) -> None:
        if self._failed is not None:
            raise self._failed
        if len(self._pending) >= FLUSH_ENTRIES or time.monotonic() - self._flushed >= FLUSH_SECONDS:
            self.flush()
        elif self._timer is None:
            try:
                self._timer = asyncio.get_running_loop().call_later(FLUSH_SECONDS, self._timed_flush)
            except RuntimeError:  # no event loop to flush later: now
                self.flush()

    def _timed_flush(self) -> None:
        """flush() from the event loop's timer: a failure there would be printed as asyncio's
        callback traceback and the run would go on, so it is kept for the next put to raise."""
        self._timer = None
        try:
            self.flush()
        except (sqlite3.Error, OSError) as exc:
            self._failed = exc

    def flush(self) -> None:
        """Commit what put() holds back; on failure (a full disk) the entries stay held, for a
        later flush (closing the cache tries again) to write."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending:
            pending, self._pending = self._pending, {}
            try:
                with self._db:
                    self._db.execute("BEGIN")
                    for table in {t for t, _ in pending}:
                        self._db.executemany(f"INSERT OR REPLACE INTO {table} (key, value) VALUES (?, ?)",
                                             [(k, v) for (t, k), v in pending.items() if t == table])
            except BaseException:
                self._pending = {**pending, **self._pending}
                raise
        self._flushed = time.monotonic()

    def get_many(self, keys: list[str], table: str = "replies") -> dict[str, Any]:
        """The entries found among `keys`, in one query per 500 keys instead of one per key."""
        found: dict[str, Any] = {k: json.loads(v) for k in keys if (v := self._pending.get((table, k))) is not None}
        rest = [k for k in keys if k not in found]
        for start in range(0, len(rest), 500):
            part = rest[start:start + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(f"SELECT key, value FROM {table} WHERE key IN ({marks})", part).fetchall()
            found.update((key, json.loads(value)) for key, value in rows)
        return found

    def put_many(self, items: dict[str, Any], table: str = "replies") -> None:
        """Several entries, committed together (as put() commits)."""
        for key, value in items.items():
            self._pending[(table, key)] = json_text(value)
        self._flush_soon()

    def delete(self, key: str, table: str = "replies") -> None:
        self._pending.pop((table, key), None)
        self._db.execute(f"DELETE FROM {table} WHERE key = ?", (key,))

    def count(self, table: str = "replies") -> int:
        self.flush()
        return self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]

    def merge_from(self, other: str | Path) -> int:
        """Copy another cache file's entries in (per-worker caches joined after a distributed
        run); returns how many were new. Keys are content hashes, so an entry both hold is the
        same value and is kept once."""
        self.flush()
        before = sum(self.count(t) for t in TABLES)
        self._db.execute("ATTACH DATABASE ? AS other", (str(other),))
        try:
            for table in TABLES:
                self._db.execute(f"INSERT OR IGNORE INTO {table} (key, value) SELECT key, value FROM other.{table}")
        finally:
            self._db.execute("DETACH DATABASE other")
        return sum(self.count(t) for t in TABLES) - before

    def close(self) -> None:
        self.flush()
        self._db.close()


class NullCache(Cache):
    """Cache disabled (`--no-cache`): every call goes to the judge."""

    def __init__(self) -> None:  # noqa: D107 - nothing to open
        self.path = Path(os.devnull)

    def get(self, key: str, table: str = "replies") -> Any | None:
        return None

    def put(self, key: str, value: Any, table: str = "replies") -> None:
        return None

    def get_many(self, keys: list[str], table: str = "replies") -> dict[str, Any]:
        return {}

    def flush(self) -> None:
        return None

    def put_many(self, items: dict[str, Any], table: str = "replies") -> None:
        return None

    def delete(self, key: str, table: str = "replies") -> None:
        return None

    def count(self, table: str = "replies") -> int:
        return 0

    def merge_from(self, other: str | Path) -> int:
        return 0

    def close(self) -> None:
        return None


def open_cache(setting: bool | str) -> Cache:
    """The run's cache from its setting: True (default path), False (none) or a path."""
    if setting is False or setting == "false":
        return NullCache()
    return Cache(default_cache_path() if setting is True or setting == "true" else Path(setting))


class OverlayCache(Cache):
    """A cache read through, written only in memory: the dry run's stand-in replies, and a Ray
    worker's new replies until the driver writes them."""

    def __init__(self, base: Cache) -> None:  # noqa: D107 - wraps, opens nothing
        self.path, self._base = base.path, base
        self._memory: dict[tuple[str, str], Any] = {}

    def get(self, key: str, table: str = "replies") -> Any | None:
        found = self._memory.get((table, key))
        return found if found is not None else self._base.get(key, table)

    def put(self, key: str, value: Any, table: str = "replies") -> None:
        self._memory[(table, key)] = value

    def get_many(self, keys: list[str], table: str = "replies") -> dict[str, Any]:
        found = {k: self._memory[(table, k)] for k in keys if (table, k) in self._memory}
        return {**self._base.get_many([k for k in keys if k not in found], table), **found}

    def put_many(self, items: dict[str, Any], table: str = "replies") -> None:
        for key, value in items.items():
            self.put(key, value, table)

    def flush(self) -> None:
        """Nothing is written."""

    def delete(self, key: str, table: str = "replies") -> None:
        self._memory.pop((table, key), None)

    def count(self, table: str = "replies") -> int:
        return self._base.count(table)

    def merge_from(self, other: str | Path) -> int:
        raise NotImplementedError("a dry run writes no cache")

    def close(self) -> None:
        self._base.close()
