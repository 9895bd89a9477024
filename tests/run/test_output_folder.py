"""The output folder is checked before the first judge call, another run's results are never
replaced without --overwrite, and a folder holds one results file."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.io.output import expand
from ragmeter.judges.scripted import ScriptedJudge

ROWS = [{"id": "r1", "user_input": "q?", "response": "a.", "retrieved_contexts": ["c"], "reference": "a."}]


def judge() -> ScriptedJudge:
    return ScriptedJudge(lambda request: {"rating": 2})


def run(out: Path, metrics=("context_relevance",), rows=ROWS, **kw):
    scripted = kw.pop("judge", None) or judge()
    result = ragmeter.evaluate(rows, list(metrics), judge=scripted, cache=False, progress=False, out=out, **kw)
    return result, scripted


def test_the_same_run_again_replaces_its_own_results(tmp_path: Path):
    run(tmp_path / "out")
    result, _ = run(tmp_path / "out")
    assert result.results_path == tmp_path / "out" / "results.jsonl"


def test_another_run_is_refused_before_any_judge_call(tmp_path: Path):
    first, _ = run(tmp_path / "out")
    before = first.results_path.read_bytes()
    scripted = judge()
    with pytest.raises(ConfigError, match=r"holds another run's results \(manifest.json\); pass --overwrite"):
        run(tmp_path / "out", metrics=("context_relevance", "exact_match"), judge=scripted)
    assert scripted.requests == [] and first.results_path.read_bytes() == before
    with pytest.raises(ConfigError, match="another run's results"):
        run(tmp_path / "out", rows=[{**ROWS[0], "response": "b."}])  # same path, other data
    result, _ = run(tmp_path / "out", metrics=("context_relevance", "exact_match"), overwrite=True)
    assert "exact_match" in result.rows[0]


def test_a_new_format_leaves_one_results_file(tmp_path: Path):
    run(tmp_path / "out")
    run(tmp_path / "out", format="csv")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["manifest.json", "results.csv"]


def test_timestamp_template_gives_each_run_its_folder(tmp_path: Path):
    assert expand("runs/{timestamp}", dt.datetime(2026, 11, 22, 18, 46, 13)) == "runs/20261122-184613"
    result, _ = run(tmp_path / "runs" / "{timestamp}")
    assert result.results_path.parent.parent == tmp_path / "runs"
    assert "{" not in result.results_path.parent.name
    assert result.manifest["config"]["output"] == str(result.results_path.parent)


@pytest.mark.parametrize("kind", ["file", "unwritable"])
def test_an_output_folder_that_cannot_take_results_fails_before_any_call(kind, tmp_path: Path):
    out = tmp_path / "out"
    if kind == "file":
        out.write_text("not a folder")
        message = "is a file, not a folder"
    else:
        if os.geteuid() == 0:
            out = Path("/proc/ragmeter-out")  # even root cannot create folders there
        else:
            out.mkdir()
            out.chmod(0o500)
        message = "cannot write to output folder"
    scripted = judge()
    with pytest.raises(ConfigError, match=message):
        run(out, judge=scripted)
    assert scripted.requests == []


def test_the_same_run_spelled_differently_is_still_the_same_run(tmp_path: Path):
    rows = [{"id": "a", "response": "Paris.", "reference": "Paris."}]
    ragmeter.evaluate(rows, ["exact_match", "rouge"], cache=False, progress=False, out=tmp_path / "out")
    # the same metrics with their default settings written out, and another concurrency
    again = ragmeter.evaluate(rows, ["exact_match", {"rouge": {"rouge_type": "rougeL"}}], cache=False,
                              progress=False, out=tmp_path / "out", concurrency=4)
    assert again.rows[0]["exact_match"] == 1.0
    with pytest.raises(ConfigError, match="another run's results"):
        ragmeter.evaluate(rows, ["exact_match", {"rouge": {"rouge_type": "rouge1"}}], cache=False, progress=False,
                          out=tmp_path / "out")


def test_the_same_run_with_a_calibrated_judge_is_still_the_same_run(tmp_path: Path):
    """The manifest's judge record holds more than the identity (calibration lines, reasons);
    reading a folder's fingerprint back leaves those out, as the default bundled judge needs."""
    from ragmeter.judges.calibration import Platt

    class Calibrated(ScriptedJudge):
        reasons = "failing"

        def calibration(self) -> dict:
            return {"context_relevance.rating1": Platt("context_relevance.rating1", "v", "rating", 2.0, -1.0, "test")}

    first, _ = run(tmp_path / "out", judge=Calibrated(lambda request: {"rating": 2}))
    assert first.manifest["judge"]["calibration"] and first.manifest["judge"]["reasons"] == "failing"
    again, scripted = run(tmp_path / "out", judge=Calibrated(lambda request: {"rating": 2}))
    assert scripted.calls() == 2 and again.rows == first.rows
