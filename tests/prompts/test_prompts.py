"""Prompts as data: export, edit, load, validate, languages, and what reaches the cache key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmeter.api import evaluate
from ragmeter.errors import ConfigError
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.metrics import DEFAULT_METRICS, get_metric, get_metrics
from ragmeter.prompts.files import export_files, read_prompt_file, write_prompt_files
from ragmeter.prompts.languages import normalize_language
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.prompts.template import builtin_prompt

ROWS = [{"id": "a", "user_input": "q1?", "response": "The answer. It is short.", "retrieved_contexts": ["c1 says s1", "c2 says s2"],
         "reference": "Ref one. Ref two."}]
JUDGE_METRICS = [{"faithfulness": {"statements": "judge"}}, "context_recall", "context_relevance"]


def auto_reply(request) -> dict:
    """A valid reply for any core prompt, read off the request's schema."""
    props = request.schema["properties"]
    if "verdicts" in props:
        return {"verdicts": [{"reason": "ok", "verdict": 1}] * props["verdicts"]["minItems"]}
    if "statements" in props:
        return {"statements": ["s1", "s2"]}
    if "questions" in props:
        return {"questions": ["g1", "g2", "g3"], "noncommittal": 0}
    return {"rating": 2}


def export(tmp_path: Path, language: str = "english", metrics=JUDGE_METRICS) -> Path:
    out = tmp_path / "prompts"
    write_prompt_files(export_files(get_metrics(metrics), language), out, force=False)
    return out


def run(prompts_dir=None, language="english", metrics=JUDGE_METRICS):
    judge = ScriptedJudge(auto_reply)
    result = evaluate(ROWS, metrics, judge=judge, language=language, prompts_dir=prompts_dir)
    return result, judge


def test_export_writes_one_valid_file_per_prompt_with_hash_and_schema(tmp_path):
    out = export(tmp_path, metrics=list(DEFAULT_METRICS))
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 9 and "faithfulness.verdicts.english.json" in files  # context_relevance: 3 (two ratings, likelihood)
    data = json.loads((out / "faithfulness.verdicts.english.json").read_text())
    assert data["hash"] == builtin_prompt("faithfulness", "verdicts").version
    assert data["output_schema"]["properties"]["verdicts"]["minItems"] == 2  # example 1 has 2 statements
    # a one-statement list (the default: each statement in a call of its own) is not led by the example's negative item
    assert data["examples"][0]["output"]["verdicts"][0]["verdict"] == 1
    assert data["ragmeter_version"]
    loaded = read_prompt_file(out / "faithfulness.verdicts.english.json", get_metric)
    assert loaded.template() == builtin_prompt("faithfulness", "verdicts")


def test_reexport_is_safe_identical_passes_changed_needs_force(tmp_path):
    out = export(tmp_path)
    write_prompt_files(export_files(get_metrics(JUDGE_METRICS)), out, force=False)  # identical: fine
    target = out / "context_recall.attribution.english.json"
    target.write_text(target.read_text().replace("short reason", "brief reason"))
    with pytest.raises(ConfigError, match="context_recall.attribution.english.json.*--force"):
        write_prompt_files(export_files(get_metrics(JUDGE_METRICS)), out, force=False)
    assert "brief reason" in target.read_text()  # nothing overwritten
    write_prompt_files(export_files(get_metrics(JUDGE_METRICS)), out, force=True)
    assert "short reason" in target.read_text()


