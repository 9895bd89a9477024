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


def test_a_rating_score_says_it_is_the_expected_rating():
    """'ratings [2, 2]' beside a score of 0.617 read as a contradiction."""
    import ragmeter
    from ragmeter.judges.base import JudgeReply
    from ragmeter.judges.scripted import ScriptedJudge

    def unsure(request):
        return JudgeReply(text='{"rating": 2}', labels=[{"field": "rating", "probs": {"0": 0.3, "1": 0.2, "2": 0.5}}])

    row = {"id": "a", "user_input": "q?", "retrieved_contexts": ["c"]}
    result = ragmeter.evaluate([row], ["context_relevance"], judge=ScriptedJudge(unsure), cache=False, progress=False)
    assert result.rows[0]["context_relevance_reason"] == (
        "ratings [2, 2] (0-2 each); expected under the judge's probabilities 1.20, 1.20")


def test_counts_say_one_thing_in_the_singular():
    from ragmeter.text import counted

    assert [counted(1, "document"), counted(2, "document"), counted(1234, "chunk")] == [
        "1 document", "2 documents", "1,234 chunks"]


def test_an_output_folder_that_is_a_dangling_symlink_is_named(tmp_path):
    (tmp_path / "out").symlink_to(tmp_path / "nowhere" / "x")
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a", "user_input": "q?", "response": "a", "reference": "a"}) + "\n")
    said = refused("evaluate", str(data), "--metrics", "exact_match", "--out", str(tmp_path / "out"))
    assert "is a symbolic link to" in said and "which does not exist" in said  # was: "File exists"


@pytest.mark.parametrize("args, said", [
    (["--judge", "openai-compat:http://127.0.0.1:8000/v1#m", "--judge-opt", "base_url=http://other:1/v1"],
     "the spec already gives base_url; give it once"),
    (["--judge", "openai-compat:http://127.0.0.1:99999/v1#m"], "has no valid port (1-65535)"),
])
def test_judge_settings_that_cannot_be_meant_are_refused(tmp_path, args, said):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a", "user_input": "q?", "retrieved_contexts": ["c"]}) + "\n")
    assert said in refused("evaluate", str(data), "--metrics", "context_relevance", *args, "--out", str(tmp_path / "r"))


def test_all_proxy_is_used_where_no_scheme_proxy_is_set(monkeypatch):
    from ragmeter.endpoints import fast_transport

    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ALL_PROXY", "http://proxy.test:3128")
    assert str(fast_transport("https://api.example.com/v1").proxy.url) == "http://proxy.test:3128"


def test_a_prompt_file_over_a_mebibyte_is_refused(tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "faithfulness.statements.english.json").write_text(
        json.dumps({"metric": "faithfulness", "instruction": "x" * (2 << 20)}))
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a", "user_input": "q?", "response": "a", "retrieved_contexts": ["c"]}) + "\n")
    said = refused("evaluate", str(data), "--metrics", "faithfulness", "--prompts-dir", str(prompts),
                   "--judge", "scripted", "--out", str(tmp_path / "run"))
    assert "a prompt file is sent with every judge call and may be at most 1 MiB" in said


def test_labels_of_another_metric_or_run_do_not_resume_a_page_silently(tmp_path):
    from ragmeter.testing.runs import write_run

    run = write_run(tmp_path / "run", {"faithfulness": [0.5, 0.6]})
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "q0", "metric": "faithfulness", "label": 1}) + "\n"
                     + json.dumps({"id": "nope", "metric": "faithfulness", "label": 0}) + "\n")
    said = refused("report", str(run), "--label", "faithfulness", "--labels", str(other), "--out",
                   str(tmp_path / "label.html"))
    assert "labels for 1 row(s) the run does not have (first: nope)" in said
