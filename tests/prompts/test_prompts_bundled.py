"""Prompts on the real bundled model: a Spanish run with the built-in Spanish prompts, and
`prompts adapt` finishing with the bundled judge (where Ragas's adapt_prompts fails)."""

from __future__ import annotations

import json
import subprocess

import pytest

from ragmeter.metrics import get_metric
from ragmeter.prompts.files import read_prompt_file
from tests.bundled import GEMMA, METRICS, ROOT, env_with_cache, ragmeter_cmd

pytestmark = pytest.mark.model
DATASET_ES = ROOT / "examples" / "dataset_es.jsonl"


def test_spanish_run_scores_every_row_with_spanish_prompts(tmp_path):
    out = tmp_path / "es"
    done = subprocess.run(ragmeter_cmd() + ["evaluate", str(DATASET_ES), "--judge", GEMMA, "--language", "spanish",
                                            "--out", str(out)],
                          env=env_with_cache(tmp_path / "c.sqlite"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["language"] == "spanish" and manifest["prompt_notes"] == []
    assert {p["language"] for m in manifest["prompts"].values() for p in m.values()} == {"spanish"}
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6
    for row in rows:
        for metric in METRICS:
            assert row[metric] is not None, f"{row['id']} {metric}: {row[f'{metric}_reason']}"
    questions = [q for r in rows for q in r["response_relevancy_evidence"]["generated_questions"]]
    assert sum(q.startswith("¿") for q in questions) >= len(questions) // 2  # asked in Spanish


def test_adapt_with_the_bundled_judge_finishes_and_its_files_run(tmp_path):
    out, cache = tmp_path / "adapted", tmp_path / "c.sqlite"
    adapt = ragmeter_cmd() + ["prompts", "adapt", "--judge", GEMMA, "--language", "spanish", "--out", str(out),
                              "--metrics", "faithfulness,context_relevance"]
    done = subprocess.run(adapt, env=env_with_cache(cache), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == ["context_relevance.likelihood.spanish.json", "context_relevance.rating1.spanish.json",
                                       "context_relevance.rating2.spanish.json",
                                       "faithfulness.statements.spanish.json", "faithfulness.verdicts.spanish.json"]
    for path in files:
        adapted = read_prompt_file(path, get_metric).adapted  # every file is structurally valid
        assert adapted["strings"] == adapted["translated"] + adapted["unchanged"] + len(adapted["kept_original"])
    run = ragmeter_cmd() + ["evaluate", str(DATASET_ES), "--judge", GEMMA, "--language", "spanish", "--prompts-dir", str(out),
                            "--metrics", "faithfulness,context_relevance", "--limit", "2", "--out", str(tmp_path / "r")]
    done = subprocess.run(run, env=env_with_cache(cache), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "machine-translated by llamacpp" in done.stderr  # the run says it is not using the reviewed prompts
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["prompts"]["faithfulness"]["statements"]["source"].endswith("faithfulness.statements.spanish.json")
    assert manifest["metrics"]["context_relevance"]["n"] + manifest["metrics"]["context_relevance"]["unscored"] == 2
