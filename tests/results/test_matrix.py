"""Many runs side by side (issue 40): runs x metrics with intervals, each against the baseline
with Holm over every (run, metric) pair, by slice, gates for every run, and the one-line errors."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET

import pytest

from ragmeter.errors import DataError
from ragmeter.results.matrix import compare_many
from ragmeter.stats import holm, sign_flip_p
from ragmeter.testing import write_run
from tests.cli_runner import run_cli

N = 40  # 20 "factual" rows, 20 "multi_hop" rows


def _rows(ids):
    return [{"id": i, "user_input": f"question {i}?", "response": f"answer {i}.",
             "question_type": "factual" if int(i[1:]) < N // 2 else "multi_hop"} for i in ids]


@pytest.fixture
def three_runs(tmp_path):
    """base; `better_factual`: +0.3 on factual rows, -0.3 on multi_hop ones; `same`: base plus noise."""
    rng = random.Random(7)
    ids = [f"q{i}" for i in range(N)]
    base = [round(0.5 + rng.uniform(-0.1, 0.1), 3) for _ in ids]
    shifted = [round(b + (0.3 if n < N // 2 else -0.3), 3) for n, b in enumerate(base)]
    same = [round(b + rng.uniform(-0.01, 0.01), 3) for b in base]
    recall = [1.0 if n % 2 else 0.0 for n in range(N)]
    folders = []
    for name, faith in (("base", base), ("better_factual", shifted), ("same", same)):
        folders.append(write_run(tmp_path / name, {"faithfulness": faith, "context_recall": recall}, ids=ids,
                                 rows=_rows(ids)))
    return folders


def test_the_slice_table_says_which_run_wins_where_with_intervals(three_runs):
    result = compare_many(three_runs, by="question_type")
    assert result.baseline == "base" and result.shared_rows == N and result.tests == 4  # 2 runs x 2 metrics
    shifted = {r.label: r for r in result.runs}["better_factual"].cells["faithfulness"]
    assert shifted.difference == pytest.approx(0.0, abs=1e-9) and shifted.verdict == "no significant difference"
    slices = {s.value: s for s in result.slices}
    assert set(slices) == {"factual", "multi_hop"} and slices["factual"].rows == slices["multi_hop"].rows == 20
    assert result.slices[0].value == "multi_hop"  # a slice where a run is worse comes first
    assert slices["multi_hop"].worse == ["better_factual: faithfulness"] and slices["factual"].worse == []
    up = {r.label: r for r in slices["factual"].runs}["better_factual"].cells["faithfulness"]
    down = {r.label: r for r in slices["multi_hop"].runs}["better_factual"].cells["faithfulness"]
    assert up.verdict == "better" and up.difference == pytest.approx(0.3, abs=1e-6)
    assert up.difference_ci95[0] > 0.29 and down.difference_ci95[1] < -0.29 and up.ci95 is not None
    assert result.best["context_recall"] == "base"  # a tie: the first run


def test_holm_over_every_run_and_metric_pair_matches_a_hand_computation(three_runs):
    result = compare_many(three_runs)
    cells = {(r.label, m): c for r in result.runs if r.label != "base" for m, c in r.cells.items()}
    raw = {f"{label}/{m}": c.p_value for (label, m), c in cells.items()}
    assert len(raw) == 4 and raw["same/context_recall"] == 1.0  # identical columns: no difference at all
    # by hand: sort the p-values, multiply the i-th smallest by (m - i), keep it monotone, cap at 1
    ordered = sorted(raw.items(), key=lambda kv: kv[1])
    running, hand = 0.0, {}
    for i, (key, p) in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - i) * p))
        hand[key] = running
    assert holm(raw) == pytest.approx(hand)
    assert {f"{label}/{m}": c.p_holm for (label, m), c in cells.items()} == pytest.approx(hand)
    assert cells[("same", "faithfulness")].p_value == sign_flip_p(_diffs(three_runs[0], three_runs[2]))


def _diffs(a, b):
    read = [[json.loads(line)["faithfulness"] for line in (f / "results.jsonl").read_text().splitlines()]
            for f in (a, b)]
    return [y - x for x, y in zip(*read)]


def test_duplicate_ids_and_no_shared_rows_are_one_line_errors(tmp_path, three_runs):
    dup = write_run(tmp_path / "dup", {"faithfulness": [0.1, 0.2]}, ids=["q0", "q0"])
    with pytest.raises(DataError, match="q0"):
        compare_many([three_runs[0], dup])
    other = write_run(tmp_path / "other", {"faithfulness": [0.1, 0.2]}, ids=["x1", "x2"])
    with pytest.raises(DataError, match="share no row ids") as caught:
        compare_many([three_runs[0], other, three_runs[1]])
    assert "\n" not in str(caught.value)
    with pytest.raises(DataError, match="--by topic: no row") as missing:
        compare_many(three_runs, by="topic")
    assert "question_type" in str(missing.value) and "faithfulness" not in str(missing.value)  # scores are no slices


def test_the_cli_prints_the_matrix_in_80_columns_and_gates_every_run(three_runs, tmp_path):
    junit = tmp_path / "gates.xml"
    out = run_cli("compare", *map(str, three_runs), "--by", "question_type", "--out", str(tmp_path / "cmp"),
                  "--fail-under", "faithfulness=0.45", "--junit", str(junit), env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert max(len(line) for line in out.stdout.splitlines() if not line.startswith("wrote ")) <= 80
    assert "worse than base: multi_hop: better_factual: faithfulness" in " ".join(out.stdout.split())
    saved = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert saved["baseline"] == "base" and [s["value"] for s in saved["slices"]] == ["multi_hop", "factual"]
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["ragmeter.base", "ragmeter.better_factual", "ragmeter.same"]
    assert all(s.get("failures") == "0" for s in suites)
    failing = run_cli("compare", *map(str, three_runs), "--fail-under", "context_recall=0.9", env={"COLUMNS": "80"})
    assert failing.returncode == 1 and failing.stdout.count("FAIL") == 3  # each run misses the bar
    refused = run_cli("compare", *map(str, three_runs), "--gate", "calibrated", "--fail-under", "faithfulness=0.5")
    assert refused.returncode == 2 and refused.stdout == ""  # refused before any table is printed
    assert refused.stderr.strip().count("\n") == 0 and "--gate calibrated" in refused.stderr


def test_runs_over_another_test_set_with_the_same_ids_are_said(tmp_path):
    """Issue 50: many-run compare and report compared runs over another dataset with the same
    ids silently (two-run compare said 'The test sets differ')."""
    from ragmeter.report.many import write_many_report

    scores = {"faithfulness": [0.5, 0.6, 0.7, 0.8]}
    ids = ["q0", "q1", "q2", "q3"]
    asked = [{"id": i, "user_input": f"question {i}?", "response": "a", "retrieved_contexts": ["c"]} for i in ids]
    other = [{**r, "user_input": f"another question about {r['id']}?"} for r in asked]
    a = write_run(tmp_path / "a", scores, rows=asked)
    b = write_run(tmp_path / "b", scores, rows=asked)
    c = write_run(tmp_path / "c", scores, rows=other, dataset_sha="e" * 64)
    result = compare_many([a, b, c])
    assert result.testset_differs == {"c": "4 of the 4 shared ids ask another question or expect another reference "
                                           "than in a (first: q0)"}
    printed = run_cli("compare", str(a), str(b), str(c)).stdout
    assert "The test sets differ: c: 4 of the 4 shared ids" in " ".join(printed.split())
    page = write_many_report([a, b, c], tmp_path / "report.html").read_text()
    assert "The test sets differ: c: 4 of the 4 shared ids" in page
    assert compare_many([a, b]).testset_differs == {}


def test_a_column_of_many_values_compares_its_largest_slices_and_says_how_many_more(tmp_path):
    """Issue 50: --by on a column of 10,000 values printed 80,020 lines and wrote 26.7 MB."""
    n = 60
    rows = [{"id": f"q{i}", "user_input": f"question {i}?", "response": "a", "retrieved_contexts": ["c"],
             "topic": "big" if i < 20 else f"t{i}"} for i in range(n)]
    scores = {"faithfulness": [0.5] * n}
    a = write_run(tmp_path / "a", scores, rows=rows)
    b = write_run(tmp_path / "b", scores, rows=rows)
    capped = compare_many([a, b], by="topic", max_slices=5)
    assert capped.slices_total == 41 and len(capped.slices) == 5 and capped.slices[0].value == "big"
    assert len(compare_many([a, b], by="topic", max_slices=None).slices) == 41
    printed = " ".join(run_cli("compare", str(a), str(b), "--by", "topic").stdout.split())
    assert "the 20 largest of 41 slices (21 more: --all-slices compares every one)" in printed
    every = run_cli("compare", str(a), str(b), "--by", "topic", "--all-slices", "--out", str(tmp_path / "all"))
    assert len(json.loads((tmp_path / "all" / "compare.json").read_text())["slices"]) == 41, every.stderr
