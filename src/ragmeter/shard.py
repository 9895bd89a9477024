"""`--shard I/N`: a SLURM array task scores the rows whose id hashes to shard I of N
(results/merge.py joins the shards). Only the standard library here: run/config.py validates with it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from typing import Any

from ragmeter.errors import ConfigError, DataError


def parse_shard(text: str) -> tuple[int, int]:
    """'3/8' -> (3, 8): shard indexes run from 0 to N-1 (as SLURM_ARRAY_TASK_ID does)."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not match:
        raise ConfigError(f"--shard '{text}': expected I/N, e.g. 0/8 (shards 0 to N-1)")
    index, count = int(match[1]), int(match[2])
    if count < 1 or index >= count:
        raise ConfigError(f"--shard {index}/{count}: the index must be between 0 and {count - 1}")
    return index, count


def shard_of(row_id: str, count: int) -> int:
    """A row's shard from a hash of its id: stable across machines, Python versions and row order."""
    return int.from_bytes(hashlib.sha256(row_id.encode()).digest()[:8], "big") % count


def take_shard(dataset: Any, shard: str) -> Any:
    """The dataset's rows of this shard; a dataset without its own ids is refused (positions
    change when a file is edited, so a row could be scored twice or never)."""
    index, count = parse_shard(shard)
    ids = dataset.ids()
    if all(re.fullmatch(r"row-\d+", row_id) for row_id in ids):  # readers.py numbers rows without ids
        raise DataError("--shard needs an `id` column: row positions are not stable ids (add one, or map one "
                        "with --column id=YOUR_COLUMN)", source=dataset.source)
    keep = [n for n, row_id in enumerate(ids) if shard_of(row_id, count) == index]
    return replace(dataset, samples=[dataset.samples[n] for n in keep], records=[dataset.records[n] for n in keep])


