"""Saved prompt prefixes on disk: the KV cells of a metric's shared prefix (instruction and
few-shot examples) kept across runs, so a new run of the same metrics on new rows restores
them instead of evaluating them again (measured on the quickstart: docs/benchmarks.md).

A prefix's cells are what llama.cpp computes for its tokens on this model, build, machine and
settings, so the key holds all of them (the model's identity, llama.cpp's version and its CPU
features, the window, batch sizes and threads): restored cells are bitwise the computed ones
(prompt.py), a run gives the same replies with the store or without it, and a file made
elsewhere is never read. Each file carries a digest of its key and its cells, checked on read:
a torn or damaged file, or one holding another key's cells (renamed), is evaluated again.
Only a regular file in the folder, no larger than the store, is read (never a link, a FIFO or
a device). Files are written whole (a temporary file renamed) and the oldest are removed past
`max_bytes`; a file that cannot be removed, a full disk or a read-only folder is no error.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

#: version 2: the digest covers the key (file name) too, so a renamed file is not read
MAGIC = b"RMPFX2\n"
DIGEST = 32
#: puts between two scans of the folder while it stays over its size (files it cannot remove)
RESCAN_EVERY = 64


def default_dir() -> Path:
    """Beside the run cache (RAGMETER_CACHE, else ~/.cache/ragmeter), or RAGMETER_PREFIXES."""
    from ragmeter.cache import default_cache_path

    found = os.environ.get("RAGMETER_PREFIXES")
    return Path(found) if found else default_cache_path().parent / "prefixes"


class PrefixStore:
    """Prefix KV states as files named by a digest of (identity, tokens). The folder's size is
    kept as a running total (scanned once, then added to by each put), so a put does not list
    the folder; it is scanned again only to trim it."""

    def __init__(self, root: Path, identity: str, max_bytes: int = 1 << 30) -> None:
        self.root, self.identity, self.max_bytes = root, identity, max_bytes
        self.reads = self.writes = 0
        self._size: int | None = None  # bytes of *.kv in the folder, once scanned
        self._since_scan = 0  # puts since the folder was last scanned
        self._stuck = False  # the last trim could not bring the folder under max_bytes

    def path(self, tokens: tuple[int, ...]) -> Path:
        digest = hashlib.sha256(self.identity.encode("utf-8"))
        digest.update(b"\0" + b",".join(str(t).encode() for t in tokens))
        return self.root / f"{digest.hexdigest()}.kv"

    def get(self, tokens: tuple[int, ...]) -> bytes | None:
        """The saved state, or None (none saved, not a regular file of a bounded size, or a
        file that fails its digest)."""
        path = self.path(tokens)
        raw = _read_regular(path, len(MAGIC) + DIGEST + self.max_bytes)
        if raw is None:
            return None
        head, body = raw[:len(MAGIC) + DIGEST], raw[len(MAGIC) + DIGEST:]
        if head[:len(MAGIC)] != MAGIC or _digest(path.name, body) != head[len(MAGIC):]:
            return None
        self.reads += 1
        return body

    def put(self, tokens: tuple[int, ...], state: bytes) -> None:
        """Save a state whole, or not at all (a full disk or a read-only cache is no error)."""
        target = self.path(tokens)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            replaced = _regular_size(target)
            fd, tmp = tempfile.mkstemp(dir=self.root, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(MAGIC + _digest(target.name, state) + state)
                os.replace(tmp, target)
            finally:
                Path(tmp).unlink(missing_ok=True)
        except OSError:
            return
        self.writes += 1
        if self._size is not None:
            self._size += len(MAGIC) + DIGEST + len(state) - replaced
        self._since_scan += 1
        self._trim()

    def _trim(self) -> None:
        """The oldest files removed while the folder holds more than `max_bytes`. The folder
        is scanned on the first put, then only when the running total is over the limit (and,
        while files it cannot remove keep it over, once every RESCAN_EVERY puts)."""
        if self._size is not None and self._size <= self.max_bytes:
            return
        if self._size is not None and self._stuck and self._since_scan < RESCAN_EVERY:
            return
        files = self._scan()
        if files is None:
            return
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError:  # not ours to remove, or a read-only folder: kept, counted
                continue
            total -= size
        self._size, self._since_scan, self._stuck = total, 0, total > self.max_bytes

    def _scan(self) -> list[tuple[float, int, Path]] | None:
        """(modified, size, path) of every regular *.kv file in the folder, or None when it
        cannot be listed; links, folders and other entries are neither counted nor removed."""
        files = []
        try:
            with os.scandir(self.root) as entries:
                for entry in entries:
                    if not entry.name.endswith(".kv"):
                        continue
                    try:
                        if entry.is_file(follow_symlinks=False):
                            info = entry.stat(follow_symlinks=False)
                            files.append((info.st_mtime, info.st_size, Path(entry.path)))
                    except OSError:
                        continue
        except OSError:
            return None
        return files


def _digest(name: str, state: bytes) -> bytes:
    """The digest a file carries: of its key (its name) and its cells together."""
    digest = hashlib.sha256(name.encode("utf-8") + b"\0")
    digest.update(state)
    return digest.digest()


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


def _regular_size(path: Path) -> int:
    """The size of the regular file a put replaces (0 when none), for the running total."""
    try:
        info = path.lstat()
    except OSError:
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0
