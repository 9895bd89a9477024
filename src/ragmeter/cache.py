"""Content-addressed judge and embedding cache in sqlite3, stored as JSON (never pickle).

A key is a tagged hash ("j2:" / "e1:") of canonical JSON: backend identity, decoding
parameters, messages, output schema and prompt version. Only replies that validated are
stored, and each is committed at once, so a run killed at any point loses nothing that
finished and a re-run calls the judge only for what is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

KEY_VERSION = "j2"  # j2: replies carry label probabilities
EMBED_KEY_VERSION = "e1"
TABLES = ("replies", "embeddings", "faults", "estimates", "batches")


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
    run's dry-run estimate (dry_run.py) and the batch each submitted request is in
    (judges/batch.py); all JSON text keyed by hash."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        for table in TABLES:
            self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")

    def get(self, key: str, table: str = "replies") -> Any | None:
        row = self._db.execute(f"SELECT value FROM {table} WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any, table: str = "replies") -> None:
        self._db.execute(f"INSERT OR REPLACE INTO {table} (key, value) VALUES (?, ?)",
                         (key, canonical_json(value)))

    def delete(self, key: str, table: str = "replies") -> None:
        self._db.execute(f"DELETE FROM {table} WHERE key = ?", (key,))

    def count(self, table: str = "replies") -> int:
        return self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]

    def merge_from(self, other: str | Path) -> int:
        """Copy another cache file's entries in (per-worker caches joined after a distributed
        run); returns how many were new. Keys are content hashes, so an entry both hold is the
        same value and is kept once."""
        before = sum(self.count(t) for t in TABLES)
        self._db.execute("ATTACH DATABASE ? AS other", (str(other),))
        try:
            for table in TABLES:
                self._db.execute(f"INSERT OR IGNORE INTO {table} (key, value) SELECT key, value FROM other.{table}")
        finally:
            self._db.execute("DETACH DATABASE other")
        return sum(self.count(t) for t in TABLES) - before

    def close(self) -> None:
        self._db.close()


class NullCache(Cache):
    """Cache disabled (`--no-cache`): every call goes to the judge."""

    def __init__(self) -> None:  # noqa: D107 - nothing to open
        self.path = Path(os.devnull)

    def get(self, key: str, table: str = "replies") -> Any | None:
        return None

    def put(self, key: str, value: Any, table: str = "replies") -> None:
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
