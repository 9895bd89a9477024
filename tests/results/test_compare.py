"""Paired statistics against known cases, and `compare` over run folders."""

from __future__ import annotations

import json
import random

import pytest

from ragmeter import compare
from ragmeter.errors import DataError
from ragmeter.stats import LARGE_SAMPLE, bootstrap_mean_ci, holm, paired_ci, sign_flip_p
from ragmeter.testing.runs import write_run


def test_identical_runs_difference_zero_p_one(tmp_path):
    scores = {"faithfulness": [0.05 * i for i in range(20)], "context_recall": [1.0, 0.0] * 10}
    a, b = write_run(tmp_path / "a", scores), write_run(tmp_path / "b", scores)
    result = compare(a, b)
    for c in result.metrics.values():
        assert c.difference == 0 and c.ci95 == (0.0, 0.0)
        assert c.p_value == 1.0 and c.p_holm == 1.0
        assert c.verdict == "no significant difference" and c.changed == []
    assert result.same_dataset and result.shared_rows == 20


def test_constant_shift_is_exact_and_significant(tmp_path):
    base = [0.1 + 0.02 * i for i in range(30)]
    a = write_run(tmp_path / "a", {"faithfulness": base})
    b = write_run(tmp_path / "b", {"faithfulness": [x + 0.1 for x in base]})
    c = compare(a, b).metrics["faithfulness"]
    assert c.difference == pytest.approx(0.1, abs=1e-12)
    assert c.ci95 == pytest.approx((0.1, 0.1), abs=1e-12)
    assert c.p_value == pytest.approx(1 / 10_001)  # no sign flip reaches an all-positive shift
    assert c.verdict == "better"


def test_direction_follows_higher_is_better(tmp_path):
    a = write_run(tmp_path / "a", {"noise_sensitivity": [0.2] * 20}, higher_is_better={"noise_sensitivity": False})
    b = write_run(tmp_path / "b", {"noise_sensitivity": [0.5] * 20}, higher_is_better={"noise_sensitivity": False})
    c = compare(a, b).metrics["noise_sensitivity"]
    assert c.difference == pytest.approx(0.3) and c.verdict == "worse"
    assert compare(b, a).metrics["noise_sensitivity"].verdict == "better"


def test_exact_sign_flip_small_n():
    # 3 positive differences of 1: 2 of the 8 sign patterns reach |sum| >= 3
    assert sign_flip_p([1.0, 1.0, 1.0]) == pytest.approx(2 / 8)
    assert sign_flip_p([1.0, -1.0]) == 1.0
    assert sign_flip_p([]) == 1.0


def test_monte_carlo_sign_flip_close_to_exact_binomial():
    # 20 differences of +1 and 5 of -1: |sum| >= 15 when at most 5 (or at least 20) are negative
    from math import comb

    exact = 2 * sum(comb(25, k) for k in range(6)) / 2 ** 25
    assert sign_flip_p([1.0] * 20 + [-1.0] * 5) == pytest.approx(exact, abs=0.002)


def test_zero_differences_are_set_aside():
    assert sign_flip_p([1.0, 1.0, 1.0] + [0.0] * 500) == pytest.approx(2 / 8)


def test_large_samples_use_the_normal_limit_of_the_same_statistics(monkeypatch):
    import ragmeter.stats as stats

    rng = random.Random(2)
    diffs = [rng.choice([-0.3, 0.0, 0.1, 0.2]) + rng.gauss(0, 0.05) for _ in range(LARGE_SAMPLE + 5000)]
    (low, high), method = paired_ci(diffs)
    assert method == "normal"
    boot_low, boot_high = bootstrap_mean_ci(diffs, resamples=400)
    assert low == pytest.approx(boot_low, abs=4e-4) and high == pytest.approx(boot_high, abs=4e-4)
    # a mean difference near zero, so p is not tiny: the normal limit against 4,000 sign flips
    shifted = [d - sum(diffs) / len(diffs) + 0.0015 for d in diffs]
    normal_p = sign_flip_p(shifted)
    monkeypatch.setattr(stats, "LARGE_SAMPLE", 10**9)
    monte_carlo = sign_flip_p(shifted, permutations=4000)
    assert 0.05 < normal_p < 0.5
    assert monte_carlo == pytest.approx(normal_p, abs=0.03)


