"""The output folder, checked before the first judge call: writable, and not holding another
run's results unless the user said `overwrite`.

A folder whose manifest records the same run (same dataset file and content, metrics,
judge, prompts, limit) is that run again, e.g. a re-run after a kill or with a warm cache,
and is replaced without a word; a different run is refused. `{timestamp}` in the path
gives every run its own folder (`--out 'runs/{timestamp}'`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError
from ragmeter.io.writers import FORMATS

#: The config keys that make a different run (metrics, judge and embeddings are compared
#: as resolved: `llamacpp` and `llamacpp:qwen-coder-1.5b` are one judge).
THE_RUN = ("limit", "columns", "language", "prompts_dir", "shard")


def expand(output: str, now: dt.datetime | None = None) -> str:
    """`{timestamp}` becomes the UTC time, e.g. runs/20261122-184613."""
    if "{timestamp}" not in output:
        return output
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%d-%H%M%S")
    return output.replace("{timestamp}", stamp)


def run_fingerprint(config: dict[str, object], dataset_sha256: str | None, metrics: list[Any],
                    judge: dict[str, object] | None, embeddings: dict[str, object] | None) -> dict[str, object]:
    """What makes two runs the same run: the data, the resolved metrics with their settings,
    the judge's and the embedder's identities, and the config keys that change results.
    Redacted as the manifest is (text.redact_urls), so a run reads back as the same run."""
    from ragmeter.text import redact_urls, redact_value

    fingerprint = {"config": {k: config.get(k) for k in THE_RUN}, "dataset_sha256": dataset_sha256,
                   "metrics": metrics, "judge": judge, "embeddings": embeddings}
    return json.loads(json.dumps(redact_value(fingerprint, redact_urls)))  # as it reads back from a manifest


def prepare_output(out_dir: Path, fingerprint: Mapping[str, object], overwrite: bool,
                   fingerprint_of: Any = None) -> None:
    """Fail now, before any judge call, if results could not be written there or would
    replace another run's. `fingerprint_of(manifest_path)`: how to read a folder's
    fingerprint back (default: an evaluation run's)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"output folder {out_dir} is a file, not a folder")
    if out_dir.is_symlink() and not out_dir.exists():
        raise ConfigError(f"output folder {out_dir} is a symbolic link to {os.readlink(out_dir)}, which does not "
                          "exist: create that folder, or write elsewhere")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".ragmeter-write-check."):
            pass
    except OSError as exc:
        raise ConfigError(f"cannot write to output folder {out_dir}: {exc.strerror or exc}") from None
    manifest = out_dir / "manifest.json"
    if overwrite or not manifest.is_file():
        return
    if (fingerprint_of or _fingerprint_of)(manifest) != json.loads(json.dumps(fingerprint)):
        raise ConfigError(f"output folder {out_dir} holds another run's results ({manifest.name}); "
                          "pass --overwrite to replace them, or write elsewhere, e.g. --out 'runs/{timestamp}'")


def remove_other_results(out_dir: Path, kept: Path) -> None:
    """One results file per folder: a run in another format removes the old one."""
    for fmt in FORMATS:
        other = out_dir / f"results.{fmt}"
        if other != kept and other.is_file():
            os.unlink(other)


#: what the manifest's judge record holds besides the judge's identity (run/record.py, judge_record)
NOT_IDENTITY = ("name", "api_key_env", "reasons", "calibration", "servers", "batches")


def _fingerprint_of(manifest: Path) -> dict[str, object] | None:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        judge = {k: v for k, v in data["judge"].items() if k not in NOT_IDENTITY} if data["judge"] else None
        metrics = [[label, m["metric"], m["settings"]] for label, m in data["metrics"].items()]
        return run_fingerprint(data["config"], data["dataset"]["sha256"], metrics, judge, data["embeddings"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # unreadable: not provably the same run
