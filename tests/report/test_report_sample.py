"""A report of a run larger than a page holds: every summary figure from all rows, a
documented sample of rows (worst, best, most changed, below a gate, seeded random)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragmeter.report import sample, write_report
from ragmeter.testing.runs import write_run


@pytest.fixture
def small_page(monkeypatch):
    for name, value in {"MAX_ROWS": 60, "WORST": 5, "BEST": 2, "CHANGED": 4, "RANDOM": 10}.items():
        monkeypatch.setattr(sample, name, value)


def islands(page: str) -> tuple[dict, list[list[dict]]]:
    data = json.loads(re.search(r'id="ragmeter-data">(.*?)</script>', page, re.S).group(1))
    rows = [json.loads(blob) for blob in re.findall(r'id="ragmeter-rows-\d">(.*?)</script>', page, re.S)]
    return data, rows


def test_a_run_over_the_page_limit_holds_the_worst_best_below_gate_and_random_rows(tmp_path: Path, small_page):
    n = 300
    scores = {"faithfulness": [(i * 37 % n) / n for i in range(n)], "rouge": [None if i % 50 == 0 else 1 - i / n
                                                                               for i in range(n)]}
    run = write_run(tmp_path / "run", scores)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["gates"] = {"passed": False, "mode": "mean", "results": [
        {"kind": "threshold", "metric": "faithfulness", "passed": False, "message": "m", "value": 0.5, "bar": 0.02,
         "higher_is_better": True}]}
    (run / "manifest.json").write_text(json.dumps(manifest))
    page = write_report(run, out=tmp_path / "r.html").read_text(encoding="utf-8")
    data, (rows,) = islands(page)
    ids = [r["id"] for r in rows]
    assert ids == data["runs"][0]["ids"] and len(ids) == len(set(ids))
    worst = sorted(range(n), key=lambda i: scores["faithfulness"][i])[:5]
    best = sorted(range(n), key=lambda i: -scores["faithfulness"][i])[:2]
    below = [i for i in range(n) if scores["faithfulness"][i] < 0.02]  # 6 rows
    assert {f"q{i}" for i in worst + best + below} <= set(ids)
    assert {"q299", "q298", "q297", "q296", "q295"} <= set(ids)  # rouge's worst
    note = data["rows_shown"]
    assert note["rows"] == n and note["shown"] == len(ids) and note["why"]["random"] == 10
    assert note["below_gates"] == len(below)
    assert len(ids) == sum(note["why"].values()) < 60
    assert [r["id"] for r in rows] == sorted(ids, key=lambda i: int(i[1:]))  # in the run's order
    # the summary is the whole run's: the histogram counts all 300 rows
    assert sum(data["runs"][0]["metrics"]["faithfulness"]["histogram"]) == n
    assert f"This page holds {len(ids)} of 300 rows" in page and "computed from all 300 rows" in page
    assert "--format parquet" in page
    again = write_report(run, out=tmp_path / "again.html").read_text(encoding="utf-8")
    assert islands(again)[1] == [rows]  # the random part is seeded


def test_two_large_runs_show_the_rows_that_changed_most_in_both(tmp_path: Path, small_page):
    n = 200
    a = [0.5] * n
    b = [0.5] * n
    for i, delta in {17: 0.4, 150: -0.45, 3: 0.3, 99: -0.2, 120: 0.1}.items():
        b[i] += delta
    run_a, run_b = write_run(tmp_path / "a", {"faithfulness": a}), write_run(tmp_path / "b", {"faithfulness": b})
    data, (rows_a, rows_b) = islands(write_report(run_a, run_b, out=tmp_path / "c.html").read_text("utf-8"))
    ids_a, ids_b = [r["id"] for r in rows_a], [r["id"] for r in rows_b]
    assert ids_a == ids_b == data["runs"][0]["ids"] == data["runs"][1]["ids"]
    assert {"q150", "q17", "q3", "q99"} <= set(ids_a)
    assert data["rows_shown"]["changed"] == 4


def test_a_run_within_the_limit_holds_every_row_and_no_note(tmp_path: Path, small_page):
    run = write_run(tmp_path / "run", {"faithfulness": [i / 60 for i in range(60)]})
    page = write_report(run, out=tmp_path / "r.html").read_text(encoding="utf-8")
    data, (rows,) = islands(page)
    assert len(rows) == 60 and data["rows_shown"] is None and "This page holds" not in page


def test_many_metrics_whose_extremes_fill_the_page_leave_no_room_for_the_random_rows(tmp_path: Path, small_page):
    n = 200
    import random

    rng = random.Random(5)
    scores = {f"m{k}": [rng.random() for _ in range(n)] for k in range(12)}  # 12 metrics x 7 extremes: > 60
    data, (rows,) = islands(write_report(write_run(tmp_path / "run", scores), out=tmp_path / "r.html")
                            .read_text(encoding="utf-8"))
    assert data["rows_shown"]["why"].get("random", 0) == 0 and len(rows) == data["rows_shown"]["shown"] > 60
