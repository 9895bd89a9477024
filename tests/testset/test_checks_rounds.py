"""The no-model checks of a written question, the rounds that ask a chunk again when the chunks
run out, and groundedness read as the faithfulness claim "question answer"."""

from __future__ import annotations

import re

import pytest

from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.prompts.template import builtin_prompt
from ragmeter.reading.questions import from_example, points_at_source
from ragmeter.testset import generate_testset
from ragmeter.testset.chunking import Chunk
from ragmeter.testset.sampling import Rounds, unasked
from tests.conftest import TableEmbedder


@pytest.mark.parametrize(("question", "language", "found"), [
    ("What is the name of the library mentioned in the context?", "english", "mentioned in"),
    ("What is the name of the caching library used in the code snippet?", "english", "in the code"),
    ("What is the value of foo.bar in the given JSON data?", "english", "the given JSON"),
    ("What are some additional features supported by this library?", "english", "this library"),
    ("¿Qué opciones se describen en el contexto?", "spanish", "en el contexto"),
    ("¿Qué hace este programa?", "spanish", "este programa"),
    ("What is JMESPath?", "english", None),
    ("What does the `jmespath.Options` class control?", "english", None),
    ("¿Qué opción de tr borra caracteres?", "spanish", None),
    ("¿Qué opción de sort ordena según el texto de la versión?", "spanish", None),  # the page's own words
])
def test_a_question_pointing_at_its_source_is_caught(question, language, found):
    assert points_at_source(question, language) == found


def test_the_prompts_example_copied_into_a_question_is_caught():
    english, spanish = builtin_prompt("testset", "factoid", "english"), builtin_prompt("testset", "factoid", "spanish")
    assert from_example("When was the Eiffel Tower completed?", ["zstd compresses files."], english) == \
        ["eiffel", "tower"]
    assert from_example("¿Qué opción de la lista de la Torre Eiffel ordena versiones?", ["-V ordena versiones"],
                        spanish) == ["eiffel", "torre"]
    # the example's words that the chunk holds are the chunk's; the sentence's first word is no name
    assert from_example("When was Paris's bridge completed?", ["Paris has a bridge."], english) == []
    assert from_example("When does the cache expire?", ["The cache expires."], english) == []


def test_unasked_text_leaves_out_the_block_already_asked_about_and_its_neighbours():
    blocks = [f"Fact {i}: the value of setting{i} is {100 + i} and it is documented at length here." for i in range(8)]
    text = "\n\n".join(blocks)
    rest = unasked(text, ["What is the value of setting1? 101"])
    assert rest == "\n".join(blocks[3:])  # blocks 0-2 (1 and its neighbours) left out; the longest run kept
    assert unasked(text, ["setting1 101", "setting5 105"]) is None  # runs of one or two blocks: too short


def _numbered_docs(folder, count):
    folder.mkdir()
    for d in range(count):
        facts = [f"Setting {chr(65 + d)}{i} of the service controls part {i} and defaults to {1000 * (d + 1) + i}."
                 for i in range(6)]
        (folder / f"doc{d}.md").write_text("\n\n".join(facts) + "\n")
    return folder


def _writer(request):
    """Writes one question about the first setting in the text it is shown; rates everything 5."""
    text = request.messages[-1]["content"]
    if request.tag == "testset.factoid":
        name = re.search(r"Setting (\w+)", text).group(1)
        value = re.search(rf"Setting {name} .*? defaults to (\d+)", text).group(1)
        return {"question": f"What does setting {name} of the service default to?", "answer": value}
    if request.tag == "faithfulness.verdicts":
        return {"verdicts": [{"verdict": 1, "reason": ""}]}
    return {"rating": 5}