def test_holm_adjustment():
    adjusted = holm({"a": 0.01, "b": 0.04, "c": 0.03})
    assert adjusted == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})
    assert holm({"a": 0.6, "b": 0.9}) == pytest.approx({"a": 1.0, "b": 1.0})


def test_paired_interval_covers_about_95_percent():
    """A small true effect (0.05) on noisy paired scores: over 200 simulated comparisons the
    interval holds the true difference close to 95% of the time."""
    rng = random.Random(1)
    covered = 0
    for seed in range(200):
        diffs = [0.05 + rng.gauss(0, 0.2) for _ in range(60)]
        (low, high), method = paired_ci(diffs, resamples=1000, seed=seed)
        assert method == "bootstrap"
        covered += low <= 0.05 <= high
    assert 0.90 <= covered / 200 <= 0.98


def test_unscored_rows_excluded_and_counted(tmp_path):
    a = write_run(tmp_path / "a", {"faithfulness": [1.0, None, 0.5, 0.0]})
    b = write_run(tmp_path / "b", {"faithfulness": [1.0, 1.0, None, 1.0]})
    c = compare(a, b).metrics["faithfulness"]
    assert (c.n, c.excluded) == (2, 2)
    assert c.mean_a == 0.5 and c.mean_b == 1.0 and c.difference == 0.5
    assert [ch.id for ch in c.changed] == ["q3"]
    assert c.changed[0].reason_b == "faithfulness reason q3" and c.changed[0].question == "question q3?"


def test_different_datasets_compare_shared_ids(tmp_path):
    a = write_run(tmp_path / "a", {"faithfulness": [1.0, 0.0, 1.0]}, ids=["x", "y", "z"])
    b = write_run(tmp_path / "b", {"faithfulness": [1.0, 1.0]}, ids=["y", "w"], dataset_sha="e" * 64)
    result = compare(a, b)
    assert (result.same_dataset, result.shared_rows, result.only_in_a, result.only_in_b) == (False, 1, 2, 1)
    assert result.metrics["faithfulness"].difference == 1.0


def test_two_rags_answering_one_test_set_are_the_same_test_set(tmp_path):
    """The answers files' hashes differ between two RAGs; that warned 'datasets differ' every time."""
    from tests.cli_runner import run_cli

    rows = [{"id": f"q{i}", "question": f"question {i}?", "reference": f"ref {i}", "response": f"A{i}"}
            for i in range(4)]
    a = write_run(tmp_path / "a", {"faithfulness": [1.0, 0.0, 1.0, 1.0]}, rows=rows)
    answered_b = [{**r, "response": f"B{i}"} for i, r in enumerate(rows)]
    b = write_run(tmp_path / "b", {"faithfulness": [1.0, 1.0, 1.0, 1.0]}, rows=answered_b, dataset_sha="e" * 64)
    result = compare(a, b)
    assert (result.same_dataset, result.questions_differ, result.first_differing) == (True, 0, None)
    from ragmeter.results.compare import _testset_columns, _text
    from ragmeter.results.runs import load_run

    loaded = load_run(a)  # read as text columns by pyarrow, not row by row (100,000 rows parsed take seconds)
    assert _text(loaded, _testset_columns(loaded))[2] == ("question 2?", "ref 2")
    assert "test sets differ" not in run_cli("compare", str(a), str(b)).stdout

    asked_other = [{**r, "question": "another?"} if r["id"] == "q2" else r for r in answered_b]
    c = write_run(tmp_path / "c", {"faithfulness": [1.0] * 4}, rows=asked_other, dataset_sha="f" * 64)
    result = compare(a, c)
    assert (result.same_dataset, result.questions_differ, result.first_differing) == (False, 1, "q2")
    assert ("The test sets differ: 1 shared ids ask another question or expect another reference (first: q2); "
            "compared the 4 shared ids; 0 only in A, 0 only in B") in " ".join(run_cli("compare", str(a), str(c))
                                                                             .stdout.split())


