"""Human labels and prediction-powered estimates: on simulated data where the truth is known,
and the labels file's checks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragmeter.errors import DataError
from ragmeter.labels.calibrate import MIN_LABELS, best_threshold, calibrate_metric, calibrate_run, ece
from ragmeter.labels.files import read_labels
from ragmeter.stats import bootstrap_mean_ci
from ragmeter.testing.runs import write_run


def biased_world(seed: int, rows: int = 1000, labelled: int = 100):
    """People call 40% of the answers faithful; the judge scores every answer too high (0.35
    for an unfaithful one, 0.85 for a faithful one, with noise): its mean is about 0.55."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(rows) < 0.4).astype(float)
    scores = np.clip(0.35 + 0.5 * truth + rng.normal(0, 0.15, rows), 0, 1)
    ids = [f"r{i}" for i in range(rows)]
    picked = rng.choice(rows, labelled, replace=False)
    return ({i: float(s) for i, s in zip(ids, scores)}, {ids[k]: float(truth[k]) for k in picked},
            float(truth.mean()))


def test_the_calibrated_interval_covers_the_human_mean_where_the_judges_does_not():
    covered = judge_covered = 0
    seeds = 60
    for seed in range(seeds):
        scores, labels, human = biased_world(seed)
        c = calibrate_metric("faithfulness", scores, labels)
        covered += c.ci95[0] <= human <= c.ci95[1]
        judge_ci = bootstrap_mean_ci(list(scores.values()), resamples=200, seed=seed)
        judge_covered += judge_ci[0] <= human <= judge_ci[1]
        assert (c.ci95[1] - c.ci95[0]) < (c.labels_ci95[1] - c.labels_ci95[0])  # narrower than labels alone
    assert covered / seeds >= 0.88 and judge_covered == 0
    assert abs(c.judge_mean - 0.55) < 0.05 and abs(c.estimate - human) < 0.06


def test_labels_equal_to_the_judge_give_the_judges_mean():
    """Nothing to correct: the estimate is an average of the judge's own scores (power tuning
    weighs the labelled and the other rows' means, so it is not exactly the all-row mean)."""
    scores, _, _ = biased_world(1)
    labels = {i: s for i, s in list(scores.items())[:50]}  # people agree with every score exactly
    c = calibrate_metric("faithfulness", scores, labels, binary=False)
    labelled, others = np.mean(list(labels.values())), np.mean(list(scores.values())[50:])
    assert min(labelled, others) - 1e-12 <= c.estimate <= max(labelled, others) + 1e-12
    assert c.estimate == pytest.approx(c.judge_mean, abs=0.005) and c.ci95[0] < c.judge_mean < c.ci95[1]
    assert c.ece == 0.0 and c.threshold is None and c.kind == "rating"


def test_too_few_labels_give_no_interval_and_say_why():
    scores, labels, _ = biased_world(2, labelled=MIN_LABELS - 1)
    c = calibrate_metric("faithfulness", scores, labels)
    assert (c.estimate, c.ci95, c.labels) == (None, None, MIN_LABELS - 1)
    assert c.note == ("19 labelled rows the judge scored: at least 20 are needed for an interval; label more rows "
                      "(several labellers of one row count as one row, the mean of their labels)")


def test_reliability_ece_and_threshold_by_hand():
    y = np.array([0, 0, 1, 1, 1, 0], dtype=float)
    yhat = np.array([0.1, 0.3, 0.7, 0.9, 0.95, 0.75], dtype=float)
    # bins [0,.2) one row: score .1 label 0; [.2,.4): .3 vs 0; [.6,.8): (.7+.75)/2 vs 0.5; [.8,1]: .925 vs 1
    assert ece(y, yhat) == pytest.approx((0.1 + 0.3 + 2 * abs(0.725 - 0.5) + 2 * abs(0.925 - 1)) / 6)
    assert best_threshold(y, yhat) == 0.7  # 0.7 and above: 3 of 3 positives, 2 of 3 negatives (0.75 is wrong)
    assert best_threshold(np.ones(3), yhat[:3]) is None


