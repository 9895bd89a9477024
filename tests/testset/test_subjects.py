"""What a chunk is about, for the writer of its question (issue 62): the subject line, the
words a question may name its subject with, the rewrite of a question that names none, and
the documents' own language."""

from __future__ import annotations

import json

import pytest

from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.testset import generate_testset
from ragmeter.testset.chunking import Chunk
from ragmeter.testset.documents import Document
from ragmeter.testset.subjects import Subjects
from tests.conftest import TableEmbedder

GUIDE = """# Lighthouse keeping

A guide to the Beacon service for keepers.

## Lamps

The Beacon lamp is lit at dusk by the keeper. The lamp burns for twelve hours each night, and it is
trimmed at midnight so that the flame stays steady until dawn over the northern reef.
"""


def lamp_chunk() -> Chunk:
    return Chunk("c-lamp", "guide.md", GUIDE.index("The Beacon lamp"), GUIDE[GUIDE.index("The Beacon lamp"):])


class Summaries:
    """A judging stand-in that writes every document's summary, counting the calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def ask(self, stage, name, inputs, output, max_tokens, family="testset"):
        self.calls += 1

        class Reply:
            parsed = output(summary=f"A guide to the Beacon service ({inputs['name']}).")

        return Reply()


async def test_the_subject_line_names_the_document_title_section_and_summary():
    subjects, judging = Subjects([Document("guide.md", GUIDE)], "english"), Summaries()
    line = await subjects.line(judging, lamp_chunk())
    assert line == "guide.md: Lighthouse keeping > Lamps\nA guide to the Beacon service (guide.md)."
    await subjects.line(judging, lamp_chunk())
    assert judging.calls == 1  # one summary per document and run
    # a name is a word the document writes as one (Beacon, capitalised inside a sentence); the title's
    # and the section's ordinary words (lighthouse, lamps) are not
    assert subjects.words(lamp_chunk()) == {"guide", "beacon"}
    assert subjects.names(lamp_chunk()) == ["guide", "Beacon"]


def writer(rewritten: list[str]):
    """Writes a question that names nothing; rewritten, names the Beacon; everything passes."""

    def reply(request):
        text = request.messages[-1]["content"]
        if request.tag == "testset.summary":
            return {"summary": "A guide to the Beacon service for keepers."}
        if request.tag == "testset.factoid":
            return {"question": "When is the lamp lit?", "answer": "At dusk."}
        if request.tag == "testset.rewrite":
            rewritten.append(text)
            return {"question": "When is the Beacon lamp lit?", "answer": "At dusk."}
        if request.tag == "faithfulness.verdicts":
            return {"verdicts": [{"verdict": 1, "reason": ""}]}
        return {"rating": 5}

    return reply


def test_a_question_that_names_no_subject_is_rewritten_once_and_judged_again(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(GUIDE)
    rewritten: list[str] = []
    result = generate_testset(tmp_path / "docs", 1, write_from="chunk", judge=ScriptedJudge(writer(rewritten)),
                              embeddings=TableEmbedder({}), progress=False, out=tmp_path / "out")
    row = result.rows[0]
    assert row["user_input"] == "When is the Beacon lamp lit?"
    assert row["rewritten_from"]["question"] == "When is the lamp lit?"
    assert row["rewritten_from"]["rejected_by"] == "standalone"
    # the writer is told why and which names to use, the first question inside the problem
    assert "problem: the question does not name what it asks about: name guide, Beacon in it " \
           "(When is the lamp lit?)" in rewritten[0]
    assert result.quality["rewritten"] == 1 and row["standalone_score"] == 5
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["language"]["used"] == "english" and manifest["language"]["asked"] == "auto"
    assert manifest["language"]["from"].startswith("read from the documents' text, P ")


def test_spanish_documents_give_a_spanish_test_set_by_default(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guia.md").write_text(
        "# Faros\n\nLa lámpara del faro Beacon se enciende al anochecer y el farero la revisa a medianoche para "
        "que la llama siga firme hasta el alba sobre el arrecife del norte. " * 3)
    seen: list[str] = []

    def reply(request):
        seen.append(request.messages[0]["content"])
        if request.tag == "testset.summary":
            return {"summary": "Una guía del faro Beacon."}
        if request.tag == "testset.factoid":
            return {"question": "¿Cuándo se enciende la lámpara del faro Beacon?", "answer": "Al anochecer."}
        if request.tag == "faithfulness.verdicts":
            return {"verdicts": [{"verdict": 1, "reason": ""}]}
        return {"rating": 5}

    result = generate_testset(tmp_path / "docs", 1, write_from="chunk", judge=ScriptedJudge(reply), embeddings=TableEmbedder({}),
                              progress=False)
    assert result.quality["language"] == "spanish" and result.manifest["language"]["used"] == "spanish"
    assert result.rows[0]["user_input"].startswith("¿Cuándo")
    assert any(s.startswith("Tu tarea es escribir una pregunta factual") for s in seen)  # the Spanish prompt


def test_the_prompts_own_example_is_dropped_not_rewritten(tmp_path):
    """Checked before the subject: rewritten, the Eiffel Tower question became a PEP question
    with an invented date (issue 62's held-out check)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(GUIDE)
    rewritten: list[str] = []
    script = writer(rewritten)

    def copying(request):
        if request.tag == "testset.factoid":
            return {"question": "When was the Eiffel Tower completed?", "answer": "In 1889."}
        return script(request)

    result = generate_testset(tmp_path / "docs", 1, write_from="chunk", judge=ScriptedJudge(copying), embeddings=TableEmbedder({}),
                              progress=False, max_attempts=1)
    assert result.rows == [] and rewritten == []
    assert [r["rejected_by"] for r in result.rejected] == ["copied example"]


async def test_a_summary_whose_call_failed_is_asked_again():
    from ragmeter.errors import JudgeUnavailable

    class Flaky(Summaries):
        async def ask(self, stage, name, inputs, output, max_tokens, family="testset"):
            if not self.calls:
                self.calls += 1
                raise JudgeUnavailable("connection refused")
            return await super().ask(stage, name, inputs, output, max_tokens, family)

    subjects, judging = Subjects([Document("guide.md", GUIDE)], "english"), Flaky()
    with pytest.raises(JudgeUnavailable, match="connection refused"):
        await subjects.line(judging, lamp_chunk())
    assert (await subjects.line(judging, lamp_chunk())).endswith("A guide to the Beacon service (guide.md).")
    assert judging.calls == 2
