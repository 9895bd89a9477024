"""The report of many runs (issue 40): the matrix, the slices, and the rows where the runs
disagree, checked in a real headless Chromium against report/many.py's own rule."""

from __future__ import annotations

import html
import shutil

import pytest

from ragmeter.report.many import disagreeing, rows_data, write_many_report
from ragmeter.results.matrix import compare_many
from ragmeter.results.runs import load_run
from ragmeter.testing.runs import write_run
from tests.cli_runner import run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = "<img src=x onerror=\"window.__pwned = 1\">"
IDS = [f"q{i}" for i in range(30)]


def four_runs(tmp_path):
    """a = b everywhere; c puts faithfulness of q0-q4 at 0.2 (across 0.5 from 0.7); d puts
    q5-q7 at 0.95 (0.25 apart: within the default spread) and context_recall of q9 at 0.6
    (0.4 apart from 1.0, both above 0.5)."""
    rows = [{"id": i, "user_input": f"question {i}?", "response": f"answer {i}.",
             "topic": "maths" if n % 2 else "history"} for n, i in enumerate(IDS)]
    rows[8]["response"] = HOSTILE
    faith = {"a": [0.7] * 30, "b": [0.7] * 30, "c": [0.2 if n < 5 else 0.7 for n in range(30)],
             "d": [0.95 if 5 <= n < 8 else 0.7 for n in range(30)]}
    recall = {k: [1.0] * 30 for k in faith}
    recall["d"][9] = 0.6
    return [write_run(tmp_path / k, {"faithfulness": faith[k], "context_recall": recall[k]}, ids=IDS, rows=rows)
            for k in faith]


def test_the_disagreement_rule_and_the_page_content(tmp_path):
    runs = four_runs(tmp_path)
    loaded = [load_run(r) for r in runs]
    result = compare_many(loaded, by="topic")
    rows = rows_data(loaded, result)
    assert disagreeing(rows) == ["q0", "q1", "q2", "q3", "q4", "q9"]
    assert disagreeing(rows, spread=0.2) == [f"q{i}" for i in range(10) if i != 8]
    assert disagreeing(rows, metric=1) == ["q9"]
    page = write_many_report(runs, tmp_path / "many.html", by="topic").read_text(encoding="utf-8")
    assert HOSTILE not in page and "<img" not in page  # the answer is embedded as escaped JSON only
    assert page.count("<script") == 2 and 'data-slice="history"' in page and 'data-slice="maths"' in page
    assert html.escape("difference from a") in page and "★" in page


def test_the_cli_writes_it_for_three_runs_or_more(tmp_path):
    runs = four_runs(tmp_path)
    out = run_cli("report", *map(str, runs), "--out", str(tmp_path / "r.html"), "--by", "topic")
    assert out.returncode == 0, out.stderr
    assert 'id="matrix"' in (tmp_path / "r.html").read_text(encoding="utf-8")
    refused = run_cli("report", *map(str, runs), "--label", "faithfulness")
    assert refused.returncode == 2 and "--label labels one run" in refused.stderr


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (make test installs Debian's package)")
def test_the_disagreement_filter_shows_exactly_the_disagreeing_rows_in_chromium(tmp_path):
    from playwright import sync_api

    report = write_many_report(four_runs(tmp_path), tmp_path / "many.html", by="topic")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                                    "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning")
                else None)
        page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
        page.goto(report.as_uri())
        assert page.locator("#count").inner_text() == "30 of 30 rows"
        page.check("#disagree")
        shown = lambda: page.locator("#row-table tbody tr td:first-child").all_inner_texts()  # noqa: E731
        assert shown() == ["q0", "q1", "q2", "q3", "q4", "q9"]
        page.fill("#spread", "0.2")
        page.dispatch_event("#spread", "change")
        assert shown() == [f"q{i}" for i in range(10) if i != 8]
        page.select_option("#metric", "1")
        assert shown() == ["q9"] and page.locator("#count").inner_text() == "1 of 30 rows"
        page.uncheck("#disagree")
        page.locator("#row-table tbody tr").nth(8).click()
        detail = page.locator("#detail")
        assert detail.is_visible() and HOSTILE in detail.inner_text()  # shown as text, four runs side by side
        assert page.locator("#detail table.side tr").first.locator("th").count() == 5
        assert page.evaluate("window.__pwned") is None and page.locator("#detail img").count() == 0
        browser.close()
    assert problems == []