def test_bad_input(tmp_path):
    a = write_run(tmp_path / "a", {"faithfulness": [1.0]}, ids=["x"])
    b = write_run(tmp_path / "b", {"faithfulness": [1.0]}, ids=["y"])
    with pytest.raises(DataError, match="share no row ids"):
        compare(a, b)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no manifest.json"):
        compare(a, tmp_path / "empty")
    with pytest.raises(DataError, match="not in both runs"):
        compare(a, a, metrics=["context_recall"])
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "manifest.json").write_text("{", encoding="utf-8")
    with pytest.raises(DataError, match="manifest.json: not valid JSON"):
        compare(a, tmp_path / "bad")


def test_cli_compare_writes_json(tmp_path, capsys):
    from typer.testing import CliRunner

    from ragmeter.cli import app

    a = write_run(tmp_path / "a", {"faithfulness": [0.0] * 15})
    b = write_run(tmp_path / "b", {"faithfulness": [1.0] * 15})
    out = CliRunner().invoke(app, ["compare", str(a), str(b), "--out", str(tmp_path / "cmp")])
    assert out.exit_code == 0, out.output
    assert "better" in out.output
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert data["metrics"]["faithfulness"]["difference"] == 1.0
    assert data["metrics"]["faithfulness"]["changed"][0]["evidence_b"]["verdicts"][0]["verdict"] == 1


def test_a_repeated_id_is_named_and_bidi_overrides_are_shown_not_obeyed(tmp_path):
    """Rows are paired by id: a repeated one used to surface as 'datasets differ ... 1 only in B'."""
    a = write_run(tmp_path / "a", {"faithfulness": [1.0, 0.0, 1.0]}, ids=["q0", "q1", "q2"])
    b = write_run(tmp_path / "b", {"faithfulness": [1.0, 0.0, 1.0]}, ids=["q0", "q\u202e1", "q\u202e1"])
    with pytest.raises(DataError, match=r"row id 'q\\u202e1' appears twice \(rows 2 and 3\)"):
        compare(a, b)


def test_below_ten_pairs_no_interval_is_printed_and_the_table_says_why(tmp_path):
    """n=2 printed a 95% interval of -0.453 to -0.348 beside 'no significant difference (p = 1)'."""
    from tests.cli_runner import run_cli

    a = write_run(tmp_path / "a", {"faithfulness": [0.9, 0.8]})
    b = write_run(tmp_path / "b", {"faithfulness": [0.5, 0.4]})
    c = compare(a, b).metrics["faithfulness"]
    assert (c.ci95, c.interval_method, c.verdict, c.note) == (None, "none: n < 10", "no significant difference", None)
    out = " ".join(run_cli("compare", str(a), str(b)).stdout.split())
    assert "n<10" in out and "faithfulness: no interval with 2 paired rows (fewer than 10)" in out


def test_an_interval_and_a_verdict_that_read_differently_carry_a_note():
    from ragmeter.results.compare import MetricComparison, _interval_note

    def case(ci, p, p_holm, verdict):
        return MetricComparison(metric="m", higher_is_better=True, n=30, excluded=0, mean_a=0.5, mean_b=0.6,
                                difference=0.1, ci95=ci, p_value=p, p_holm=p_holm, verdict=verdict)

    holm = case((0.01, 0.2), 0.02, 0.06, "no significant difference")
    assert _interval_note(holm, 0.05, 3) == ("the interval excludes 0, but after Holm's adjustment across 3 metrics "
                                             "the difference is not significant")
    test = case((0.01, 0.2), 0.07, 0.07, "no significant difference")
    assert _interval_note(test, 0.05, 1) == "the interval excludes 0, but the sign-flip test finds no difference (p = 0.07)"
    touching = case((0.0, 0.2), 0.04, 0.04, "better")
    assert _interval_note(touching, 0.05, 1).startswith("significant by the sign-flip test though the interval")
    assert _interval_note(case((0.01, 0.2), 0.01, 0.01, "better"), 0.05, 1) is None


