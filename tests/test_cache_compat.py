"""A warm cache stays warm across refactors: the replies the code cached before the package
layout moved (tests/data/cache_compat, written by its make_fixture.py) are all hit now, so
no user pays again for a judge call they already paid for."""

from __future__ import annotations

import json
from pathlib import Path

import ragmeter
from ragmeter.cache import Cache
from ragmeter.judges.scripted import ScriptedJudge

FIXTURE = Path(__file__).resolve().parent / "data" / "cache_compat"


def test_a_cache_written_before_the_layout_move_is_hit_fully(tmp_path):
    replies = json.loads((FIXTURE / "replies.json").read_text(encoding="utf-8"))
    cache = Cache(tmp_path / "cache.sqlite")
    cache.put_many(replies)
    cache.close()

    def no_call(request):  # a miss would reach the judge: fail loudly instead
        raise AssertionError(f"cache miss for {request.tag}")

    result = ragmeter.evaluate(FIXTURE / "dataset.jsonl", ["faithfulness", "context_relevance", "context_recall"],
                               judge=ScriptedJudge(no_call, name="cache-compat"), cache=str(tmp_path / "cache.sqlite"),
                               prompts_dir=FIXTURE / "prompts", progress=False)
    metrics = result.manifest["metrics"]
    assert {name: m["judge_calls"] for name, m in metrics.items()} == {
        "faithfulness": 0, "context_relevance": 0, "context_recall": 0}
    assert sum(m["cache_hits"] for m in metrics.values()) >= len(replies)
    assert [m["mean"] for m in metrics.values()] == [1.0, 1.0, 1.0]
