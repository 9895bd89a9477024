"""The fourth campaign's bad inputs (issue 50): each was a traceback, a silent wrong answer
or a loop; each is now one line naming what is wrong, exit 2, before anything is judged."""

from __future__ import annotations

import json

import pytest

from ragmeter.testing.runs import write_run
from tests.cli.test_bad_input import refused
from tests.cli_runner import run_cli


@pytest.fixture
def two_runs(tmp_path):
    scores = {"faithfulness": [0.5, 0.6, 0.7, 0.8]}
    return write_run(tmp_path / "a", scores), write_run(tmp_path / "b", scores)


@pytest.mark.parametrize("extra, said", [
    (["--max-drop", "-1"], "--max-drop must be a finite number >= 0"),
    (["--max-drop", "nan"], "--max-drop must be a finite number >= 0"),
    (["--fail-under", "faithfulness=nan"], "--fail-under faithfulness=nan: a bar must be a finite number"),
    (["--metrics", ","], "--metrics ',' names no metric"),
    (["--top", "-5"], "--top must be 0 or more, got -5"),
])
def test_compare_options_are_checked_before_any_run_is_read(two_runs, extra, said):
    a, b = two_runs
    assert said in refused("compare", str(a), str(b), *extra)


def test_a_run_is_not_compared_with_itself(two_runs):
    a, _ = two_runs
    assert "is given twice" in refused("compare", str(a), "--baseline", str(a))
    assert "is given twice" in refused("compare", str(a), str(a / "."))


def test_compare_junit_is_well_formed_xml_whatever_the_folder_names(tmp_path):
    import xml.etree.ElementTree as ET

    scores = {"faithfulness": [0.5, 0.6, 0.7, 0.8]}
    a = write_run(tmp_path / "run\x01a", scores)
    b = write_run(tmp_path / "run\x1bb", scores)
    c = write_run(tmp_path / "c", scores)
    junit = tmp_path / "junit.xml"
    done = run_cli("compare", str(a), str(b), str(c), "--fail-under", "faithfulness=0.5", "--junit", str(junit))
    assert done.returncode == 2 and "at least 10 pairs" in done.stdout, done.stderr  # too few rows to decide
    suites = ET.parse(junit).getroot()  # was: not well formed (the control characters in the class names)
    assert len(suites) == 3


def test_a_deeply_nested_prompt_file_is_one_line(tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "faithfulness.statements.english.json").write_text('{"metric": ' + "[" * 5000 + "]" * 5000 + "}")
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a", "user_input": "q?", "response": "a", "retrieved_contexts": ["c"]}) + "\n")
    said = refused("evaluate", str(data), "--metrics", "faithfulness", "--prompts-dir", str(prompts),
                   "--judge", "scripted", "--out", str(tmp_path / "run"))
    assert "faithfulness.statements.english.json: nested too deeply" in said


@pytest.mark.parametrize("content", [b"root:x:0:0:root:/root:/bin/bash\n", b"GGU"])
def test_a_file_that_is_not_gguf_is_one_line(tmp_path, content):
    model = tmp_path / "model.gguf"
    model.write_bytes(content)
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a", "user_input": "q?", "retrieved_contexts": ["c"]}) + "\n")
    said = refused("evaluate", str(data), "--metrics", "context_relevance", "--judge", f"llamacpp:{model}",
                   "--out", str(tmp_path / "run"))
    assert f"{model} is not a GGUF model file" in said
