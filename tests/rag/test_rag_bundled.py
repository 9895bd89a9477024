"""The RAG under test on the real bundled models: examples/docs -> `ragmeter index` ->
`ragmeter answer` (baseline RAG, bundled Qwen reader) -> `ragmeter evaluate`; and a 2x2
`ragmeter experiment` grid (Gemma reader and judge, for time) ending in its table."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ragmeter.rag.experiment import folder_name
from tests.bundled import GEMMA, ROOT

pytestmark = pytest.mark.model
DOCS = ROOT / "examples" / "docs"


def cli(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragmeter.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_index_answer_evaluate_on_example_docs(tmp_path):
    rows = [json.loads(line) for line in (ROOT / "examples" / "testset.jsonl").read_text().splitlines()]
    testset = tmp_path / "ts.jsonl"
    testset.write_text("".join(json.dumps(r) + "\n" for r in rows if r["question_type"] == "factoid"))
    proc = cli("index", DOCS, "--out", tmp_path / "index")
    assert proc.returncode == 0, proc.stderr
    assert "19 chunks from 7 documents: 19 embedded, 0 reused" in proc.stdout
    proc = cli("answer", testset, "--index", tmp_path / "index", "--k", "2", "--max-tokens", "48",
               "--out", tmp_path / "answers")
    assert proc.returncode == 0, proc.stderr
    answered = [json.loads(line) for line in (tmp_path / "answers" / "answers.jsonl").read_text().splitlines()]
    assert len(answered) == 2 and all(r["response"] and r["answer_error"] is None for r in answered)
    assert all(len(r["retrieved_context_ids"]) == 2 for r in answered)
    # the test set's chunk ids are the index's (same splitter, same settings)
    assert any(set(r["reference_context_ids"]) & set(r["retrieved_context_ids"]) for r in answered)
    proc = cli("evaluate", tmp_path / "answers" / "answers.jsonl", "--metrics", "recall@k,faithfulness",
               "--out", tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "results" / "manifest.json").read_text())
    assert manifest["metrics"]["recall"]["n"] == 2 and manifest["metrics"]["recall"]["mean"] > 0
    assert manifest["metrics"]["faithfulness"]["n"] == 2
    # answering again reads the cache: the reader model is not called
    proc = cli("answer", testset, "--index", tmp_path / "index", "--k", "2", "--max-tokens", "48",
               "--out", tmp_path / "answers")
    assert proc.returncode == 0 and "0 answered, 2 from the cache" in proc.stdout


def test_two_by_two_experiment(tmp_path):
    rows = [json.loads(line) for line in (ROOT / "examples" / "testset.jsonl").read_text().splitlines()]
    (tmp_path / "ts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:3]))
    (tmp_path / "experiment.yaml").write_text(
        f"testset: ts.jsonl\ndocs: {DOCS}\nout: exp\njudge: {GEMMA}\n"
        "metrics: [non_llm_context_recall, faithfulness]\n"
        f"settings: {{generator: '{GEMMA}', max_tokens: 32}}\n"
        "grid:\n  chunk_size: [600, 1200]\n  k: [1, 2]\nbaseline: {chunk_size: 1200, k: 2}\n")
    proc = cli("experiment", tmp_path / "experiment.yaml")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "exp" / "experiment.json").read_text())
    assert summary["baseline"] == "chunk_size=1200,k=2" and len(summary["table"]) == 4
    assert len(list((tmp_path / "exp" / "indexes").iterdir())) == 2  # built once per chunk size
    assert set(summary["compared_with_baseline"]) == set(summary["table"]) - {"chunk_size=1200,k=2"}
    for name, row in summary["table"].items():
        answers = [json.loads(line) for line in (tmp_path / "exp" / "variants" / folder_name(name) /
                                                 "answers.jsonl").read_text().splitlines()]
        whole = sum(a["generation_finish_reason"] != "length" for a in answers)
        # an answer cut at max_tokens is left unscored (issue 64 item 7): Gemma writes past 32 tokens often
        assert row["faithfulness"]["n"] <= whole <= 3 and row["non_llm_context_recall"]["n"] == 2  # 1 unanswerable
        assert all(a["generation_finish_reason"] in ("stop", "length") for a in answers)
    assert "chunk_size=1200,k=2 (baseline)" in proc.stdout and "paired" in proc.stdout


POLICY = """---
title: Política de teletrabajo
redirect_from:
  - /rrhh/teletrabajo-2019/
---

## Días y horarios

Se pueden teletrabajar hasta tres días por semana. Los martes son presenciales para todo el equipo.

## Equipo y gastos

La empresa entrega un portátil y una silla ergonómica. Los gastos de conexión se compensan con 35 euros al mes,
que se pagan en la nómina.
"""


def test_a_base_model_reader_stops_where_the_template_begins_again(tmp_path):
    """Issue 76 item 5: with the bundled Gemma base model every answer ran to --max-tokens.
    Greedy decoding: the same answers every run."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "teletrabajo.md").write_text(POLICY, encoding="utf-8")
    rows = tmp_path / "ts.jsonl"
    rows.write_text(json.dumps({"id": "q2", "user_input": "¿Cuánto se compensa por los gastos de conexión?"},
                               ensure_ascii=False) + "\n", encoding="utf-8")
    assert cli("index", tmp_path / "docs", "--out", tmp_path / "index").returncode == 0
    proc = cli("answer", rows, "--index", tmp_path / "index", "--generator", GEMMA, "--language", "spanish",
               "--max-tokens", "128", "--out", tmp_path / "answers")
    assert proc.returncode == 0, proc.stderr
    row = json.loads((tmp_path / "answers" / "answers.jsonl").read_text())
    assert row["generation_finish_reason"] == "stop" and row["generation_stop"] != "token limit"
    assert row["response"] and not any(mark in row["response"] for mark in ("Pregunta:", "Output:", "---", "###"))
    assert "cut at the generator's token limit" not in proc.stdout
