"""Writes replies.json: the judge replies a run of the code at this commit cached, keyed as it
keyed them. tests/test_cache_compat.py replays them: a later layout or refactor must hit
every one (a miss is a paid judge call for every user with a warm cache). Prompts come from
prompts/ here, not the shipped files, so editing a shipped prompt does not touch this test.

    PYTHONPATH=src python tests/data/cache_compat/make_fixture.py
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = ["faithfulness", "context_relevance", "context_recall"]


def scripted_judge():  # type: ignore[no-untyped-def]
    from ragmeter.judges.scripted import ScriptedJudge

    replies = {"faithfulness.statements": {"statements": ["Paris is the capital of France."]},
               "faithfulness.verdicts": {"verdicts": [{"verdict": 1, "reason": "The context says so."}]},
               "context_relevance.rating1": {"rating": 2}, "context_relevance.rating2": {"rating": 2},
               "context_recall.attribution": {"verdicts": [{"verdict": 1, "reason": "The context says so."}]}}
    return ScriptedJudge(lambda request: replies[request.tag], name="cache-compat")


def main() -> None:
    import ragmeter

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache.sqlite"
        result = ragmeter.evaluate(HERE / "dataset.jsonl", METRICS, judge=scripted_judge(), cache=str(cache),
                                   prompts_dir=HERE / "prompts", progress=False)
        assert [m["mean"] for m in result.manifest["metrics"].values()] == [1.0, 1.0, 1.0], result.manifest
        rows = sqlite3.connect(cache).execute("SELECT key, value FROM replies ORDER BY key").fetchall()
    (HERE / "replies.json").write_text(json.dumps({k: json.loads(v) for k, v in rows}, indent=1) + "\n")
    print(f"wrote {len(rows)} replies")


if __name__ == "__main__":
    main()
