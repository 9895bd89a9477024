"""Every command's terminal output fits 80 columns: a table that has room for each column's
longest word stays a table (cells wrap between words), a wider one folds into one block per
row, and no metric name or number is cut ("faithf…") or split across lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmeter.testing.runs import write_run
from tests.cli.test_cli_config import FakeOpenAI
from tests.cli_runner import run_cli
from tests.http_fakes import serving

ROOT = Path(__file__).resolve().parents[2]
NARROW = {"COLUMNS": "80"}
LONG = "context_precision_without_reference"


def widest(text: str) -> int:
    """The widest line, leaving out `wrote PATH` lines (a path may be longer than a line)."""
    return max((len(line.rstrip()) for line in text.splitlines() if not line.startswith("wrote ")), default=0)


def assert_fits(text: str, *whole: str) -> None:
    assert widest(text) <= 80, max(text.splitlines(), key=len)
    assert "…" not in text
    for word in whole:  # each name or number on one line, never cut
        assert word in text, word


@pytest.fixture(scope="module")
def judge_url():
    with serving(FakeOpenAI) as url:
        yield f"{url}/v1"


def test_metrics_folds_each_metric_into_a_block():
    out = run_cli("metrics", env=NARROW).stdout
    assert_fits(out, "context_precision_with_reference", "noise_sensitivity", "judgment=probability")
    assert "\n  needs: user_input, response, retrieved_contexts · uses: judge" in out  # folded: one block each


def test_compare_keeps_long_metric_names_whole(tmp_path):
    scores_a = {LONG: [1.0, 0.0] * 10, "faithfulness": [0.04 * i for i in range(20)]}
    scores_b = {LONG: [0.0, 1.0] * 10, "faithfulness": [0.04 * i + 0.05 for i in range(20)]}
    a, b = write_run(tmp_path / "a", scores_a), write_run(tmp_path / "b", scores_b)
    out = run_cli("compare", str(a), str(b), env=NARROW).stdout
    assert_fits(out, LONG, "no significant difference", "+0.0500")


def test_a_table_that_fits_stays_a_table(tmp_path, judge_url):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": str(i), "question": f"q{i}?", "contexts": ["c"], "answer": "x"}) + "\n"
                            for i in range(3)))
    out = run_cli("evaluate", str(data), "--metrics", "context_relevance", "--judge", f"openai-compat:{judge_url}#m",
                  "--out", str(tmp_path / "run"), env=NARROW).stdout
    assert_fits(out, "context_relevance", "1.0000", "n<10")
    assert "┃ metric" in out  # the summary is still a table
    verbose = run_cli("evaluate", str(data), "--metrics", "context_relevance", "--judge",
                      f"openai-compat:{judge_url}#m", "--out", str(tmp_path / "run"), "-v", env=NARROW).stdout
    assert_fits(verbose, "context_relevance")


def test_a_priced_dry_run_with_many_metrics(tmp_path, judge_url):
    data = ROOT / "examples" / "dataset.jsonl"
    out = run_cli("evaluate", str(data), "--metrics", "faithfulness,context_precision,response_relevancy",
                  "--judge", f"openai-compat:{judge_url}#m", "--dry-run", "--price-per-million", "0.15,0.60",
                  env=NARROW).stdout
    assert_fits(out, "faithfulness", "context_precision", "response_relevancy")
    assert "(max" in out and "price" in out


def test_meta_eval(tmp_path):
    out = run_cli("meta-eval", str(ROOT / "tests" / "data" / "meta-eval" / "clapnq_answerability.jsonl"),
                  "--metric", "rouge", "--out", str(tmp_path / "m"), env=NARROW).stdout
    assert_fits(out, "roc_auc", "balanced_accuracy_held_out")


def test_every_commands_help_fits_without_cutting_an_example():
    """Issue 36, item 18: help text at 80 columns, no example cut mid-word ("context_recall=0…")."""
    from ragmeter.cli.app import command

    commands = command().commands
    assert {"evaluate", "traces", "judge-check", "report"} <= set(commands)
    for name in commands:
        proc = run_cli(name, "--help", env=NARROW)
        assert proc.returncode == 0, name
        assert "…" not in proc.stdout, (name, [line for line in proc.stdout.splitlines() if "…" in line])
        assert widest(proc.stdout) <= 80, name