def test_metrics_summarised_together_get_the_intervals_each_gets_alone():
    """Columns of one length share their bootstrap draws; the figures are those of one column at a time."""
    from ragmeter.stats import bootstrap_mean_cis

    rng = random.Random(4)
    columns = [[rng.random() for _ in range(300)], [rng.random() ** 3 for _ in range(300)],
               [rng.random() for _ in range(57)], []]
    together = bootstrap_mean_cis(columns, resamples=500)
    assert together == [bootstrap_mean_ci(c, resamples=500) for c in columns]
    assert together[0] != together[1] and together[3] is None  # each column's own values, not the first's


def test_a_metric_of_one_run_only_is_named_not_dropped_silently(tmp_path, capsys):
    """Issue 36, item 9."""
    from rich.console import Console

    from ragmeter.results.compare import print_comparison

    a = write_run(tmp_path / "a", {"faithfulness": [0.5] * 12, "context_recall": [1.0] * 12})
    b = write_run(tmp_path / "b", {"faithfulness": [0.5] * 12, "answer_relevancy": [0.0] * 12})
    result = compare(a, b)
    assert list(result.metrics) == ["faithfulness"]
    assert result.not_compared == {"context_recall": "only in A", "answer_relevancy": "only in B"}
    print_comparison(result, Console(width=80, force_terminal=False))
    out = capsys.readouterr().out
    assert "not compared (a metric of one run only): context_recall (only in A), answer_relevancy (only in B)" in \
        " ".join(out.split())


@pytest.mark.parametrize("line_text, cell", [
    ('"faithfulness": NaN', "nan"), ('"faithfulness": 1e308', "1e+308"), ('"faithfulness": Infinity', "inf"),
    ('"faithfulness": 5.0', "5.0"), ('"faithfulness": -3', "-3"), ('"faithfulness": true', "True")])
def test_hand_edited_scores_that_are_no_score_are_refused_naming_line_and_column(tmp_path, line_text, cell):
    """Issue 50: NaN printed `nan nan-nan` and was called significant; an infinity `inf*`; NaN
    tokens went into compare.json; 5.0, -3 and `true` were averaged without a word."""
    a = write_run(tmp_path / "a", {"faithfulness": [0.5, 0.6, 0.7]})
    b = write_run(tmp_path / "b", {"faithfulness": [0.5, 0.6, 0.7]})
    results = b / "results.jsonl"
    lines = results.read_text().splitlines()
    lines[1] = lines[1].replace('"faithfulness": 0.6', line_text)
    results.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as info:
        compare(a, b)
    message = str(info.value)
    assert f"{results}, line 2, field 'faithfulness'" in message and cell in message


def test_hand_edited_csv_scores_are_refused_too(tmp_path):
    import csv

    from ragmeter.results.runs import load_run

    folder = write_run(tmp_path / "a", {"faithfulness": [0.5, 0.6]})
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    rows[1]["faithfulness"] = "-inf"
    with (folder / "results.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()} for r in rows)
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "results_file": "results.csv"}))
    with pytest.raises(DataError, match=r"results.csv, row 2, field 'faithfulness': score -inf is not a number in"):
        load_run(folder)


def test_a_deleted_score_column_is_named_not_read_as_unscored(tmp_path):
    from ragmeter.results.runs import load_run

    folder = write_run(tmp_path / "a", {"faithfulness": [0.5, 0.6], "context_recall": [1.0, 0.0]})
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    (folder / "results.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "context_recall"})
                                                  + "\n" for r in rows))
    with pytest.raises(DataError, match="no column 'context_recall', which the run's manifest lists"):
        load_run(folder)