def test_unedited_export_reuses_the_cache_and_an_edit_calls_the_judge_again(tmp_path):
    first, judge1 = run()
    assert judge1.calls() == 6  # statements, a verdict for each of the two in a call of its own, attribution, rating1, rating2
    out = export(tmp_path)
    same, judge2 = run(prompts_dir=out)
    assert judge2.calls() == 0 and same.manifest["prompt_notes"] == []
    assert same.manifest["prompts"]["context_recall"]["attribution"]["source"].endswith(
        "context_recall.attribution.english.json")
    target = out / "context_recall.attribution.english.json"
    data = json.loads(target.read_text())
    data["instruction"] += " Be strict."
    target.write_text(json.dumps(data))
    edited, judge3 = run(prompts_dir=out)
    assert judge3.calls() == 1 and judge3.requests[0].tag == "context_recall.attribution"
    assert "Be strict." in judge3.requests[0].messages[0]["content"]
    notes = edited.manifest["prompt_notes"]
    assert len(notes) == 1 and notes[0].startswith("context_recall.attribution: edited since export")
    assert "differs from the built-in english prompt" in notes[0]
    assert edited.manifest["metrics"]["context_recall"]["version"] != first.manifest["metrics"]["context_recall"]["version"]
    assert edited.manifest["metrics"]["faithfulness"]["version"] == first.manifest["metrics"]["faithfulness"]["version"]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def _valid(metric="faithfulness", name="verdicts") -> dict:
    return json.loads(export_files(get_metrics([metric]))[f"{metric}.{name}.english.json"])


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("instruction"), "missing required key 'instruction'"),
    (lambda d: d.update(instructions="x"), "unknown key 'instructions'"),
    (lambda d: d["examples"][0]["output"]["verdicts"].pop(), "example 1: output does not match the reply schema: "
                                                             "verdicts: List should have at least 2 items"),
    (lambda d: d["examples"][0]["output"]["verdicts"][0].update(verdict="yes"), "example 1: output does not match"),
    (lambda d: d["examples"][0]["input"].pop("statements"), "example 1: input must have exactly the fields"),
    (lambda d: d.update(input_fields=["contexts"]), "input_fields must be \\['contexts', 'statements'\\]"),
    (lambda d: d.update(name="verdict"), "faithfulness has no prompt 'verdict'"),
    (lambda d: d.update(metric="faithfulnes"), "unknown metric 'faithfulnes'"),
    (lambda d: d.update(instruction="  "), "the instruction is empty"),
    (lambda d: d.update(language="../x"), "not a language name"),
])
def test_a_broken_file_fails_with_its_name_and_the_problem_before_any_call(tmp_path, mutate, message):
    data = _valid()
    mutate(data)
    folder = _write(tmp_path, "faithfulness.verdicts.english.json", json.dumps(data))
    judge = ScriptedJudge(auto_reply)
    with pytest.raises(ConfigError, match=message) as info:
        evaluate(ROWS, ["faithfulness"], judge=judge, prompts_dir=folder)
    assert "faithfulness.verdicts.english.json" in str(info.value)
    assert judge.calls() == 0


def test_invalid_json_names_file_and_line(tmp_path):
    folder = _write(tmp_path, "p.json", '{"metric": "faithfulness",\n "name": }')
    with pytest.raises(ConfigError, match=r"p.json: invalid JSON at line 2, column 10"):
        PromptSet.build(get_metrics(["faithfulness"]), "english", folder, get_metric)


def test_two_files_for_one_prompt_are_refused(tmp_path):
    text = json.dumps(_valid())
    _write(tmp_path, "a.json", text)
    folder = _write(tmp_path, "b.json", text)
    with pytest.raises(ConfigError, match="a.json and b.json both define faithfulness.verdicts in english"):
        PromptSet.build(get_metrics(["faithfulness"]), "english", folder, get_metric)


def test_missing_prompts_dir_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="prompts folder not found"):
        PromptSet.build(get_metrics(["faithfulness"]), "english", tmp_path / "nope", get_metric)


def test_language_names_and_aliases():
    assert normalize_language("ES") == "spanish" == normalize_language("Español")
    assert normalize_language("english") == "english" and normalize_language("French") == "french"


def test_spanish_builtin_prompts_exist_for_every_core_prompt_and_are_used(tmp_path):
    for metric in get_metrics(list(DEFAULT_METRICS)):
        for prompt in metric.prompts("spanish"):
            assert prompt.language == "spanish"
            assert prompt.version != builtin_prompt(metric.name, prompt.name, "english").version
    result, judge = run(language="es")
    assert result.manifest["language"] == "spanish"
    assert result.manifest["prompts"]["faithfulness"]["statements"]["language"] == "spanish"
    first = judge.requests[0].messages
    assert "afirmaciones" in first[0]["content"] and "¿Quién fue Albert Einstein" in first[1]["content"]


