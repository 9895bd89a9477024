"""`ragmeter testset` over examples/docs with the default bundled judge: it finishes, the test
set loads as a ragmeter dataset, and the quality report's counts add up."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bundled import ROOT

pytestmark = pytest.mark.model


def test_testset_on_example_docs(tmp_path):
    """Factoid questions only: the bundled judge's unanswerable questions over examples/docs are
    all answered by the docs (the no-model check rejects them)."""
    out = tmp_path / "ts"
    proc = subprocess.run([sys.executable, "-m", "ragmeter.cli", "testset", str(ROOT / "examples" / "docs"),
                           "--size", "2", "--out", str(out), "--types", "factoid:1", "--max-attempts", "6"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    kept = [json.loads(line) for line in (out / "testset.jsonl").read_text().splitlines()]
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    quality = json.loads((out / "manifest.json").read_text())["quality"]
    assert quality["generated"] == quality["kept"] + quality["rejected"] == len(kept) + len(rejected)
    assert quality["kept"] == len(kept) and 1 <= len(kept) <= 2
    assert sum(quality["rejected_by"].values()) == len(rejected)
    assert "parse failure" not in quality["rejected_by"]  # bounded schemas: no unparseable replies
    from ragmeter.io.datasets import load_dataset

    dataset = load_dataset(out / "testset.jsonl")
    assert {"user_input", "reference"} <= dataset.fields_present and len(dataset) == len(kept)
    assert "kept of" in proc.stdout and "per kept question" in proc.stdout
