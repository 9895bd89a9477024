"""`ragmeter explain`: the reasons a run left out are written later, in place, scores unchanged."""

from __future__ import annotations

import json

import pytest

import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.explain import explain
from ragmeter.judges.scripted import ScriptedJudge
from tests.cli_runner import run_cli

CONTEXT = ["Paris is the capital of France."]
ROWS = [{"id": f"r{i}", "response": "Paris is the French capital." if i % 2 else "Rome is the capital.",
         "retrieved_contexts": CONTEXT} for i in range(4)]


def verdict(request) -> dict:
    supported = "Paris" in request.messages[-1]["content"].split("tatement")[-1]
    return {"verdicts": [{"verdict": int(supported), "reason": "says Paris" if supported else "says Rome"}]}


class Failing(ScriptedJudge):
    """Writes reasons as an in-process judge with `reasons: failing` does: none for a 1."""

    reasons = "failing"

    def __init__(self) -> None:
        def reply(request) -> dict:
            out = verdict(request)
            out["verdicts"][0]["reason"] = "" if out["verdicts"][0]["verdict"] else out["verdicts"][0]["reason"]
            return out
        super().__init__(reply)


def reasons(folder) -> dict[str, str]:
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return {r["id"]: r["faithfulness_evidence"]["statements"][0]["reason"] for r in rows}


def test_explain_writes_the_missing_reasons_in_place_and_keeps_the_scores(tmp_path):
    out = tmp_path / "run"
    first = ragmeter.evaluate(ROWS, ["faithfulness"], judge=Failing(), out=out, progress=False)
    assert reasons(out) == {"r0": "says Rome", "r1": "no reason written (reasons: failing)",
                            "r2": "says Rome", "r3": "no reason written (reasons: failing)"}
    writer = ScriptedJudge(verdict)
    done = explain(out, ids=["r1"], judge=writer)
    assert done.rows == {"faithfulness": 1} and writer.calls() == 1
    assert reasons(out)["r1"] == "says Paris" and reasons(out)["r3"].startswith("no reason written")
    done = explain(out, where="faithfulness >= 0.5", judge=ScriptedJudge(verdict))
    assert done.rows == {"faithfulness": 1} and set(reasons(out).values()) == {"says Paris", "says Rome"}
    again = ragmeter.load_run(out)
    assert again.scores["faithfulness"] == [r["faithfulness"] for r in first.rows]
    # summed over both: r3 asked what r1 was asked, so its reply came from the cache
    assert again.manifest.explained == {"faithfulness": {"rows": 2, "judge_calls": 1, "changed": 0}}
    assert explain(out, judge=ScriptedJudge({})).rows == {}  # nothing left to write, no call


def test_a_row_whose_score_would_change_is_left_as_it_was(tmp_path):
    out = tmp_path / "run"
    ragmeter.evaluate(ROWS, ["faithfulness"], judge=Failing(), out=out, progress=False)
    contrary = ScriptedJudge(lambda request: {"verdicts": [{"verdict": 0, "reason": "no"}]})
    done = explain(out, judge=contrary)
    assert done.changed == {"faithfulness": 2} and done.rows == {"faithfulness": 0}
    assert reasons(out)["r1"] == "no reason written (reasons: failing)"


def test_bad_choices_are_one_line(tmp_path):
    out = tmp_path / "run"
    ragmeter.evaluate(ROWS, ["faithfulness"], judge=Failing(), out=out, progress=False)
    with pytest.raises(ConfigError, match="no metric context_recall in this run"):
        explain(out, ["context_recall"])
    with pytest.raises(ConfigError, match="expected METRIC OP NUMBER"):
        explain(out, where="faithfulness is low")
    proc = run_cli("explain", str(out), "--where", "faithfulness ~ 1")
    assert proc.returncode == 2 and proc.stderr.startswith("ragmeter: error: --where 'faithfulness ~ 1'")
    proc = run_cli("explain", str(tmp_path / "missing"))
    assert proc.returncode == 2 and "run folder not found" in proc.stderr


def test_explain_refreshes_the_report_page_beside_the_run(tmp_path):
    """Issue 36, item 12: the run's own report.html is written again with the new reasons."""
    from ragmeter.report import write_report

    out = tmp_path / "run"
    ragmeter.evaluate(ROWS, ["faithfulness"], judge=Failing(), out=out, progress=False)
    page = write_report(out, out=out / "report.html")
    assert "says Paris" not in page.read_text(encoding="utf-8")
    done = explain(out, ids=["r1"], judge=ScriptedJudge(verdict))
    assert done.report == out / "report.html"
    assert "says Paris" in page.read_text(encoding="utf-8")
