"""`ragmeter meta-eval` with the default bundled judge on a slice of the Q2 human labels."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bundled import ROOT

pytestmark = pytest.mark.model


def test_meta_eval_q2_slice_beats_the_floor(tmp_path):
    labels = ROOT / "tests" / "data" / "meta-eval" / "q2_wow_faithfulness.jsonl"
    proc = subprocess.run([sys.executable, "-m", "ragmeter.cli", "meta-eval", str(labels), "--metric", "faithfulness",
                           "--out", str(tmp_path / "m")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "m" / "meta_eval.json").read_text())
    assert (result["kind"], result["rows"], result["scored"]) == ("binary", 12, 12)
    assert result["judge"].startswith("llamacpp:qwen-coder-1.5b")
    judge_auc = result["metric_agreement"]["measures"]["roc_auc"]["value"]
    floor_auc = result["floor"]["measures"]["roc_auc"]["value"]
    assert judge_auc > floor_auc  # 0.889 vs 0.681 when written (12 rows: wide intervals)
    assert "roc_auc" in proc.stdout and "word-overlap" in proc.stdout  # the name wraps to fit 80 columns
