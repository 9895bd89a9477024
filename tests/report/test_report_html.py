"""The HTML report: content and escaping (here), and the page in a real headless Chromium."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from ragmeter.errors import DataError
from ragmeter.report import write_report
from ragmeter.report.data import histogram
from ragmeter.report.page import embed_json
from ragmeter.testing.runs import write_run

HOSTILE = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"
RTL = "\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd"
FOLDER = "<img src=x onerror=window.__pwned=4>"


def hostile_runs(tmp_path: Path) -> tuple[Path, Path]:
    ids = [f"q{i}" for i in range(120)] + [HOSTILE]
    rows = [{"id": i, "user_input": f"question {i}?", "response": f"answer {i}.",
             "retrieved_contexts": [f"context {i}."], "reference": "ref"} for i in ids]
    rows[3]["response"] = HOSTILE + " " + RTL
    rows[4]["retrieved_contexts"] = ["x" * 50_000, "</script><script>window.__pwned = 3</script>"]
    rows[5]["user_input"] = "\u2028line\u2029separators & <b>bold</b>"
    a = [0.1 + (i % 9) / 10 for i in range(len(ids))]
    b = [min(1.0, x + 0.05) for x in a]
    run_a = write_run(tmp_path / "a", {"faithfulness": a, "context_recall": [None] + a[1:]}, ids=ids, rows=rows)
    # a folder name is data too: it is shown in the page's header
    run_b = write_run(tmp_path / FOLDER, {"faithfulness": b, "context_recall": a}, ids=ids, rows=rows)
    return run_a, run_b


def test_histogram_bins():
    assert histogram([0.0, 0.05, 0.1, 0.99, 1.0, None], bins=10) == [2, 1, 0, 0, 0, 0, 0, 0, 0, 2]


def test_embedded_json_cannot_close_the_script():
    text = embed_json({"a": "</script><!-- \u2028 & >"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- \u2028 & >"}


def test_a_bidi_override_in_the_data_is_shown_not_obeyed():
    """Issue 65 item 11: an answer's U+202E reversed what the page showed after it; it now
    reads as its escape, as the terminal shows it (text.plain)."""
    from ragmeter.report.page import embed_bytes

    data = {"a": "pay \u202egnp.exe and \u2066isolated\u2069 \u200f"}
    for text in (embed_json(data), embed_bytes(json.dumps(data, ensure_ascii=False).encode()).decode()):
        assert not any(c in text for c in "\u202e\u2066\u2069\u200f")
        assert json.loads(text) == {"a": "pay \\u202egnp.exe and \\u2066isolated\\u2069 \\u200f"}


def test_report_is_self_contained_and_escaped(tmp_path):
    run_a, run_b = hostile_runs(tmp_path)
    page = write_report(run_a, run_b, tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count("<script") == 4  # the summary, two runs of rows and the page's script: none from data
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # no network
    assert "<b>bold</b>" not in page and HOSTILE not in page and "<img" not in page
    assert html.escape(FOLDER) in page  # the run folder's name, escaped, in the header
    csp = html.unescape(re.search(r'Content-Security-Policy" content="([^"]+)"', page)[1])
    script = re.search(r"<script>(.*)</script></body>", page, re.S)[1]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp
    assert "B - A (paired)" in page and "Paired differences" in page
    assert "+0.0500 (n=121)" in page  # faithfulness: every row 0.05 higher except those capped at 1


def test_single_run_report_and_bad_input(tmp_path):
    run_a, _ = hostile_runs(tmp_path)
    page = write_report(run_a, out=tmp_path / "one.html").read_text(encoding="utf-8")
    assert "mean A" in page and "B - A (paired)" not in page
    (tmp_path / "no-manifest").mkdir()
    with pytest.raises(DataError, match="no manifest.json"):
        write_report(tmp_path / "no-manifest")
    empty = write_run(tmp_path / "empty", {"faithfulness": [1.0]})
    (empty / "results.jsonl").write_text("")
    with pytest.raises(DataError, match="file is empty, but the manifest says 1 rows"):
        write_report(empty)


def test_cli_report_and_run_flag(tmp_path):
    from typer.testing import CliRunner

    from ragmeter.cli import app

    run_a, run_b = hostile_runs(tmp_path)
    out = CliRunner().invoke(app, ["report", str(run_a), str(run_b), "--out", str(tmp_path / "x.html")])
    assert out.exit_code == 0 and (tmp_path / "x.html").stat().st_size > 10_000
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "user_input": "q", "response": "a", "reference": "a"}) + "\n")
    out = CliRunner().invoke(app, ["evaluate", str(data), "--metrics", "exact_match", "--out", str(tmp_path / "r"),
                                   "--report"])
    assert out.exit_code == 0, out.output
    assert "exact_match" in (tmp_path / "r" / "report.html").read_text()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (make test installs Debian's package)")
def test_report_in_headless_chromium(tmp_path):
    from playwright import sync_api  # a dev dependency: missing, it fails here rather than skipping
    run_a, run_b = hostile_runs(tmp_path)
    report = write_report(run_a, run_b, tmp_path / "report.html")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning")
                else None)
        page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
        page.on("request", lambda r: problems.append(f"request: {r.url}") if not r.url.startswith("file:")
                else None)
        page.goto(report.as_uri())
        assert page.locator("#summary table.summary").is_visible()
        assert page.locator("#count").inner_text() == "121 of 121 rows"
        assert page.locator("#row-table tbody tr").count() == 50  # one page, not 121 DOM rows
        page.fill("#filter", "faithfulness < 0.5")
        page.press("#filter", "Enter")
        assert page.locator("#count").inner_text() == "56 of 121 rows"
        page.fill("#filter", "context_recall unscored")
        page.press("#filter", "Enter")
        assert page.locator("#count").inner_text() == "1 of 121 rows"
        page.fill("#filter", "nonsense <")
        page.press("#filter", "Enter")
        assert "cannot read 'nonsense <'" in page.locator("#filter-error").inner_text()
        page.fill("#filter", "")
        page.press("#filter", "Enter")
        page.fill("#search", "pwned")
        assert page.locator("#count").inner_text() == "2 of 121 rows"  # the hostile id and answer
        page.locator("#row-table tbody tr").first.click()
        detail = page.locator("#detail")
        assert detail.is_visible()
        assert HOSTILE in detail.inner_text()  # shown as text
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        assert page.evaluate("window.__pwned") is None
        assert page.locator("#detail img").count() == 0 and page.locator("script").count() == 4
        browser.close()
    assert problems == []
    assert (tmp_path / "report.png").stat().st_size > 20_000


LONG_NAMES = ["exact_match", "context_precision_without_reference", "faithfulness", "rouge", "bleu",
              "response_relevancy", "noise_sensitivity"]

#: the texts a reader must see whole, each on one line: numbers in the summary and the row table,
#: each underscore-separated part of a metric name, the chart's labels inside the picture
SPLIT = """() => {
  const lines = (node) => { const r = document.createRange(); r.selectNodeContents(node);
                            return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size; };
  const texts = (root) => { const out = [], walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
                            while (walk.nextNode()) if (walk.currentNode.textContent.trim()) out.push(walk.currentNode);
                            return out; };
  const broken = [];
  document.querySelectorAll("#row-table td.num .nb, #row-table th .seg, table.summary th, " +
                            "table.summary td:nth-child(n+2):not(:last-child)").forEach(n => { if (lines(n) > 1) broken.push(n.textContent); });
  document.querySelectorAll("table.summary td:first-child").forEach(td => texts(td).forEach(t => {
    if (lines(t) > 1) broken.push(t.textContent); }));
  document.querySelectorAll("svg.diffs text").forEach(t => { if (t.getBBox().x < 0) broken.push("cut: " + t.textContent); });
  return broken;
}"""


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (make test installs Debian's package)")
@pytest.mark.parametrize("width", [1280, 800])
def test_no_name_or_number_is_split_at_1280_or_800_pixels(tmp_path, width):
    """At 1280 px names wrapped by character ("exa ct_ mat ch", "p (H ol m)"), values mid-digit."""
    from playwright import sync_api

    ids = [f"q{i}" for i in range(12)]
    rows = [{"id": i, "user_input": f"What does question {i} ask about the documents?", "response": f"answer {i}",
             "retrieved_contexts": ["c"], "reference": "r"} for i in ids]
    a = {name: [round((i * 7 % 10) / 10, 3) for i in range(12)] for name in LONG_NAMES}
    b = {name: [round(min(1.0, v + 0.123), 3) for v in values] for name, values in a.items()}
    run_a = write_run(tmp_path / "a", a, ids=ids, rows=rows)
    run_b = write_run(tmp_path / "b", b, ids=ids, rows=rows)
    lines = (run_b / "results.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["faithfulness_evidence"] = {"statements_from": "response", "repeats_dropped": 1, "verdicts": [
        {"statement": "Y.", "verdict": 0, "reason": "not in the context"}]}
    (run_b / "results.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    report = write_report(run_a, run_b, tmp_path / "report.html")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(report.as_uri())
        assert page.evaluate(SPLIT) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # wide tables scroll inside
        assert page.locator("#row-table thead th").count() == 2 + len(LONG_NAMES)  # A/B folded per metric
        assert page.locator("#row-table tbody tr").first.locator("td").nth(2).inner_text() == "0.000 → 0.123\n+0.123"
        page.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=True)
        page.locator("#row-table tbody tr").first.click()
        detail = page.locator("#detail").inner_text()
        assert "statements taken from" in detail and "repeated statements dropped" in detail
        assert "statements_from" not in detail and "repeats_dropped" not in detail
        # the drill-down pairs each metric: B's block starts on the same line as A's
        tops = page.evaluate("""() => Array.from(document.querySelectorAll('#detail .metric'))
                                      .map(n => Math.round(n.getBoundingClientRect().top))""")
        assert len(tops) == 2 * len(LONG_NAMES) and all(tops[i] == tops[i + 1] for i in range(0, len(tops), 2))
        browser.close()
    assert (tmp_path / f"report-{width}.png").stat().st_size > 20_000


def test_two_run_report_names_the_metrics_it_could_not_pair(tmp_path):
    """Issue 36, item 9: a metric of one run only is said, not dropped silently."""
    from ragmeter.testing.runs import write_run

    a = write_run(tmp_path / "a", {"faithfulness": [0.5] * 12, "context_recall": [1.0] * 12})
    b = write_run(tmp_path / "b", {"faithfulness": [0.4] * 12})
    page = write_report(a, b, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "not compared (a metric of one run only): context_recall (only in A)." in page
