"""Chunks that disagree about a statement (metrics/disagreement.py), flagged in faithfulness's
evidence and counted in the summary, the console and the report."""

from __future__ import annotations

import ragmeter
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.reading.conflicts import disagreements

PORT = "The server listens on port 8080 by default."
HOLDS = "Quick start. The server listens on port 8080 by default."
OTHER = "Configuration: the server listens on port 9090 by default."


def test_a_changed_detail_and_a_negation_are_disagreements_with_both_spans():
    found = disagreements([PORT], [HOLDS, "Bananas are yellow.", OTHER], language="english")
    assert found == [{"statement": PORT, "statement_index": 0, "holds": {"chunk": 0, "span": HOLDS},
                      "contradicts": {"chunk": 2, "span": OTHER, "detail": "8080 -> 9090"}}]
    negated = disagreements(["The cache is enabled by default."],
                            ["The cache is enabled by default.", "Note: the cache is not enabled by default."], language="english")
    assert negated[0]["contradicts"]["detail"] == "negated"
    spanish = disagreements(["El servidor escucha en el puerto 8080 por defecto."],
                            ["El servidor escucha en el puerto 8080 por defecto.",
                             "El servidor nunca escucha en el puerto 8080 por defecto."], "spanish")
    assert spanish[0]["contradicts"]["detail"] == "negated"
    # negations are read in the run's language: where it is not covered, only details disagree
    assert disagreements(["The cache is enabled by default."],
                         ["The cache is enabled by default.", "Note: the cache is not enabled by default."],
                         "french") == []


def test_agreeing_unrelated_or_unsupported_chunks_are_no_disagreement():
    assert disagreements([PORT], [HOLDS, HOLDS], language="english") == []
    assert disagreements([PORT], [HOLDS, "Bananas are yellow, and 9090 is a number."], language="english") == []
    # no chunk holds it: unsupported, which the verdict says, not a disagreement
    assert disagreements([PORT], [OTHER, OTHER.replace("9090", "7070")], language="english") == []
    assert disagreements(["Yes 8080."], [HOLDS, OTHER], language="english") == []  # too few words to tell


def rows():
    return [{"id": "a", "user_input": "Which port?", "response": PORT, "retrieved_contexts": [HOLDS, OTHER]},
            {"id": "b", "user_input": "Which port?", "response": PORT, "retrieved_contexts": [HOLDS, HOLDS]}]


def test_faithfulness_flags_the_row_without_a_call_and_keeps_its_score(tmp_path):
    judge = ScriptedJudge({"faithfulness.verdicts": {"verdicts": [{"reason": "ok", "verdict": 1}]}})
    result = ragmeter.evaluate(rows(), ["faithfulness"], judge=judge, cache=False, progress=False,
                               out=str(tmp_path / "run"))
    flagged, plain = result.rows
    assert flagged["faithfulness"] == plain["faithfulness"] == 1.0
    assert flagged["faithfulness_evidence"]["contexts_disagree"][0]["contradicts"]["chunk"] == 1
    assert "the contexts disagree about 1 statement" in flagged["faithfulness_reason"]
    assert "contexts_disagree" not in plain["faithfulness_evidence"]
    assert judge.calls() == 0  # both answers copy HOLDS as written: supported without a call (reading/copies.py)
    assert result.summary()["faithfulness"]["flags"] == {"contexts_disagree": 1}
    from rich.console import Console

    from ragmeter.results.console import print_summary
    console = Console(record=True, width=120)
    print_summary(result.manifest, console)
    assert "faithfulness: 1 row(s) flagged contexts_disagree" in console.export_text()
    from ragmeter.report.write import write_report
    page = write_report(tmp_path / "run", out=tmp_path / "r.html").read_text()
    assert "faithfulness: 1 row(s) flagged <b>contexts_disagree</b>" in page.replace("_<wbr>", "_")


def test_disagreement_off_leaves_no_flag():
    judge = ScriptedJudge({"faithfulness.verdicts": {"verdicts": [{"reason": "ok", "verdict": 1}]}})
    result = ragmeter.evaluate(rows()[:1], [{"faithfulness": {"disagreement": "off"}}], judge=judge, cache=False,
                               progress=False)
    assert "contexts_disagree" not in result.rows[0]["faithfulness_evidence"]
    assert result.summary()["faithfulness"].get("flags") is None


def test_a_spanish_no_is_a_negation_even_where_the_rest_is_copied_word_for_word():
    statement = '"FMT" puede ser "date", "seconds" o "ns" según la precisión deseada.'
    found = disagreements([statement], [f"--rfc-3339=FMT\n muestra la fecha. {statement}",
                                        '"FMT" no puede ser "date", "seconds" o "ns" según la precisión deseada.'], language="english")
    assert found and found[0]["holds"]["chunk"] == 0 and found[0]["contradicts"]["detail"] == "negated"
