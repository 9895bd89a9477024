"""The language a command works in, followed from the data (issue 76 item 1): `testset` found a
corpus Spanish and wrote so in its manifest, then `answer`, `evaluate` and `judge-check` on
the same rows defaulted to English and said nothing; a dry run did not name its language."""

from __future__ import annotations

import json

import pytest

import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.prompts.run_language import follow_language, manifest_language
from ragmeter.reading.identify import identify
from tests.cli_runner import run_cli

ES = [{"id": "q1", "user_input": "¿Cuántos días a la semana se puede teletrabajar?",
       "response": "Se pueden teletrabajar hasta tres días por semana.",
       "retrieved_contexts": ["Se pueden teletrabajar hasta tres días por semana. Los martes son presenciales."]},
      {"id": "q2", "user_input": "¿Cuánto se compensa por los gastos de conexión?",
       "response": "Los gastos de conexión se compensan con 35 euros al mes.",
       "retrieved_contexts": ["Los gastos de conexión se compensan con 35 euros al mes, en la nómina."]}]
FR = [{"id": "f1", "user_input": "Combien de jours par semaine peut-on télétravailler ?",
       "response": "On peut télétravailler jusqu'à trois jours par semaine.",
       "retrieved_contexts": ["Le télétravail est possible jusqu'à trois jours par semaine."]}]


