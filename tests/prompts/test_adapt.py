"""`prompts adapt`: string-wise translation keeps the structure, and refuses broken strings."""

from __future__ import annotations

import asyncio

from ragmeter.cache import NullCache
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.metrics import get_metric, get_metrics
from ragmeter.prompts.adapt import adapt_prompts, problems, requirements
from ragmeter.prompts.files import dump, export_files, file_name, read_prompt_file, to_file
from ragmeter.prompts.template import builtin_prompt


def _text(request) -> tuple[str, str]:
    fields = dict(line.split(": ", 1) for line in request.messages[-1]["content"].split("\n"))
    return fields["text"], fields["requirements"]


def translate_ok(request) -> dict:
    text, _ = _text(request)
    return {"translation": "ES " + text}


def adapt(judge, metrics=("faithfulness",), instruction=False):
    return asyncio.run(adapt_prompts(get_metrics(list(metrics)), "spanish", judge, NullCache(),
                                     instruction=instruction))


def test_only_string_leaves_are_sent_and_labels_and_keys_stay():
    judge = ScriptedJudge(translate_ok)
    results = {r.template.name: r for r in adapt(judge)}
    verdicts = results["verdicts"].template
    # 1 context + 2 statements + 2 reasons; the 0/1 verdicts never reach the judge
    assert len(results["verdicts"].translations) == 5
    assert judge.calls() == 5 + 5  # + the statements prompt: question, answer, 3 statements
    out = verdicts.examples[0].output["verdicts"]
    assert [v["verdict"] for v in out] == [1, 0]
    assert out[1]["reason"] == "ES The context says Computer Science, not Biology."
    assert verdicts.examples[0].input["statements"][1] == "ES John is majoring in Biology."
    assert verdicts.language == "spanish" and verdicts.instruction.endswith("Write every text in the output in Spanish.")
    assert verdicts.input_fields == builtin_prompt("faithfulness", "verdicts").input_fields
    assert results["verdicts"].kept == []


def test_a_judge_that_merges_sentences_is_caught_and_asked_again():
    def merge_first(request):
        text, need = _text(request)
        if "rejected" not in need and text.count(". ") == 1:
            return {"translation": "ES " + text.replace(". ", ", y ")}
        return {"translation": "ES " + text}

    judge = ScriptedJudge(merge_first)
    results = {r.template.name: r for r in adapt(judge)}
    statements = results["statements"]
    assert statements.kept == [] and results["verdicts"].kept == []
    assert statements.template.examples[0].input["answer"].startswith("ES He was a German-born")
    # two strings hold two sentences: the example answer and the verdicts example's context
    reasks = [r for r in judge.requests if "rejected: 2 sentence(s) became 1" in r.messages[-1]["content"]]
    assert len(reasks) == 2


def test_a_translation_that_stays_broken_keeps_the_original_and_is_reported(tmp_path):
    def always_merge(request):
        text, _ = _text(request)
        return {"translation": "ES " + text.replace(". ", ", y ")}

    results = {r.template.name: r for r in adapt(ScriptedJudge(always_merge))}
    kept = results["statements"].kept
    assert [k.where for k in kept] == ["example 1 input.answer"]
    assert kept[0].problem == "2 sentence(s) became 1"
    answer = results["statements"].template.examples[0].input["answer"]
    assert answer == builtin_prompt("faithfulness", "statements").examples[0].input["answer"]
    # the written file records the refusal and still loads as a valid prompt
    record = results["statements"].record("scripted", "built-in english", False)
    assert record["kept_original"][0]["problem"] == "2 sentence(s) became 1" and record["translated"] == 4
    path = tmp_path / file_name(results["statements"].template)
    path.write_text(dump(to_file(results["statements"].template, get_metric("faithfulness"), record)))
    assert read_prompt_file(path, get_metric).adapted["kept_original"][0]["where"] == "example 1 input.answer"


def test_unparseable_replies_keep_the_original():
    results = adapt(ScriptedJudge(lambda request: "no json here"), metrics=("context_relevance",))
    assert all(t.kept_original for r in results for t in r.translations)
    assert results[0].template.examples == builtin_prompt("context_relevance", "rating1").examples


def test_instruction_lines_keep_their_markup():
    results = adapt(ScriptedJudge(translate_ok), metrics=("context_relevance",), instruction=True)
    lines = results[0].template.instruction.split("\n")
    assert lines[0] == "### ES Instructions" and lines[1] == ""
    assert any(line.startswith("0. ES If the context") for line in lines)


def test_problems_and_requirements():
    assert problems("Answer {question} now.", "Responde ahora.").startswith("protected tokens changed")
    assert problems("One. Two.", "Uno, dos.") == "2 sentence(s) became 1"
    assert problems("a\nb", "a b") == "line breaks changed"
    assert problems("A long sentence of text.", "Una") .startswith("length changed")
    assert problems("Hello.", "  ") == "the translation is empty"
    assert problems("Where is it?", "¿Dónde está?") is None
    assert requirements("Say {x}. Then stop.") == "Exactly 2 sentences. Copy {x} unchanged."


def test_exported_english_prompts_translate_into_loadable_files(tmp_path):
    results = adapt(ScriptedJudge(translate_ok), metrics=("context_precision", "context_recall",
                                                          "response_relevancy"))
    assert len(results) == 3
    for result in results:
        metric = get_metric(result.template.metric)
        path = tmp_path / file_name(result.template)
        path.write_text(dump(to_file(result.template, metric)))
        assert read_prompt_file(path, get_metric).language == "spanish"
    assert len(export_files(get_metrics(["context_recall"]))) == 1