def labels_file(path, entries):
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_a_labels_file_is_checked_before_any_estimate(tmp_path):
    run = write_run(tmp_path / "run", {"faithfulness": [0.9, 0.2, 0.7]}, ids=["a", "b", "c"])
    ids, metrics, sha = ["a", "b", "c"], ["faithfulness"], "d" * 64
    good = labels_file(tmp_path / "l.jsonl", [{"id": "a", "metric": "faithfulness", "label": 1},
                                               {"id": "zz", "metric": "faithfulness", "label": 0},
                                               {"id": "b", "metric": "faithfulness", "label": 4, "scale": [1, 5]}])
    with pytest.raises(DataError, match=r"l.jsonl, line 3, field 'label': faithfulness mixes 0/1 labels and ratings"):
        read_labels(good, ids, metrics, sha)
    cases = [
        ({"id": "a", "metric": "recall", "label": 1}, "line 1, field 'metric': metric 'recall' is not in the run"),
        ({"id": "a", "metric": "faithfulness", "label": 0.5}, "line 1, field 'label': label 0.5: a 0/1 label, or give"),
        ({"id": "a", "metric": "faithfulness", "label": 1, "dataset_sha256": "e" * 64},
         "labelled on another dataset \\(sha256 eeeeeeeeeeee, this run's dddddddddddd\\)"),
        ({"id": "a", "metric": "faithfulness", "label": 9, "scale": [1, 5]}, "label 9 is outside its scale"),
        ({"metric": "faithfulness", "label": 1}, "line 1, field 'id': no id"),
    ]
    for entry, message in cases:
        with pytest.raises(DataError, match=message):
            read_labels(labels_file(tmp_path / "bad.jsonl", [entry]), ids, metrics, sha)
    read = read_labels(labels_file(tmp_path / "ok.jsonl", [{"id": "a", "metric": "faithfulness", "label": 1},
                                                           {"id": "zz", "metric": "faithfulness", "label": 0}]),
                       ids, metrics, sha)
    assert read.by_metric == {"faithfulness": {"a": 1.0}} and read.unknown_ids == {"faithfulness": ["zz"]}
    two_people = read_labels(labels_file(tmp_path / "two.jsonl", [
        {"id": "a", "metric": "faithfulness", "label": 1, "labeller": "ana"},
        {"id": "a", "metric": "faithfulness", "label": 0, "labeller": "ben"}]), ids, metrics, sha)
    assert two_people.by_metric == {"faithfulness": {"a": 0.5}}  # one row, the mean of its labels
    (tmp_path / "latin1.jsonl").write_bytes('{"id": "a", "metric": "faithfulness", "label": 1, "n": "é"}'.encode("latin-1"))
    with pytest.raises(DataError, match="latin1.jsonl: not UTF-8 text"):
        read_labels(tmp_path / "latin1.jsonl", ids, metrics, sha)
    from ragmeter.results.runs import load_run

    c = calibrate_run(load_run(run), tmp_path / "ok.jsonl")["faithfulness"]
    assert (c.labels, c.judged, c.unknown_ids, c.estimate) == (1, 2, ["zz"], None)


