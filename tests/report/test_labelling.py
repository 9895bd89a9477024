"""The labelling page: a seeded sample, labels by keyboard in a real Chromium, saved as the
labels.jsonl that `ragmeter calibrate` reads, and resumed from one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragmeter.errors import ConfigError
from ragmeter.labels.sample import sample_ids
from ragmeter.report.labelling import write_labelling_page
from ragmeter.results.runs import load_run
from ragmeter.testing.runs import write_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def a_run(tmp_path):
    ids = [f"r{i:02d}" for i in range(30)]
    rows = [{"id": i, "user_input": f"question {i}?", "response": f"answer {i}", "retrieved_contexts": [f"ctx {i}"]}
            for i in ids]
    return write_run(tmp_path / "run", {"faithfulness": [i / 29 for i in range(30)]}, ids=ids, rows=rows)


def test_samples_are_seeded_and_stratified_samples_cover_every_decile(tmp_path):
    run = load_run(a_run(tmp_path))
    assert sample_ids(run, "faithfulness", 10, seed=1) == sample_ids(run, "faithfulness", 10, seed=1)
    assert sample_ids(run, "faithfulness", 10, seed=1) != sample_ids(run, "faithfulness", 10, seed=2)
    spread = sample_ids(run, "faithfulness", 10, seed=3, strategy="stratified")
    assert sorted(int(i[1:]) // 3 for i in spread) == list(range(10))  # one row of each score decile
    with pytest.raises(ConfigError, match="not in the run"):
        write_labelling_page(run, ["context_recall"], tmp_path / "l.html")


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (make test installs Debian's package)")
def follow(page, url: str) -> None:
    """Navigate from inside the page, as a link does, and wait for the new page's load."""
    with page.expect_navigation(url=url):
        page.evaluate("url => { window.location.href = url; }", url)


def test_label_five_rows_with_the_keyboard_save_and_resume(tmp_path):
    from playwright import sync_api
    from playwright.sync_api import expect  # waits for the page to show it, no sleep

    run = a_run(tmp_path)
    given = tmp_path / "given.jsonl"
    page_file = write_labelling_page(run, ["faithfulness"], tmp_path / "label.html", sample=8, seed=0)
    order = json.loads(page_file.read_text().split('id="ragmeter-label-data">')[1].split("</script>")[0])["rows"]
    ids = [r["id"] for r in order]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(accept_downloads=True)
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(page_file.as_uri())
        expect(page.locator("#item h3")).to_contain_text("row 1 of 8")
        expect(page.locator("#item")).not_to_contain_text("the judge:")  # hidden until asked for
        expect(page.locator("#stored")).to_contain_text("kept in this browser as you go")
        page.click("#labeller")
        page.keyboard.type("ana")
        page.keyboard.press("Enter")  # gives the keys back: no click on the page needed (issue 36)
        expect(page.locator("#labeller")).not_to_be_focused()  # the keys go to the page only once it has them
        for key in ("1", "0"):
            page.keyboard.press(key)
        page.click("#show-judge")  # was: the shortcuts stopped until the page was clicked
        expect(page.locator("#item")).to_contain_text("the judge:")
        for key in ("1", "1", "0"):
            page.keyboard.press(key)
        expect(page.locator("#progress")).to_have_text("5 of 8 rows labelled")
        page.reload()  # a closed tab loses nothing: the labels and the name come back
        expect(page.locator("#progress")).to_have_text("5 of 8 rows labelled")
        expect(page.locator("#labeller")).to_have_value("ana")
        expect(page.locator("#stored")).to_contain_text("restored 5 labels kept in this browser")
        expect(page.locator("#item h3")).to_contain_text("row 6 of 8")  # the first unlabelled row
        page.keyboard.press("ArrowLeft")
        expect(page.locator("#item h3")).to_contain_text("row 5 of 8")
        with page.expect_download() as download:
            page.keyboard.press("s")
        saved = Path(download.value.path()).read_text(encoding="utf-8")
        # issue 50: the 0/1 labels kept in the browser were restored into a 1-5 page of the same run and metric,
        # and a 1 saved as the lowest rating; the storage key now holds the scale
        rating = write_labelling_page(run, ["faithfulness"], tmp_path / "rating.html", sample=8, seed=0, scale=(1, 5))
        # followed as a link is (from the page), not typed: a typed address may open another renderer
        # before the last write reached the browser's storage, and CI saw the 0/1 page come back empty
        follow(page, rating.as_uri())
        expect(page.locator("#progress")).to_have_text("0 of 8 rows labelled")
        expect(page.locator("#stored")).to_contain_text("kept in this browser as you go")
        follow(page, page_file.as_uri())  # while the 0/1 page still has its own
        expect(page.locator("#progress")).to_have_text("5 of 8 rows labelled")
        browser.close()
    assert problems == []
    sha = load_run(run).manifest.dataset.sha256
    expected = [{"id": i, "metric": "faithfulness", "label": v, "dataset_sha256": sha, "labeller": "ana"}
                for i, v in zip(ids, (1, 0, 1, 1, 0))]
    assert [json.loads(line) for line in saved.splitlines()] == expected
    given.write_text(saved)
    resumed = write_labelling_page(run, ["faithfulness"], tmp_path / "again.html", sample=8, seed=0, labels=given)
    data = json.loads(resumed.read_text().split('id="ragmeter-label-data">')[1].split("</script>")[0])
    assert data["given"] == {"faithfulness": {i: v for i, v in zip(ids, (1, 0, 1, 1, 0))}}


def test_the_command_writes_label_html_and_checks_its_options(tmp_path):
    from tests.cli_runner import run_cli

    run = a_run(tmp_path)
    proc = run_cli("report", str(run), "--label", "faithfulness", "--sample", "5", "--scale", "1,5", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("wrote label.html: label the rows, save labels.jsonl, then `ragmeter calibrate")
    data = json.loads((tmp_path / "label.html").read_text().split('id="ragmeter-label-data">')[1].split("</script>")[0])
    assert len(data["rows"]) == 5 and [c["value"] for c in data["metrics"][0]["choices"]] == [1, 2, 3, 4, 5]
    for args, message in ((["--scale", "5,1"], "--scale 5,1: LOW must be below HIGH"),
                          (["--scale", "0,1000000"], "--scale 0,1000000: at most 100 points"),
                          (["--strategy", "best"], "--strategy best: expected random or stratified"),
                          (["--sample", "0"], "--sample must be at least 1")):
        bad = run_cli("report", str(run), "--label", "faithfulness", *args, cwd=tmp_path)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
