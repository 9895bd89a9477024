"""The row-first layout (issue 75): a row's question and chunks first, in the same words for
every metric that reads them, each metric's task after them; the templates' own layout untouched."""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.prompts.row_first import AUTO_MIN_CHARS, RowFirst, reads_row_first
from ragmeter.prompts.template import builtin_prompt
from tests.conftest import TableEmbedder

ROW = {"id": "r1", "user_input": "Where is the Eiffel Tower?", "response": "It is in Paris.",
       "retrieved_contexts": ["The Eiffel Tower stands on the Champ de Mars in Paris.", "The Nile is long."],
       "reference": "The Eiffel Tower is in Paris. It was finished in 1889."}
SCRIPT = {"context_precision.usefulness": {"verdicts": [{"reason": "Paris", "verdict": 1},
                                                        {"reason": "Nile", "verdict": 0}]},
          "context_recall.attribution": {"verdicts": [{"reason": "yes", "verdict": 1},
                                                      {"reason": "no", "verdict": 0}]},
          "context_relevance.rating1": {"rating": 2}, "context_relevance.rating2": {"rating": 1}}
METRICS = ["context_precision", "context_recall", "context_relevance"]


def run(layout: str, row: dict = ROW) -> tuple[dict, ScriptedJudge]:
    judge = ScriptedJudge(SCRIPT)
    result = ragmeter.evaluate([row], METRICS, judge=judge, embeddings=TableEmbedder({}), cache=False,
                               progress=False, language="english", layout=layout)
    return result.rows[0], judge


def test_every_metric_of_a_row_reads_the_same_row_first_then_its_own_task():
    out, judge = run("row")
    assert len(judge.requests) == 4
    rows = {tuple(m["content"] for m in r.messages[:2]) for r in judge.requests}
    assert len(rows) == 1  # one system line and one row message, the same for every prompt
    system, row = rows.pop()
    assert row == ("question: Where is the Eiffel Tower?\ncontexts:\n"
                   "[1] The Eiffel Tower stands on the Champ de Mars in Paris.\n[2] The Nile is long.")
    assert all(r.row_prefix and len(r.messages) == 3 for r in judge.requests)
    tasks = {r.tag: r.messages[2]["content"] for r in judge.requests}
    assert tasks["context_precision.usefulness"].startswith("Given a question, an answer and numbered context")
    assert tasks["context_precision.usefulness"].endswith("\n\nanswer: It is in Paris.")
    assert tasks["context_recall.attribution"].endswith(
        "sentences:\n[1] The Eiffel Tower is in Paris.\n[2] It was finished in 1889.")
    assert "Eiffel" not in tasks["context_relevance.rating1"]  # nothing of the row read twice
    # the template's examples follow its instruction, marked as not the row (they anchor the scale)
    assert ("\n\nExample (another question, not this row's):\nquestion: When was Albert Einstein born?\n"
            "context: Albert Einstein was born on 14 March 1879.\nReply: {\"rating\": 2}") in tasks[
        "context_relevance.rating1"]
    # the scores are read as in the templates' own layout
    assert out["context_precision"] == 1.0 and out["context_recall"] == 0.5 and out["context_relevance"] == 0.75


def test_the_templates_own_layout_is_unchanged_by_default():
    out, judge = run("instruction")
    template = builtin_prompt("context_precision", "usefulness")
    sent = next(r for r in judge.requests if r.tag == "context_precision.usefulness")
    assert not sent.row_prefix
    written = template.messages({"question": ROW["user_input"], "answer": ROW["response"],
                                 "contexts": ROW["retrieved_contexts"]})
    assert [m["role"] for m in sent.messages] == ["system", "user", "assistant", "user"]
    assert sent.messages[0] == written[0] and sent.messages[-1] == written[-1]
    relevance = next(r for r in judge.requests if r.tag == "context_relevance.rating1")
    assert relevance.messages[-1]["content"].endswith("context: " + "\n".join(ROW["retrieved_contexts"]))
    assert (out["context_precision"], out["context_recall"], out["context_relevance"]) == (1.0, 0.5, 0.75)


def test_auto_reads_long_contexts_row_first_and_short_ones_as_written():
    assert not reads_row_first("auto", ["x" * (AUTO_MIN_CHARS - 1)])
    assert reads_row_first("auto", ["x" * (AUTO_MIN_CHARS // 2)] * 2)
    halves = ["x" * (AUTO_MIN_CHARS // 2 - 1)] * 2  # a list and its joined text are read alike
    assert reads_row_first("auto", halves) == reads_row_first("auto", "\n".join(halves)) is False
    assert reads_row_first("row", []) and not reads_row_first("instruction", ["x" * 10_000])
    _, short = run("auto")
    assert not any(r.row_prefix for r in short.requests)
    long_row = {**ROW, "retrieved_contexts": [c * 40 for c in ROW["retrieved_contexts"]]}
    _, long = run("auto", long_row)
    assert all(r.row_prefix for r in long.requests)


def test_a_row_first_prompt_is_a_version_of_its_own_under_the_same_key():
    template = builtin_prompt("context_recall", "attribution")
    row_first = RowFirst(template)
    assert row_first.key == template.key and row_first.version != template.version
    assert row_first.truncatable == ("contexts",)
    with pytest.raises(ValueError, match="cannot be read row-first"):
        RowFirst(builtin_prompt("response_relevancy", "questions"))


def test_spanish_prompts_get_the_spanish_system_line():
    template = builtin_prompt("context_precision", "usefulness", "spanish")
    messages = RowFirst(template).messages({"question": "¿Dónde?", "answer": "En París.", "contexts": ["París."]})
    assert messages[0]["content"].startswith("Evalúas") and messages[2]["content"].startswith(template.instruction)