def test_a_language_without_builtin_prompts_needs_a_folder(tmp_path):
    with pytest.raises(ConfigError, match="no built-in french prompt for faithfulness.statements.*prompts adapt"):
        run(language="french")
    out = tmp_path / "fr"
    out.mkdir()
    for name, text in export_files(get_metrics(JUDGE_METRICS)).items():
        data = json.loads(text)
        data["language"] = "french"
        (out / name.replace("english", "french")).write_text(json.dumps(data))
    result, judge = run(prompts_dir=out, language="french")
    assert judge.calls() > 0 and result.manifest["metrics"]["faithfulness"]["n"] == 1
    assert any("no built-in french prompt to compare with" in n for n in result.manifest["prompt_notes"])


def test_a_folder_with_only_some_prompts_falls_back_to_builtin(tmp_path):
    out = export(tmp_path, metrics=["context_recall"])
    result, _ = run(prompts_dir=out)
    prompts = result.manifest["prompts"]
    assert prompts["context_recall"]["attribution"]["source"] != "built-in"
    assert prompts["faithfulness"]["verdicts"]["source"] == "built-in"


def test_prompts_cli_export_and_evaluate_with_language(tmp_path):
    from typer.testing import CliRunner

    from ragmeter.cli import app

    runner = CliRunner()
    out = tmp_path / "p"
    result = runner.invoke(app, ["prompts", "export", str(out), "--metrics", "faithfulness", "--language", "es"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["faithfulness.statements.spanish.json",
                                                       "faithfulness.verdicts.spanish.json"]
    again = runner.invoke(app, ["prompts", "export", str(out), "--metrics", "faithfulness", "--language", "es"])
    assert again.exit_code == 0  # identical files: nothing to overwrite


def test_config_file_language_and_prompts_dir_resolve_against_the_file(tmp_path):
    from ragmeter.run.config import load_config

    (tmp_path / "conf").mkdir()
    config = tmp_path / "conf" / "run.yaml"
    config.write_text("dataset: d.jsonl\nlanguage: Español\nprompts_dir: my_prompts\n")
    cfg = load_config(config)
    assert cfg.language == "spanish" and cfg.prompts_dir == str(tmp_path / "conf" / "my_prompts")
    config.write_text("dataset: d.jsonl\nlanguage: ../etc\n")
    with pytest.raises(ConfigError, match="language: language '../etc' is not a language name"):
        load_config(config)


def test_a_metric_without_spanish_prompts_uses_english_and_says_so():
    judge = ScriptedJudge({"language_quality.label": {"analysis": "bien", "label": "High"}})
    result = evaluate([{"id": "a", "response": "Una respuesta."}], ["language_quality"], judge=judge,
                      language="spanish")
    assert result.rows[0]["language_quality"] == 1.0
    assert result.manifest["prompts"]["language_quality"]["label"]["language"] == "english"
    assert result.manifest["prompt_notes"] == ["language_quality.label: no built-in spanish prompt for this metric "
                                               "yet: the English one is used"]


def test_an_edited_english_fallback_file_is_used_in_a_spanish_run(tmp_path):
    """`prompts export --language spanish` writes *.english.json for metrics without Spanish
    prompts; editing one must change what a Spanish run sends, never be silently ignored."""
    out = export(tmp_path, "spanish", ["language_quality"])
    path = out / "language_quality.label.english.json"
    assert path.is_file()
    data = json.loads(path.read_text())
    data["instruction"] = "EDITED: " + data["instruction"]
    path.write_text(json.dumps(data))
    judge = ScriptedJudge({"language_quality.label": {"analysis": "bien", "label": "High"}})
    result = evaluate([{"id": "a", "response": "Una respuesta."}], ["language_quality"], judge=judge,
                      language="spanish", prompts_dir=out)
    assert "EDITED: " in judge.requests[0].messages[0]["content"]
    record = result.manifest["prompts"]["language_quality"]["label"]
    assert record["source"] == str(path) and "edited since export" in record["note"]