def test_a_test_set_reaches_its_size_by_asking_each_chunk_again(tmp_path):
    docs = _numbered_docs(tmp_path / "docs", 2)  # one chunk per document
    judge = ScriptedJudge(_writer)
    names = ["A0", "A2", "B0", "B2"]
    table = {f"What does setting {n} of the service default to?": [float(i == j) for j in range(4)]
             for i, n in enumerate(names)}
    result = generate_testset(docs, 4, write_from="chunk", judge=judge, embeddings=TableEmbedder(table), progress=False)
    questions = sorted(r["user_input"] for r in result.rows)
    assert len(questions) == 4 and not result.quality["stopped_short"]
    # the second round's questions are written from text away from the first ones (the setting asked
    # about and its neighbours left out), about other settings
    assert [q.split()[3] for q in questions] == names
    assert {r["reference"] for r in result.rows} == {"1000", "1002", "2000", "2002"}
    assert all(len(r["reference_contexts"]) == 1 and "Setting A5" in r["reference_contexts"][0]
               for r in result.rows if "A" in r["user_input"].split()[3])  # the whole chunk is the reference
    assert judge.calls("faithfulness.verdicts") == 4


def test_rounds_end_when_no_chunk_has_text_left():
    chunk = Chunk("c-1", "a.md", 0, "One paragraph about the only setting, which defaults to 7, with words enough "
                  "to pass the minimum length of a chunk that can be asked about at all; a reader cites it whole "
                  "(a paragraph of at most 250 characters is one block).")
    rounds = Rounds([chunk], seed=0)
    assert rounds.next() == (chunk, chunk.text) and rounds.next() is None
    rounds.record(chunk.id, "What does the only setting default to?", "7")
    assert not rounds.advance() and "(1 chunk, 1 round);" in rounds.exhausted()


async def test_groundedness_is_the_answer_as_a_claim_with_its_question():
    from ragmeter.cache import open_cache
    from ragmeter.judges.session import JudgeSession
    from ragmeter.testset.generation import Judging, critique

    seen = []

    def judge_reply(request):
        seen.append(request.messages[-1]["content"])
        return {"verdicts": [{"verdict": 0, "reason": "the chunk says 8"}]}

    cache = open_cache(False)
    judging = Judging(JudgeSession(ScriptedJudge(judge_reply), cache), "english", {})
    result = await critique(judging, "groundedness", "What does the setting default to?", "It defaults to 8.", "",
                            "answer", "7")
    assert "What does the setting default to? 7" in seen[0] and "It defaults to 8." in seen[0]
    assert (result["score"], result["expected"], result["dist"]) == (1, 1.0, {5.0: 0.0, 1.0: 1.0})
    assert result["rationale"] == "the chunk supports the answer with probability 0.00: the chunk says 8"


def test_rounds_stop_at_the_most_rounds_and_say_so():
    text = "\n\n".join(f"Setting number {i} of the long page defaults to the value {100 + i} in every release."
                       for i in range(40))
    chunk = Chunk("c-1", "a.md", 0, text)
    rounds = Rounds([chunk], seed=0)
    for i in range(4):
        _, shown = rounds.next()
        number = re.search(r"Setting number (\d+)", shown).group(1)
        rounds.record(chunk.id, f"What does setting number {number} default to?", str(100 + int(number)))
        assert rounds.next() is None
        assert rounds.advance() == (i < 3)
    assert rounds.round == 4 and "until the most rounds (1 chunk, 4 rounds)" in rounds.exhausted()


def test_every_second_of_a_test_set_is_in_a_named_part():
    """Issue 76 item 3: "judge: 42 calls, 16,018 tokens, 6m40s" for a 12m41s run, and no word on
    the other six minutes."""
    from ragmeter.accounting import MetricStats
    from ragmeter.testset.quality import OWN_WORK, time_line, time_spent

    stats = {"generate": MetricStats(judge_seconds=300.0), "critique": MetricStats(judge_seconds=100.0),
             "embed": MetricStats(embed_seconds=50.0)}
    spent = time_spent(761.0, 4.0, 430.0, 9.0, stats)
    assert sum(spent["parts"].values()) == pytest.approx(761.0)
    assert spent["parts"][OWN_WORK] == 327.0
    assert spent["within"] == {"loading the judge's model": 9.0, "judge, generate": 300.0, "judge, critique": 100.0,
                               "embeddings": 50.0}
    assert time_line(spent).startswith("time: 12m41s = the judge and embedder at work 7m10s, ragmeter's own work")