def write_rows(path, rows, manifest=None):
    path.mkdir(parents=True, exist_ok=True)
    (path / "rows.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                     encoding="utf-8")
    if manifest is not None:
        (path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return path / "rows.jsonl"


@pytest.mark.parametrize("text, name", [
    ("¿Cuántos días a la semana se puede teletrabajar? La solicitud se presenta al responsable.", "spanish"),
    ("How many days a week may be worked remotely? The request goes to the team lead.", "english"),
    ("Combien de jours par semaine peut-on télétravailler ? La demande va au responsable.", "french"),
    ("Wie viele Tage pro Woche darf man im Homeoffice arbeiten? Der Antrag geht an die Leitung.", "german"),
    ("Quantos dias por semana se pode trabalhar remotamente? O pedido vai para o responsável.", "portuguese"),
    ("Сколько дней в неделю можно работать удалённо? Заявка подаётся руководителю.", "russian"),
])
def test_a_text_is_read_as_the_language_it_is_written_in(text, name):
    found = identify(text)
    assert found is not None and found.name == name and found.probability > 0.9


def test_a_name_or_a_number_tells_no_language():
    assert identify("1.2.3") is None and identify("zstd --train") is None and identify("") is None


def test_the_language_given_then_the_manifests_then_the_rows(tmp_path):
    data = write_rows(tmp_path / "ts", ES, {"ragmeter_version": "0.1.0", "kind": "testset",
                                            "language": {"asked": "auto", "used": "spanish"}})
    assert follow_language("english", data, []).source == "given"
    followed = follow_language("auto", data, ["The text is English."])
    assert (followed.name, followed.source) == ("spanish", f"from {tmp_path / 'ts' / 'manifest.json'}")
    assert manifest_language(tmp_path / "ts") == ("spanish", str(tmp_path / "ts" / "manifest.json"))
    bare = write_rows(tmp_path / "bare", ES)
    followed = follow_language("auto", bare, [r["user_input"] for r in ES])
    assert followed.name == "spanish" and followed.source.startswith("read from the rows' text, P ")
    french = follow_language("auto", None, [r["user_input"] for r in FR])
    assert french.name == "english" and "the rows read as french" in french.source
    assert "no built-in prompts" in french.source


def test_evaluate_judges_spanish_rows_in_spanish_and_says_so(tmp_path, capsys):
    judge = ScriptedJudge(lambda request: {"verdicts": [{"reason": "ok", "verdict": 1}] * 8})
    result = ragmeter.evaluate(write_rows(tmp_path / "a", ES), ["faithfulness"], judge=judge, cache=False)
    assert result.manifest.language == "spanish"
    assert result.manifest.language_from.startswith("read from the rows' text")
    assert "Evalúa cada afirmación" in " ".join(m["content"] for m in judge.requests[0].messages)
    assert "ragmeter: language: spanish (read from the rows' text, P" in capsys.readouterr().err
    given = ragmeter.evaluate(ES, ["faithfulness"], judge=judge, cache=False, language="english", progress=False)
    assert (given.manifest.language, given.manifest.language_from) == ("english", "given")


def test_the_dry_run_names_the_language_and_where_it_came_from(tmp_path):
    data = write_rows(tmp_path / "ans", ES, {"ragmeter_version": "0.1.0", "kind": "answers", "answers_file": "rows.jsonl",
                                             "language": {"used": "spanish", "from": "given"}})
    proc = run_cli("evaluate", str(data), "--metrics", "faithfulness", "--judge", "openai-compat:http://127.0.0.1:9/v1#m",
                   "--dry-run", "--out", str(tmp_path / "never"))
    assert proc.returncode == 0, proc.stderr
    said = f"language: spanish (from {tmp_path / 'ans' / 'manifest.json'})"
    assert "".join(said.split()) in "".join(proc.stdout.split())  # the console wraps long paths


#: one policy paragraph in three languages ragmeter has no entry for
UNCOVERED = {
    "french": "Le télétravail est possible jusqu'à trois jours par semaine. La demande va au responsable d'équipe.",
    "german": "Homeoffice ist an bis zu drei Tagen pro Woche möglich. Der Antrag geht an die Teamleitung.",
    "russian": "Удалённая работа возможна до трёх дней в неделю. Заявка подаётся руководителю команды.",
}


@pytest.mark.parametrize("name", sorted(UNCOVERED))
def test_a_corpus_in_a_language_without_an_entry_is_named_never_given_anothers_words(tmp_path, name):
    from ragmeter.testset.build import corpus_language
    from ragmeter.testset.documents import Document

    with pytest.raises(ConfigError, match=f"read as {name} .*not covered: {name}; give --language"):
        corpus_language([Document("politique.md", UNCOVERED[name])])
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "politique.md").write_text(" ".join([UNCOVERED[name]] * 3), encoding="utf-8")
    proc = run_cli("testset", str(docs), "--size", "1", "--out", str(tmp_path / "ts"))
    assert proc.returncode == 2 and f"not covered: {name}" in proc.stderr
    assert not list((tmp_path / "ts").glob("*"))  # no question written, in Spanish, English or any other
    spanish = corpus_language([Document("p.md", ES[0]["retrieved_contexts"][0] + " " + ES[1]["retrieved_contexts"][0])])
    assert spanish.name == "spanish" and spanish.source.startswith("read from the documents' text")


@pytest.mark.parametrize("manifest", [
    {"language": "python"},  # a file of another program
    {"ragmeter_version": "0.1.0", "kind": "testset", "language": {"used": "python"}},  # no prompts in it
    {"ragmeter_version": "0.1.0", "kind": "testset", "language": {"used": "English (US)"}},  # not a name
    {"ragmeter_version": "0.1.0", "kind": "answers", "answers_file": "other.jsonl", "language": {"used": "spanish"}},
    {"ragmeter_version": "0.1.0", "kind": "answers", "language": {"used": "english",
                                                                   "from": "the rows' text tells no language; "
                                                                           "--language to choose"}},
    {"ragmeter_version": "0.1.0", "kind": "index", "language": "spanish"},  # a kind that names no rows' language
])
def test_only_a_manifest_ragmeter_wrote_for_these_rows_is_followed(tmp_path, manifest):
    """A cold review: any manifest.json beside the data was trusted ({"language": "python"} failed the run)."""
    data = write_rows(tmp_path / "d", ES, manifest)
    followed = follow_language("auto", data, [r["user_input"] for r in ES])
    assert followed.name == "spanish" and followed.source.startswith("read from the rows' text")
    assert manifest_language(data) is None


def test_auto_is_auto_in_any_case_and_a_given_language_always_wins(tmp_path):
    data = write_rows(tmp_path / "d", ES, {"ragmeter_version": "0.1.0", "kind": "testset",
                                           "language": {"used": "spanish"}})
    assert follow_language("Auto", data, []).name == "spanish"
    assert follow_language("English", data, []).source == "given"