def test_evaluate_with_labels_reports_and_gates_on_what_people_would_say(tmp_path):
    from tests.cli_runner import run_cli

    rows = [{"id": f"r{i}", "question": f"q{i}?", "answer": "yes" if i % 2 else "no", "reference": "yes"}
            for i in range(40)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # people accept every "yes" and a third of the "no" answers the metric scores 0
    labels = labels_file(tmp_path / "labels.jsonl", [
        {"id": r["id"], "metric": "exact_match", "label": int(r["answer"] == "yes" or i % 6 == 0)}
        for i, r in enumerate(rows[:30])])
    proc = run_cli("evaluate", str(data), "--metrics", "exact_match", "--out", str(tmp_path / "run"),
                   "--labels", str(labels), "--fail-under", "exact_match=0.4", "--gate", "calibrated")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    c = manifest["metrics"]["exact_match"]["calibrated"]
    assert (c["labels"], c["judged"], c["kind"], c["judge_mean"]) == (30, 10, "binary", 0.5)
    assert c["estimate"] > c["judge_mean"] and c["ci95"][0] > 0.4 and manifest["labels"] == str(labels)
    assert "exact_match: people would say" in " ".join(proc.stdout.split())
    assert manifest["gates"]["results"][0]["message"].startswith("exact_match: calibrated 95% CI lower end 0.")

    again = run_cli("calibrate", str(tmp_path / "run"), str(labels))
    assert again.returncode == 0, again.stderr
    saved = json.loads((tmp_path / "run" / "calibration.json").read_text())["metrics"]["exact_match"]
    assert saved["estimate"] == c["estimate"] and saved["ci95"] == c["ci95"]

    no_labels = run_cli("evaluate", str(data), "--metrics", "exact_match", "--fail-under", "exact_match=0.4",
                        "--gate", "calibrated")
    assert no_labels.returncode == 2 and "gate calibrated needs labels" in no_labels.stderr


def test_a_bad_labels_file_fails_before_the_judge_is_called(tmp_path):
    from tests.cli_runner import run_cli

    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a", "question": "q?", "answer": "x", "contexts": ["c"]}) + "\n")
    bad = labels_file(tmp_path / "labels.jsonl", [{"id": "a", "metric": "faithfulness", "label": 2}])
    proc = run_cli("evaluate", str(data), "--metrics", "faithfulness", "--judge", "openai-compat:http://127.0.0.1:9/v1#m",
                   "--labels", str(bad), "--out", str(tmp_path / "run"))
    assert proc.returncode == 2
    assert "labels.jsonl, line 1, field 'label': label 2: a 0/1 label" in proc.stderr  # not "judge unreachable"


def test_the_report_shows_what_people_would_say(tmp_path):
    from ragmeter.report import write_report

    scores, labels, _ = biased_world(4, rows=60, labelled=30)
    ids = list(scores)
    run = write_run(tmp_path / "run", {"faithfulness": list(scores.values())}, ids=ids)
    labels_path = labels_file(tmp_path / "labels.jsonl", [{"id": i, "metric": "faithfulness", "label": int(v)}
                                                          for i, v in labels.items()])
    from ragmeter.results.runs import load_run

    found = calibrate_run(load_run(run), labels_path)["faithfulness"]
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["metrics"]["faithfulness"]["calibrated"] = found.model_dump(mode="json")
    (run / "manifest.json").write_text(json.dumps(manifest))
    page = write_report(run, out=tmp_path / "report.html").read_text()
    assert "<h2>What people would say</h2>" in page and 'class="reliability"' in page
    assert f"{found.estimate:.3f} ({found.ci95[0]:.3f}-{found.ci95[1]:.3f})" in page


def test_the_python_api_takes_labels(tmp_path):
    import ragmeter

    rows = [{"id": f"r{i}", "answer": "yes" if i % 2 else "no", "reference": "yes"} for i in range(30)]
    labels = labels_file(tmp_path / "labels.jsonl", [{"id": f"r{i}", "metric": "exact_match", "label": i % 2}
                                                     for i in range(24)])
    result = ragmeter.evaluate(rows, ["exact_match"], labels=labels, progress=False)
    c = result.manifest["metrics"]["exact_match"]["calibrated"]
    assert (c["labels"], c["judged"], c["ece"], c["threshold"]) == (24, 6, 0.0, 1.0)  # people agree exactly


def test_the_estimate_line_says_labelled_rows_and_unlabelled_rows():
    """Issue 36, item 8: what the counts are."""
    from ragmeter.results.console import calibrated_line

    line = calibrated_line("faithfulness", {"estimate": 0.5, "ci95": [0.4, 0.6], "labels": 24, "judged": 6,
                                            "judge_mean": 0.55, "labels_ci95": [0.3, 0.7], "ece": 0.1})
    assert "from 24 labelled rows and 6 unlabelled rows the judge scored" in line
