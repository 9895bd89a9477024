"""Files CI systems read: a Markdown summary (for $GITHUB_STEP_SUMMARY or a pull-request
comment) and JUnit XML (GitHub Actions, GitLab and Jenkins show each gate as a test case).
Both are written atomically; text from data is escaped for its format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragmeter.io.writers import write_redacted
from ragmeter.results.manifest import Manifest
from ragmeter.stats import interval_text


def markdown_summary(manifest: Manifest, gates: Any = None, comparison: Any = None) -> str:
    """Metrics table, gate outcomes, and the comparison with a baseline when there is one."""
    judge = (manifest.judge or {}).get("name", "-")
    lines = [f"### ragmeter: {_md(manifest.dataset.source)} ({manifest.dataset.rows} rows, "
             f"judge {_md(judge)})", ""]
    if gates is not None and gates.results:
        verdict = "passed" if gates.passed else f"FAILED ({len(gates.failures())} of {len(gates.results)} gates)"
        lines += [f"**Gates {verdict}**", ""]
    lines += ["| metric | mean | 95% CI | n | unscored |", "|---|---:|---|---:|---:|"]
    for name, m in manifest.metrics.items():
        mean = "-" if m.mean is None else f"{m.mean:.4f}"
        ci = interval_text(m.ci95, m.n, "{0:.3f} - {1:.3f}")
        lines.append(f"| {_md(name)} | {mean} | {ci} | {m.n} | {m.unscored} |")
    if gates is not None and gates.results:
        lines += ["", "| gate | result |", "|---|---|"]
        lines += [f"| {'pass' if g.passed else '**FAIL**'} | {_md(g.message)} |" for g in gates.results]
    if comparison is not None:
        lines += ["", f"Against the baseline ({comparison.shared_rows} paired rows):", "",
                  "| metric | baseline | this run | difference | 95% CI | p (Holm) | verdict |",
                  "|---|---:|---:|---:|---|---:|---|"]
        for name, c in comparison.metrics.items():
            if c.difference is None:
                lines.append(f"| {_md(name)} | - | - | - | - | - | {c.verdict} |")
                continue
            lines.append(f"| {_md(name)} | {c.mean_a:.4f} | {c.mean_b:.4f} | {c.difference:+.4f} | "
                         f"{interval_text(c.ci95, c.n, '{0:+.3f} {1:+.3f}')} | {c.p_holm:.3g} | {c.verdict} |")
    return "\n".join(lines) + "\n"


def _md(text: Any) -> str:
    """Table-safe Markdown: no pipes, no newlines, no HTML."""
    import html

    return html.escape(" ".join(str(text).split())).replace("|", "\\|")


def junit_xml(gates: Any, rows: list[dict[str, Any]] | None = None, ids: list[str] | None = None,
              thresholds: dict[str, float] | None = None, higher: dict[str, bool] | None = None) -> bytes:
    """One test case per gate; with `rows`, one per row and thresholded metric too (a row
    below its metric's bar fails)."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="ragmeter")
    suite = ET.SubElement(suites, "testsuite", name="ragmeter.results.gates")
    for gate in gates.results:
        _case(suite, f"ragmeter.{gate.kind}", f"{gate.kind}: {gate.metric}", gate.passed, gate.message)
    if rows is not None and thresholds:
        row_suite = ET.SubElement(suites, "testsuite", name="ragmeter.rows")
        for row_id, row in zip(ids or [], rows):
            for name, bar in thresholds.items():
                value = row.get(name)
                up = (higher or {}).get(name, True)
                passed = value is not None and (value >= bar if up else value <= bar)
                reason = row.get(f"{name}_reason") or "unscored"
                _case(row_suite, f"ragmeter.rows.{name}", str(row_id), passed,
                      f"{name}={'-' if value is None else f'{value:.4f}'} ({'>=' if up else '<='} {bar}): {reason}")
    for element in suites.iter("testsuite"):
        cases = list(element)
        element.set("tests", str(len(cases)))
        element.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    ET.indent(suites)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def junit_runs(reports: dict[str, Any]) -> bytes:
    """One test suite per run, one test case per gate (`compare` with gates over many runs)."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="ragmeter")
    for label, report in reports.items():
        suite = ET.SubElement(suites, "testsuite", name=_xml_text(f"ragmeter.{label}"))
        for gate in report.results:
            _case(suite, f"ragmeter.{label}.{gate.kind}", f"{gate.kind}: {gate.metric}", gate.passed, gate.message)
        suite.set("tests", str(len(suite)))
        suite.set("failures", str(sum(1 for c in suite if c.find("failure") is not None)))
    ET.indent(suites)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def _case(suite: Any, classname: str, name: str, passed: bool, message: str) -> None:
    import xml.etree.ElementTree as ET

    case = ET.SubElement(suite, "testcase", classname=_xml_text(classname), name=_xml_text(name))
    if not passed:
        failure = ET.SubElement(case, "failure", message=_xml_text(message)[:500], type="ragmeter.gate")
        failure.text = _xml_text(message)
    else:
        ET.SubElement(case, "system-out").text = _xml_text(message)


def _xml_text(text: str) -> str:
    """XML 1.0 cannot hold most control characters, even escaped: shown as escapes."""
    import re

    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", lambda m: repr(m.group())[1:-1], text)


def write_text(path: str | Path, text: str | bytes) -> Path:
    target = Path(path)
    write_redacted(target, text)
    return target
