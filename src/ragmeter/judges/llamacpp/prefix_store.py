"""Saved prompt prefixes on disk: the KV cells of a metric's shared prefix (instruction and
few-shot examples) kept across runs, so a new run of the same metrics on new rows restores
them instead of evaluating them again (measured on the quickstart: docs/benchmarks.md).

A prefix's cells are what llama.cpp computes for its tokens on this model, build, machine and
settings, so the key holds all of them (the model's identity, llama.cpp's version and its CPU
features, the window, batch sizes and threads): restored cells are bitwise the computed ones
(prompt.py), a run gives the same replies with the store or without it, and a file made
elsewhere is never read. Each file carries its digest, checked on read (a torn or damaged
file is evaluated again). Only a regular file in the folder, no larger than the store, is
read (never a link, a FIFO or a device). Files are written whole (a temporary file renamed)
and the oldest are removed past `max_bytes`.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

MAGIC = b"RMPFX1\n"
DIGEST = 32


def default_dir() -> Path:
    """Beside the run cache (RAGMETER_CACHE, else ~/.cache/ragmeter), or RAGMETER_PREFIXES."""
    from ragmeter.cache import default_cache_path

    found = os.environ.get("RAGMETER_PREFIXES")
    return Path(found) if found else default_cache_path().parent / "prefixes"


class PrefixStore:
    """Prefix KV states as files named by a digest of (identity, tokens)."""

    def __init__(self, root: Path, identity: str, max_bytes: int = 1 << 30) -> None:
        self.root, self.identity, self.max_bytes = root, identity, max_bytes
        self.reads = self.writes = 0

    def path(self, tokens: tuple[int, ...]) -> Path:
        digest = hashlib.sha256(self.identity.encode("utf-8"))
        digest.update(b"\0" + b",".join(str(t).encode() for t in tokens))
        return self.root / f"{digest.hexdigest()}.kv"

    def get(self, tokens: tuple[int, ...]) -> bytes | None:
        """The saved state, or None (none saved, not a regular file of a bounded size, or a
        file that fails its digest)."""
        raw = _read_regular(self.path(tokens), len(MAGIC) + DIGEST + self.max_bytes)
        if raw is None:
            return None
        head, body = raw[:len(MAGIC) + DIGEST], raw[len(MAGIC) + DIGEST:]
        if head[:len(MAGIC)] != MAGIC or hashlib.sha256(body).digest() != head[len(MAGIC):]:
            return None
        self.reads += 1
        return body

    def put(self, tokens: tuple[int, ...], state: bytes) -> None:
        """Save a state whole, or not at all (a full disk or a read-only cache is no error)."""
        target = self.path(tokens)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.root, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(MAGIC + hashlib.sha256(state).digest() + state)
                os.replace(tmp, target)
            finally:
                Path(tmp).unlink(missing_ok=True)
        except OSError:
            return
        self.writes += 1
        self._trim()

    def _trim(self) -> None:
        """The oldest files removed while the folder holds more than `max_bytes`."""
        try:
            files = sorted((p.stat().st_mtime, p.stat().st_size, p) for p in self.root.glob("*.kv"))
        except OSError:
            return
        total = sum(size for _, size, _ in files)
        for _, size, path in files:
            if total <= self.max_bytes:
                break
            path.unlink(missing_ok=True)
            total -= size


def _read_regular(path: Path, cap: int) -> bytes | None:
    """The bytes of `path` if it is a regular file (not a link: O_NOFOLLOW) of at most `cap`
    bytes, else None. Opened without blocking, so a FIFO put in its place cannot hold the run."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > cap:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            raw = handle.read(cap + 1)
        return raw if len(raw) <= cap else None
    except OSError:
        return None
    finally:
        os.close(fd)
