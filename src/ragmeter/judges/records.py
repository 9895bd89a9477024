"""Small JSON files beside the cache that remember facts about a judge across runs, keyed by
the judge's identity: its measured speed (`judge-speed.json`, bench-judge) and its last
judge check (`judge-checks.json`, judge-check). A damaged file reads as empty (the fact is
measured again, never fatal); writes replace the file atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ragmeter.cache import default_cache_path, make_key


def record_file(name: str, env: str) -> Path:
    """`name` beside the default cache, or the path in the environment variable `env`."""
    return Path(os.environ.get(env) or default_cache_path().parent / name)


def judge_key(identity: dict[str, object], tag: str = "s1") -> str:
    return make_key({"judge": identity}, tag)


def read_records(path: Path) -> dict[str, object]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def write_record(path: Path, key: str, value: object) -> Path:
    """Store `value` under `key` (replacing an earlier one), atomically."""
    records = read_records(path)
    records[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(records, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)
    return path
