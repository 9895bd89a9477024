"""Saved prompt prefixes on disk (issue 63): a state is read back only by the same model,
build and settings, only whole and undamaged, and the folder stays under its size."""

from __future__ import annotations

import os

from ragmeter.judges.llamacpp.prefix_store import PrefixStore, default_dir

TOKENS = (151644, 8948, 198, 2610)


def test_a_saved_state_is_read_back_by_the_same_identity_only(tmp_path):
    store = PrefixStore(tmp_path, "model==1|llama 0.3|threads=2")
    store.put(TOKENS, b"\x01\x02kv cells")
    assert store.get(TOKENS) == b"\x01\x02kv cells"
    assert store.get(TOKENS[:-1]) is None  # another prefix
    assert PrefixStore(tmp_path, "model==1|llama 0.3|threads=4").get(TOKENS) is None  # other settings
    assert (store.reads, store.writes) == (1, 1)
    assert [p.suffix for p in tmp_path.iterdir()] == [".kv"]  # no temporary file left


def test_a_damaged_or_torn_file_is_not_read(tmp_path):
    store = PrefixStore(tmp_path, "id")
    store.put(TOKENS, b"x" * 1000)
    path = store.path(TOKENS)
    raw = path.read_bytes()
    path.write_bytes(raw[:-1] + b"y")  # one byte changed
    assert store.get(TOKENS) is None
    path.write_bytes(raw[:500])  # cut short
    assert store.get(TOKENS) is None
    assert store.reads == 0


def test_the_oldest_files_go_past_the_size_limit(tmp_path):
    store = PrefixStore(tmp_path, "id", max_bytes=2500)
    for i in range(3):
        store.put((i,), bytes(1000))
        os.utime(store.path((i,)), (1000 + i, 1000 + i))
    assert store.get((0,)) is None and store.get((1,)) == bytes(1000) and store.get((2,)) == bytes(1000)


