"""The third fault campaign's bad inputs (issue 37, items 1-11): each was a traceback, a
silent wrong answer or a paid judge before an error; each is now one line naming what is
wrong, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmeter.labels.calibrate import calibrate_metric
from ragmeter.testing.runs import write_run
from tests.cli_runner import run_cli

ROW = {"id": "a", "user_input": "Where is Paris?", "response": "In France.", "reference": "In France."}


def rows_file(path: Path, rows: list[dict], raw_tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r)[:-1] + raw_tail + "}\n" if raw_tail else json.dumps(r) + "\n"
                            for r in rows))
    return path


def refused(*args: str) -> str:
    done = run_cli(*args)
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    return done.stderr


@pytest.mark.parametrize("depth", [150, 3000])
def test_deeply_nested_json_is_one_line(tmp_path, depth):
    deep = rows_file(tmp_path / "deep.jsonl", [ROW], f', "deep": {"[" * depth}{"]" * depth}')
    said = refused("evaluate", str(deep), "--metrics", "rouge", "--out", str(tmp_path / "run"))
    assert "deep.jsonl, line 1: nested too deeply: arrays or objects more than 100 levels" in said
    assert not (tmp_path / "run" / "manifest.json").exists()
    otlp = tmp_path / "t.json"
    otlp.write_text('{"resourceSpans": ' + "[" * depth + "]" * depth + "}\n")
    assert "nested too deeply" in refused("traces", str(otlp), "--out", str(tmp_path / "rows.jsonl"))


def test_a_deep_csv_cell_is_one_line(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('id,user_input,response,retrieved_contexts\na,q,r,"' + "[" * 500 + "]" * 500 + '"\n')
    said = refused("evaluate", str(path), "--metrics", "rouge", "--out", str(tmp_path / "run"))
    assert "d.csv, row 1, field 'retrieved_contexts': nested too deeply" in said


@pytest.mark.parametrize(("option", "message"), [
    ("temperature=nan", "temperature: Input should be a finite number"),
    ("temperature=inf", "temperature: Input should be a finite number"),
    ("max_tokens=-5", "max_tokens: Input should be greater than or equal to 1"),
])
def test_judge_options_out_of_range_are_refused_before_a_call(tmp_path, option, message):
    data = rows_file(tmp_path / "d.jsonl", [ROW])
    said = refused("evaluate", str(data), "--metrics", "answer_correctness", "--judge", "scripted",
                   "--judge-opt", option, "--out", str(tmp_path / "run"))
    assert message in said


def test_report_label_with_no_metric_or_a_second_run(tmp_path):
    run = write_run(tmp_path / "run", {"faithfulness": [1.0, 0.0]})
    assert "--label names no metric: give one or more of faithfulness" in refused(
        "report", str(run), "--label", ",", "--out", str(tmp_path / "l.html"))
    other = write_run(tmp_path / "other", {"faithfulness": [1.0, 1.0]})
    assert "--label labels one run" in refused("report", str(run), str(other), "--label", "faithfulness",
                                               "--out", str(tmp_path / "l.html"))
    # issue 65 item 11: report took the same run twice (compare refused it)
    assert "is given twice" in refused("report", str(run), str(run), "--out", str(tmp_path / "r.html"))
    # --fail-under 2 could never be met; --scale 0,100 made 101 buttons where the refusal says at most 100
    assert "outside [0, 1]" in refused("compare", str(run), str(other), "--fail-under", "faithfulness=2")
    assert "at most 100 points" in refused("report", str(run), "--label", "faithfulness", "--scale", "0,100",
                                           "--out", str(tmp_path / "l.html"))


def test_report_label_refuses_labels_on_another_scale(tmp_path):
    run = write_run(tmp_path / "run", {"faithfulness": [1.0, 0.0]})
    sha = json.loads((run / "manifest.json").read_text())["dataset"]["sha256"]
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps({"id": "q0", "metric": "faithfulness", "label": 1, "dataset_sha256": sha}) + "\n")
    said = refused("report", str(run), "--label", "faithfulness", "--scale", "1,5", "--labels", str(old),
                   "--out", str(tmp_path / "l.html"))
    assert "old.jsonl, line 1, field 'scale': a 0/1 label cannot resume a page labelling faithfulness on 1-5" in said
    assert not (tmp_path / "l.html").exists()


@pytest.mark.parametrize("start", ['"startTimeUnixNano": "99999999999999999999999"', '"startTimeUnixNano": "1e999"'])
def test_trace_times_out_of_range_are_one_line(tmp_path, start):
    span = ('{"traceId": "0123456789abcdef0123456789abcdef", "spanId": "0123456789abcdef", ' + start +
            ', "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "CHAIN"}}]}')
    path = tmp_path / "t.json"
    path.write_text('{"resourceSpans": [{"scopeSpans": [{"spans": [' + span + ']}]}]}\n')
    assert "not an OTLP span" in refused("traces", str(path), "--out", str(tmp_path / "rows.jsonl"))
    assert "--since 99999999999h: further back than a date can be" in refused(
        "traces", str(path), "--since", "99999999999h", "--out", str(tmp_path / "rows.jsonl"))


def test_a_non_numeric_document_score_names_the_trace(tmp_path):
    attrs = [("openinference.span.kind", "RETRIEVER"), ("input.value", "Where?"),
             ("retrieval.documents.0.document.content", "Paris."), ("retrieval.documents.0.document.score", "high")]
    span = {"traceId": "0123456789abcdef0123456789abcdef", "spanId": "0123456789abcdef", "startTimeUnixNano": "1",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n")
    said = refused("traces", str(path), "--out", str(tmp_path / "rows.jsonl"))
    assert "trace 0123456789abcdef0123456789abcdef: document.score 'high' is not a finite number" in said


def test_a_file_name_over_255_bytes_is_one_line(tmp_path):
    long = tmp_path / ("a" * 300 + ".jsonl")
    said = refused("evaluate", str(long), "--metrics", "rouge", "--out", str(tmp_path / "run"))
    assert "File name too long" in said and len(said) < 300


@pytest.mark.parametrize("flag", ["--summary-md", "--junit"])
def test_every_output_path_is_checked_before_the_judge_is_paid(tmp_path, flag):
    data = rows_file(tmp_path / "d.jsonl", [ROW])
    for bad, message in ((tmp_path, "it is a folder"), (Path("/dev/full"), "it is not a regular file")):
        said = refused("evaluate", str(data), "--metrics", "answer_correctness", "--judge", "scripted",
                       "--out", str(tmp_path / "run"), flag, str(bad))
        assert f"{flag}: cannot write {bad}: {message}" in said  # was: after scoring, the judge paid
        assert not (tmp_path / "run" / "manifest.json").exists()


def test_traces_never_overwrite_their_own_source(tmp_path):
    source = tmp_path / "t.json"
    source.write_bytes((Path(__file__).parents[2] / "examples" / "traces.otlp.json").read_bytes())
    before = source.read_bytes()
    assert "is the file being read" in refused("traces", str(source), "--out", str(source))
    assert source.read_bytes() == before


def test_merge_checks_rows_against_the_shard_manifests(tmp_path):
    data = rows_file(tmp_path / "d.jsonl", [{**ROW, "id": f"r{i}"} for i in range(20)])
    shards = [tmp_path / f"s{i}" for i in range(2)]
    for i, folder in enumerate(shards):
        assert run_cli("evaluate", str(data), "--metrics", "rouge", "--shard", f"{i}/2", "--out",
                       str(folder)).returncode == 0
    lines = (shards[0] / "results.jsonl").read_text().splitlines(keepends=True)
    (shards[0] / "results.jsonl").write_text("".join(lines[:-1]))  # a row lost
    said = refused("merge", *map(str, shards), "--out", str(tmp_path / "m"))
    assert f"its results hold {len(lines) - 1} rows; its manifest says the shard scored {len(lines)}" in said
    (shards[0] / "results.jsonl").write_text("".join(lines + lines[:1]))  # a row twice
    assert "is in more than one shard's results (or twice in one)" in refused(
        "merge", *map(str, shards), "--out", str(tmp_path / "m2"))


def test_a_csv_shard_and_a_jsonl_shard_of_one_run_merge(tmp_path):
    data = rows_file(tmp_path / "d.jsonl", [{**ROW, "id": f"r{i}"} for i in range(10)])
    for i, fmt in enumerate(("csv", "jsonl")):
        assert run_cli("evaluate", str(data), "--metrics", "rouge", "--shard", f"{i}/2", "--format", fmt,
                       "--out", str(tmp_path / f"s{i}")).returncode == 0
    done = run_cli("merge", str(tmp_path / "s0"), str(tmp_path / "s1"), "--out", str(tmp_path / "m"))
    assert done.returncode == 0, done.stderr  # was: refused as "another config"
    assert json.loads((tmp_path / "m" / "manifest.json").read_text())["dataset"]["rows"] == 10


def test_small_ones(tmp_path):
    run = write_run(tmp_path / "run", {"faithfulness": [1.0, 0.0]})
    assert "no row nope in this run (1 of the 1 ids given)" in refused("explain", str(run), "--ids", "nope")
    data = rows_file(tmp_path / "d.jsonl", [ROW])
    assert "Invalid value for '--limit'" in refused("judge-check", str(data), "--limit", "0")
    assert "--reasons all and --judge-opt reasons=none disagree" in refused(
        "evaluate", str(data), "--metrics", "faithfulness", "--reasons", "all", "--judge-opt", "reasons=none",
        "--out", str(tmp_path / "r"))


def test_labels_that_all_agree_give_the_rule_of_three_not_a_point():
    scores = {f"r{i}": 0.9 for i in range(100)}
    same = calibrate_metric("faithfulness", scores, {f"r{i}": 1.0 for i in range(40)})
    assert same.estimate == 1.0 and same.ci95 == pytest.approx((0.925, 1.0))  # was (1.0, 1.0): any bar passed
    assert "all 40 labels are the same (1)" in same.note
    middle = calibrate_metric("faithfulness", scores, {f"r{i}": 0.5 for i in range(40)}, binary=False)
    assert middle.ci95 is None and "no spread" in middle.note


def test_nan_in_metadata_is_said_once(tmp_path, caplog):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({**ROW, "id": f"r{i}"})[:-1] + ', "metadata": {"x": NaN}}\n'
                            for i in range(3)))
    done = run_cli("evaluate", str(path), "--metrics", "rouge", "--out", str(tmp_path / "run"))
    assert done.returncode == 0
    assert done.stderr.count("NaN or Infinity, which JSON has not: written back to the results as null") == 1


def test_evaluate_labels_names_the_ids_it_left_out():
    from ragmeter.results.console import calibrated_line

    record = {"ci95": None, "note": "3 labelled rows the judge scored", "unknown_ids": ["x1", "x2"]}
    assert calibrated_line("faithfulness", record).endswith("; labels for ids not in the run left out: x1, x2")


def test_a_metric_option_without_metrics_says_to_name_the_metric():
    from ragmeter.cli.common import metric_specs
    from ragmeter.errors import RagmeterError

    with pytest.raises(RagmeterError, match=r"name it: --metrics faithfulness\)$"):
        metric_specs(None, ["faithfulness.literals=off"])
    with pytest.raises(RagmeterError, match=r"for a metric in --metrics$"):
        metric_specs("context_relevance", ["faithfulness.literals=off"])
    assert metric_specs("faithfulness", ["faithfulness.literals=off"]) == [{"faithfulness": {"literals": "off"}}]
    # a step's option: the metric is the chosen name the key starts with, the options model groups the rest
    nested = metric_specs("faithfulness", ["faithfulness.copies.mode=off"])
    assert nested == [{"faithfulness": {"copies.mode": "off"}}]
    from ragmeter.metrics import get_metric

    assert get_metric(nested[0]).options.copies.mode == "off"
    with pytest.raises(RagmeterError, match=r"for a metric in --metrics$"):
        metric_specs("faithfulness", ["faithfulness=off"])
