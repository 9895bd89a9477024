"""`ragmeter align` on the real bundled judge (Gemma, for speed): the run's cached calls are
reused, only the held-out rows are judged again, and the written folder is a prompt set."""

from __future__ import annotations

import json

import pytest

import ragmeter
from ragmeter.meta_eval import roc_auc
from ragmeter.meta_eval.align import align
from tests.bundled import GEMMA

pytestmark = pytest.mark.model

THINGS = ("door", "car", "kite", "boat", "cup", "hat", "bike", "lamp")
COLOURS = ("red", "green", "blue", "yellow")


def test_align_reuses_the_run_and_writes_a_prompt_set_a_run_takes(tmp_path):
    rows, labels = [], {}
    for i in range(32):
        thing, colour = THINGS[i % 8], COLOURS[i % 4]
        said = colour if i % 2 == 0 else COLOURS[(i + 1) % 4]
        rows.append({"id": f"r{i:02d}", "user_input": f"What colour is the {thing} in note {i}?",
                     "response": f"The {thing} in note {i} is painted {said} all over.",
                     "retrieved_contexts": [f"Note {i}: the {thing} is painted {colour} all over."]})
        labels[f"r{i:02d}"] = int(said == colour)
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = ragmeter.evaluate(data, ["faithfulness"], judge=GEMMA, out=tmp_path / "run",
                            cache=str(tmp_path / "cache.sqlite"), progress=False)
    labelled = tmp_path / "labels.jsonl"
    labelled.write_text("".join(json.dumps({"id": k, "metric": "faithfulness", "label": v}) + "\n"
                                for k, v in labels.items()))
    result = align(tmp_path / "run", labelled, "faithfulness", out=tmp_path / "aligned", folds=4, force=True)
    assert result.rows == 32 and result.judge.startswith("llamacpp:gemma-270m")
    assert result.judge_calls == 32  # the run's calls are cache hits: only the held-out rows are judged again
    scores = [r["faithfulness"] for r in run.rows]
    assert result.before["roc_auc"].value == pytest.approx(roc_auc(scores, [labels[r["id"]] for r in run.rows]))
    written = json.loads((tmp_path / "aligned" / "faithfulness.verdicts.english.json").read_text())
    shown = [e["input"]["statements"][0] for e in written["examples"]]
    assert len(shown) == 4 and all(s in {r["response"] for r in rows} for s in shown)
    assert sorted(e["output"]["verdicts"][0]["verdict"] for e in written["examples"]) == [0, 0, 1, 1]
    again = ragmeter.evaluate(data, ["faithfulness"], judge=GEMMA, prompts_dir=str(tmp_path / "aligned"),
                              cache=str(tmp_path / "cache.sqlite"), progress=False)
    assert all(0 <= r["faithfulness"] <= 1 for r in again.rows)
    assert again.manifest["prompts"]["faithfulness"]["verdicts"]["source"].endswith("faithfulness.verdicts.english.json")