def test_a_folder_that_cannot_be_written_is_no_error(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    store = PrefixStore(blocked / "prefixes", "id")
    store.put(TOKENS, b"state")
    assert store.get(TOKENS) is None and store.writes == 0


def test_the_folder_is_beside_the_run_cache_unless_named(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGMETER_CACHE", str(tmp_path / "c" / "cache.sqlite"))
    monkeypatch.delenv("RAGMETER_PREFIXES", raising=False)
    assert default_dir() == tmp_path / "c" / "prefixes"
    monkeypatch.setenv("RAGMETER_PREFIXES", str(tmp_path / "p"))
    assert default_dir() == tmp_path / "p"


def test_only_a_regular_file_of_a_bounded_size_is_read_never_a_link_or_a_fifo(tmp_path):
    """Issue 77 item 5: a FIFO under a key hung the run (0 calls, deaf to SIGTERM), and a link
    to /dev/zero grew to 6.7 GB in 18.6 s. Only a regular file, not a link, no larger than the
    store, is read; anything else is a miss (evaluated again)."""
    store = PrefixStore(tmp_path, "id", max_bytes=4096)
    path = store.path(TOKENS)
    os.mkfifo(path)  # nobody writes it: opened blocking, this read would never end
    assert store.get(TOKENS) is None
    path.unlink()
    path.symlink_to("/dev/zero")
    assert store.get(TOKENS) is None
    path.unlink()
    elsewhere = tmp_path / "elsewhere.kv"
    PrefixStore(tmp_path / "other", "id").put(TOKENS, b"state")
    elsewhere.write_bytes((tmp_path / "other" / path.name).read_bytes())
    path.symlink_to(elsewhere)  # a valid state, but through a link
    assert store.get(TOKENS) is None
    path.unlink()
    PrefixStore(tmp_path / "big", "id").put(TOKENS, b"x" * 5000)  # a valid state larger than the store
    path.write_bytes((tmp_path / "big" / path.name).read_bytes())
    assert store.get(TOKENS) is None and store.reads == 0
    store.put(TOKENS, b"state")
    assert store.get(TOKENS) == b"state"


def test_another_keys_state_renamed_to_a_key_is_not_restored(tmp_path):
    """Issue 77 item 7: a state was bound to its key by its file name only, so another prompt's
    state renamed to a key was restored silently. The digest covers the key too."""
    store = PrefixStore(tmp_path, "id")
    store.put(TOKENS, b"the cells of TOKENS")
    store.put(TOKENS[:-1], b"the cells of another prefix")
    os.replace(store.path(TOKENS[:-1]), store.path(TOKENS))
    assert store.get(TOKENS) is None and store.reads == 0
    store.put(TOKENS, b"the cells of TOKENS")  # computed again and saved
    assert store.get(TOKENS) == b"the cells of TOKENS"


def test_trimming_past_what_cannot_be_removed_is_no_error(tmp_path, monkeypatch):
    """Issue 77 item 6: an oldest `*.kv` that was a folder, or a file that could not be
    deleted, ended a finished run (exit 2) from `_trim`. Both are kept and the store goes on."""
    from pathlib import Path

    (tmp_path / "0000-a-folder.kv").mkdir()
    os.utime(tmp_path / "0000-a-folder.kv", (1, 1))
    store = PrefixStore(tmp_path, "id", max_bytes=2500)
    store.put((0,), bytes(1000))
    os.utime(store.path((0,)), (2, 2))  # the oldest file, and one the system will not remove
    unlink = Path.unlink

    def refused(self, missing_ok=False):
        if self == store.path((0,)):
            raise PermissionError(13, "Permission denied", str(self))
        return unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", refused)
    for i in range(1, 4):
        store.put((i,), bytes(1000))
        os.utime(store.path((i,)), (2 + i, 2 + i))
    assert store.writes == 4 and (tmp_path / "0000-a-folder.kv").is_dir()
    assert store.get((0,)) == bytes(1000) and store.get((3,)) == bytes(1000)
    assert store.get((1,)) is None  # the oldest file it could remove went


def test_a_put_does_not_list_the_folder_while_it_is_under_its_size(tmp_path, monkeypatch):
    """Issue 77 item 6: every put globbed and stat'ed the whole folder (33 s a put beside
    100,000 files). The folder is scanned once, then kept as a running total; over the limit
    with files it cannot remove, it is scanned again only every RESCAN_EVERY puts."""
    from ragmeter.judges.llamacpp import prefix_store

    scans = []
    scan = PrefixStore._scan
    monkeypatch.setattr(PrefixStore, "_scan", lambda self: scans.append(1) or scan(self))
    store = PrefixStore(tmp_path, "id", max_bytes=10_000)
    for i in range(50):
        store.put((i,), bytes(100))
        os.utime(store.path((i,)), (1000 + i, 1000 + i))
    assert len(scans) == 1
    for _ in range(10):  # the same key again, larger: the running total follows
        store.put((0,), bytes(200))
    os.utime(store.path((0,)), (1000, 1000))
    assert len(scans) == 1
    store.put((99,), bytes(5000))  # over the limit: scanned once, the oldest removed
    assert len(scans) == 2
    assert store.get((0,)) is None and store.get((1,)) is None and store.get((99,)) == bytes(5000)
    assert sum(f.stat().st_size for f in tmp_path.glob("*.kv")) <= 10_000

    stuck = PrefixStore(tmp_path / "stuck", "id", max_bytes=10)
    unlink = prefix_store.Path.unlink

    def refused(self, missing_ok=False):  # every saved state is one the system will not remove
        if self.suffix == ".kv":
            raise PermissionError(13, "Permission denied", str(self))
        return unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(prefix_store.Path, "unlink", refused)
    scans.clear()
    for i in range(2 * prefix_store.RESCAN_EVERY):
        stuck.put((i,), bytes(100))
    assert len(scans) == 2 and stuck.writes == 2 * prefix_store.RESCAN_EVERY
